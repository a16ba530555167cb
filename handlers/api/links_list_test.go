package api_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func keysOf(t *testing.T, r linkResp) string {
	t.Helper()
	var ks []string
	for _, l := range r.list(t) {
		ks = append(ks, l["key"].(string))
	}
	return strings.Join(ks, ",")
}

func TestListLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		ids := map[string]string{}
		mk := func(key, extra string) {
			body := `{"url":"https://dest.example.com/` + key + `","domain":"acme.link","key":"` + key + `"` + extra + `}`
			ids[key] = e.ok(200, "acme", "POST", "/links", body).json(t)["id"].(string)
		}
		// Created oldest first: l1 … l6.
		mk("l1", `,"tagIds":["`+f.tagRed+`"],"tenantId":"t1"`)
		mk("l2", `,"tagIds":["`+f.tagBlue+`"]`)
		mk("l3", `,"archived":true`)
		mk("l4", `,"folderId":"`+f.folder+`","tagIds":["`+f.tagRed+`"]`)
		mk("l5", `,"url":"https://special.example.org/x"`)
		e.ok(200, "acme", "POST", "/links", `{"url":"https://dest.example.com/l6","domain":"localhost:8080","key":"acme-l6"}`)
		e.ok(200, "other", "POST", "/links", `{"url":"https://dest.example.com/theirs","domain":"other.link","key":"l1"}`)
		// Counters the click pipeline would set, to sort by.
		db.Model(&models.Link{}).Where("id = ?", ids["l2"]).Updates(map[string]any{"clicks": 9, "sale_amount": 100})
		db.Model(&models.Link{}).Where("id = ?", ids["l5"]).Updates(map[string]any{"clicks": 3, "sale_amount": 500})
		db.Model(&models.Link{}).Where("id = ?", ids["l1"]).Update("last_clicked", time.Now().UTC())

		tests := []struct {
			name, query string
			want        string // keys in order
			status      int
			code, msg   string
		}{
			// The root link (_root) of acme.link counts as a link in no folder.
			{name: "default: newest first, no archived, no foldered", query: "", want: "acme-l6,l5,l2,l1,_root"},
			{name: "SDK defaults", query: "?pageSize=100&showArchived=false&withTags=false", want: "acme-l6,l5,l2,l1,_root"},
			{name: "showArchived", query: "?showArchived=true", want: "acme-l6,l5,l3,l2,l1,_root"},
			{name: "withTags", query: "?withTags=true", want: "l2,l1"},
			{name: "folder", query: "?folderId=" + f.folder, want: "l4"},
			{name: "unsorted", query: "?folderId=unsorted", want: "acme-l6,l5,l2,l1,_root"},
			{name: "tag filter widens to folders", query: "?tagIds=" + f.tagRed, want: "l4,l1"},
			{name: "tagId and tagIds combined", query: "?tagId=" + f.tagBlue + "&tagIds=" + f.tagRed, want: "l4,l2,l1"},
			{name: "comma list", query: "?tagIds=" + f.tagBlue + "%2C" + f.tagRed, want: "l4,l2,l1"},
			{name: "tagNames case-insensitive", query: "?tagNames=BLUE", want: "l2"},
			{name: "domain", query: "?domain=localhost:8080", want: "acme-l6"},
			{name: "search url", query: "?search=SPECIAL.example", want: "l5"},
			{name: "search shortLink", query: "?search=acme.link/l4", want: "l4"},
			{name: "search escapes wildcards", query: "?search=%25", want: ""},
			{name: "tenant", query: "?tenantId=t1", want: "l1"},
			{name: "sort clicks", query: "?sortBy=clicks&pageSize=2", want: "l2,l5"},
			{name: "sort saleAmount", query: "?sortBy=saleAmount&pageSize=2", want: "l5,l2"},
			{name: "sort lastClicked, never-clicked last", query: "?sortBy=lastClicked&pageSize=2", want: "l1,acme-l6"},
			{name: "sortOrder ignored", query: "?sortOrder=asc&pageSize=2", want: "acme-l6,l5"},
			{name: "page 2", query: "?pageSize=2&page=2", want: "l2,l1"},
			{name: "page past the end", query: "?pageSize=2&page=9", want: ""},
			{name: "repeated key keeps last", query: "?folderId=nope&folderId=" + f.folder, want: "l4"},
			{name: "startingAfter", query: "?startingAfter=" + ids["l5"] + "&pageSize=2", want: "l2,l1"},
			{name: "endingBefore", query: "?endingBefore=" + ids["l1"] + "&pageSize=2", want: "l5,l2"},

			{name: "pageSize too big", query: "?pageSize=101", status: 422, code: "unprocessable_entity", msg: "too_big: pageSize: Max page size is 100."},
			{name: "page zero", query: "?page=0", status: 422, code: "unprocessable_entity", msg: "too_small: page: Page must be greater than 0."},
			{name: "page not a number", query: "?page=abc", status: 422, code: "unprocessable_entity", msg: "invalid_type: page: Page must be a number."},
			{name: "page too deep", query: "?page=1001", status: 422, code: "unprocessable_entity", msg: "Page is too big (cannot be more than 1000), recommend using cursor-based pagination instead."},
			{name: "bad boolean", query: "?showArchived=yes", status: 422, code: "unprocessable_entity", msg: `invalid_value: showArchived: Invalid option: expected one of "true"|"false"`},
			{name: "bad sortBy", query: "?sortBy=key", status: 422, code: "unprocessable_entity", msg: `invalid_value: sortBy: Invalid option: expected one of "createdAt"|"clicks"|"saleAmount"|"lastClicked"`},
			{name: "both cursors", query: "?startingAfter=a&endingBefore=b", status: 422, code: "unprocessable_entity", msg: "You cannot use both startingAfter and endingBefore at the same time."},
			{name: "cursor with sort", query: "?startingAfter=a&sortBy=clicks", status: 422, code: "unprocessable_entity", msg: "Cursor-based pagination only supports sorting by `createdAt`. Use offset-based pagination (page/pageSize) for other sort fields."},
			{name: "cursor with page", query: "?startingAfter=a&page=2", status: 422, code: "unprocessable_entity", msg: "You cannot use both page and startingAfter/endingBefore at the same time. Please use one pagination method."},
			{name: "unknown cursor", query: "?startingAfter=link_nope", status: 422, code: "unprocessable_entity", msg: "Invalid cursor: the provided ID does not exist."},
			{name: "other workspace's cursor", query: "?startingAfter=" + "OTHER", status: 422, code: "unprocessable_entity", msg: "Invalid cursor: the provided ID does not exist."},
			{name: "unknown domain", query: "?domain=nope.link", status: 404, code: "not_found", msg: "Domain nope.link not found."},
			{name: "other workspace's domain", query: "?domain=other.link", status: 403, code: "forbidden", msg: "Domain other.link does not belong to workspace ws_" + e.ws["acme"].ID + "."},
			{name: "other workspace's folder", query: "?folderId=" + f.otherFolder, status: 404, code: "not_found", msg: "Folder does not belong to the workspace."},
		}
		otherID := e.ok(200, "other", "GET", "/links?domain=other.link", "").list(t)[0]["id"].(string)
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				r := e.do("acme", "GET", "/links"+strings.ReplaceAll(tc.query, "OTHER", otherID), "")
				if tc.code != "" {
					e.expectErr(r, tc.status, tc.code, tc.msg)
					return
				}
				if r.status != 200 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				if got := keysOf(t, r); got != tc.want {
					t.Fatalf("keys %q, want %q", got, tc.want)
				}
			})
		}
		// The other workspace sees only its own.
		if got := keysOf(t, e.ok(200, "other", "GET", "/links?showArchived=true", "")); got != "l1,_root" {
			t.Fatalf("other workspace list: %q", got)
		}
	})
}

func TestCountLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		for i, extra := range []string{
			`,"tagIds":["` + f.tagRed + `","` + f.tagBlue + `"]`,
			`,"tagIds":["` + f.tagRed + `"]`,
			`,"folderId":"` + f.folder + `"`,
			`,"archived":true`,
			`,"domain":"localhost:8080"`,
		} {
			e.ok(200, "acme", "POST", "/links", fmt.Sprintf(`{"url":"https://e.com/%d"%s}`, i, extra))
		}
		e.ok(200, "other", "POST", "/links", `{"url":"https://e.com/x"}`)
		userID := e.ok(200, "acme", "GET", "/links?pageSize=1", "").list(t)[0]["userId"].(string)
		tests := []struct {
			name, query, want string
			status            int
			code, msg         string
		}{
			// acme: root + 0,1 (acme.link), 2 in folder, 3 archived, 4 on the default domain.
			// The plain count counts folders as groupBy does (issue 13 item 10):
			// the groups of groupBy=domain add up to it.
			{name: "plain: every folder, no archived", query: "", want: "5"},
			{name: "SDK defaults", query: "?showArchived=false&withTags=false", want: "5"},
			{name: "archived included", query: "?showArchived=true", want: "6"},
			{name: "unsorted", query: "?folderId=unsorted", want: "4"},
			{name: "tag", query: "?tagIds=" + f.tagBlue, want: "1"},
			{name: "folder", query: "?folderId=" + f.folder, want: "1"},
			{name: "by domain", query: "?groupBy=domain", want: `[{"_count":4,"domain":"acme.link"},{"_count":1,"domain":"localhost:8080"}]`},
			{name: "by domain ignores domain filter", query: "?groupBy=domain&domain=acme.link", want: `[{"_count":4,"domain":"acme.link"},{"_count":1,"domain":"localhost:8080"}]`},
			{name: "by tag", query: "?groupBy=tagId", want: `[{"_count":2,"tagId":"` + f.tagRed + `"},{"_count":1,"tagId":"` + f.tagBlue + `"}]`},
			{name: "by user", query: "?groupBy=userId", want: `[{"_count":4,"userId":"` + userID + `"},{"_count":1,"userId":null}]`},
			{name: "by folder", query: "?groupBy=folderId", want: `[{"_count":4,"folderId":null},{"_count":1,"folderId":"` + f.folder + `"}]`},
			{name: "bad groupBy", query: "?groupBy=x", status: 422, code: "unprocessable_entity", msg: "invalid_union: groupBy: Invalid input"},
			{name: "bad bool", query: "?withTags=1", status: 422, code: "unprocessable_entity", msg: `invalid_value: withTags: Invalid option: expected one of "true"|"false"`},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				r := e.do("acme", "GET", "/links/count"+tc.query, "")
				if tc.code != "" {
					e.expectErr(r, tc.status, tc.code, tc.msg)
					return
				}
				if r.status != 200 || string(r.body) != tc.want {
					t.Fatalf("%d %s, want %s", r.status, r.body, tc.want)
				}
			})
		}
	})
}
