package api_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// checkDomainCreateErrors: each refused POST /domains answers its error.
func checkDomainCreateErrors(t *testing.T, e *linkEnv) {
	create := []struct {
		name, key, body string
		status          int
		code, msg       string
	}{
		{"invalid", "acme", `{"slug":"not a domain"}`, 422, "unprocessable_entity", "Invalid domain"},
		{"default short domain host", "acme", `{"slug":"localhost"}`, 422, "unprocessable_entity", "Invalid domain"},
		{"www", "acme", `{"slug":"www.acme.net"}`, 422, "unprocessable_entity", "Custom domain cannot start with www."},
		{"taken here", "acme", `{"slug":"ACME.link"}`, 409, "conflict", "Domain is already in use."},
		{"taken by another workspace", "acme", `{"slug":"other.link"}`, 409, "conflict", "Domain is already in use."},
		{"missing slug", "acme", `{}`, 422, "unprocessable_entity", "invalid_type: slug: slug is required"},
		{"bad asset links", "acme", `{"slug":"x.acme.net","assetLinks":"{"}`, 422, "unprocessable_entity", "Invalid Asset Links"},
		{"bad AASA", "acme", `{"slug":"x.acme.net","appleAppSiteAssociation":"nope"}`, 422, "unprocessable_entity", "Invalid Apple App Site Association"},
		{"free plan extras", "freebie", `{"slug":"free.link","notFoundUrl":"https://x.com"}`, 403, "forbidden",
			"You can only set not found URLs on a Pro plan and above. Upgrade to Pro to use these features."},
		{"free plan extras, listed in upstream's order", "freebie", `{"slug":"free.link","deepviewData":"{\"variant\":\"minimal\"}","logo":"https://x.com/l.png","assetLinks":"[]","expiredUrl":"https://x.com"}`, 403, "forbidden",
			"You can only set custom QR code logos, default expiration URLs, Asset Links and Deep View on a Pro plan and above. Upgrade to Pro to use these features."},
		{"bad deep view data", "acme", `{"slug":"x.acme.net","deepviewData":"{nope"}`, 422, "unprocessable_entity", "Invalid Deep View data"},
		{"malformed", "acme", `{"slug":`, 400, "bad_request", "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
	}
	for _, tc := range create {
		t.Run("create/"+tc.name, func(t *testing.T) {
			e.sub(t).expectErr(e.do(tc.key, "POST", "/domains", tc.body), tc.status, tc.code, tc.msg)
		})
	}
}

func TestDomains(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanPro)
		e.workspace("freebie", models.PlanFree)
		e.workspace("other", models.PlanPro)

		d := e.ok(201, "acme", "POST", "/domains", `{"slug":"Acme.Link","placeholder":"acme.com","expiredUrl":"https://acme.com/expired","notFoundUrl":"","archived":false}`).json(t)
		wantKeys := []string{"appleAppSiteAssociation", "archived", "assetLinks", "createdAt", "deepviewData", "expiredUrl", "id", "logo", "notFoundUrl", "placeholder", "primary", "registeredDomain", "slug", "updatedAt", "verified"}
		var got []string
		for k := range d {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, wantKeys) {
			t.Fatalf("domain keys %v, want %v", got, wantKeys)
		}
		if d["slug"] != "acme.link" || d["primary"] != true || d["placeholder"] != "https://acme.com/" || d["notFoundUrl"] != nil ||
			d["registeredDomain"] != nil || !strings.HasPrefix(d["id"].(string), "dom_") {
			t.Fatalf("created domain %v", d)
		}
		second := e.ok(201, "acme", "POST", "/domains", `{"slug":"go.acme.io"}`).json(t)
		if second["primary"] != false {
			t.Fatal("second domain became primary")
		}
		// Creating a domain made its root link.
		if l := e.ok(200, "acme", "GET", "/links/info?domain=acme.link", "").json(t); l["key"] != "_root" || l["url"] != "" || l["shortLink"] != "https://acme.link" {
			t.Fatalf("root link %v", l)
		}
		e.ok(201, "other", "POST", "/domains", `{"slug":"other.link"}`)
		e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","domain":"go.acme.io","key":"k1"}`)

		checkDomainCreateErrors(t, e)
		e.ok(201, "freebie", "POST", "/domains", `{"slug":"free.link"}`)

		slugs := func(r linkResp) string {
			var s []string
			for _, d := range r.list(t) {
				s = append(s, d["slug"].(string))
			}
			return strings.Join(s, ",")
		}
		list := []struct{ query, want string }{
			{"", "acme.link,go.acme.io"},
			{"?archived=false&pageSize=50", "acme.link,go.acme.io"},
			{"?search=go.", "go.acme.io"},
			{"?pageSize=1&page=2", "go.acme.io"},
			{"?archived=true", ""},
		}
		for _, tc := range list {
			t.Run("list"+tc.query, func(t *testing.T) {
				if got := slugs(e.sub(t).ok(200, "acme", "GET", "/domains"+tc.query, "")); got != tc.want {
					t.Fatalf("%q, want %q", got, tc.want)
				}
			})
		}
		e.expectErr(e.do("acme", "GET", "/domains?pageSize=51", ""), 422, "unprocessable_entity", "too_big: pageSize: Max page size is 50.")

		// Archive, then a PATCH without archived unarchives (upstream default).
		if d := e.ok(200, "acme", "PATCH", "/domains/go.acme.io", `{"archived":true,"notFoundUrl":"https://acme.com/404"}`).json(t); d["archived"] != true || d["notFoundUrl"] != "https://acme.com/404" {
			t.Fatalf("patched %v", d)
		}
		if got := slugs(e.ok(200, "acme", "GET", "/domains?archived=true", "")); got != "go.acme.io" {
			t.Fatalf("archived list %q", got)
		}
		if d := e.ok(200, "acme", "PATCH", "/domains/go.acme.io", `{"placeholder":null}`).json(t); d["archived"] != false || d["notFoundUrl"] != "https://acme.com/404" {
			t.Fatalf("patched %v", d)
		}
		renameDomain(t, e)

		ws := "ws_" + e.ws["acme"].ID
		errs := []struct {
			name, method, path, body string
			status                   int
			code, msg                string
		}{
			{"update unknown", "PATCH", "/domains/nope.link", `{}`, 404, "not_found", "Domain nope.link not found."},
			{"update other workspace's", "PATCH", "/domains/other.link", `{"notFoundUrl":"https://evil.com"}`, 403, "forbidden", "Domain other.link does not belong to workspace " + ws + "."},
			{"update default domain", "PATCH", "/domains/localhost:8080", `{}`, 403, "forbidden", "Domain localhost:8080 does not belong to workspace " + ws + "."},
			{"rename to taken", "PATCH", "/domains/go2.acme.io", `{"slug":"other.link"}`, 409, "conflict", "Domain is already in use."},
			{"rename invalid", "PATCH", "/domains/go2.acme.io", `{"slug":"bad_slug"}`, 422, "unprocessable_entity", "Invalid domain"},
			{"delete other workspace's", "DELETE", "/domains/other.link", "", 403, "forbidden", "Domain other.link does not belong to workspace " + ws + "."},
			{"get other workspace's", "GET", "/domains/other.link", "", 403, "forbidden", "Domain other.link does not belong to workspace " + ws + "."},
			{"delete unknown", "DELETE", "/domains/nope.link", "", 404, "not_found", "Domain nope.link not found."},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", tc.method, tc.path, tc.body), tc.status, tc.code, tc.msg)
			})
		}
		if d := e.ok(200, "other", "GET", "/domains/other.link", "").json(t); d["notFoundUrl"] != nil {
			t.Fatal("another workspace changed other.link")
		}
		if r := e.ok(200, "acme", "GET", "/domains/default", ""); string(r.body) != `["localhost:8080"]` {
			t.Fatalf("default domains %s", r.body)
		}

		// Delete the primary: its links go, the next domain becomes primary.
		e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","domain":"acme.link","key":"bye"}`)
		if r := e.ok(200, "acme", "DELETE", "/domains/acme.link", ""); string(r.body) != `{"slug":"acme.link"}` {
			t.Fatalf("delete %s", r.body)
		}
		e.ok(404, "acme", "GET", "/links/info?domain=acme.link&key=bye", "")
		if ds := e.ok(200, "acme", "GET", "/domains", "").list(t); len(ds) != 1 || ds[0]["primary"] != true {
			t.Fatalf("after delete %v", ds)
		}
		// The slug is free again.
		e.ok(201, "other", "POST", "/domains", `{"slug":"acme.link"}`)
	})
}

// renameDomain renames go.acme.io to go2.acme.io: the links move, and the
// link cache the redirect reads holds the old names (a link, a miss with the
// domain's notFoundUrl) and a miss under the new one; the rename must reach
// all three.
func renameDomain(t *testing.T, e *linkEnv) {
	t.Helper()
	before := [3]string{e.cached("go.acme.io", "k1"), e.cached("go.acme.io", "nope"), e.cached("go2.acme.io", "k1")}
	if before != [3]string{"https://e.com", "none https://acme.com/404", "none"} {
		t.Fatalf("link cache before the rename %q", before)
	}
	if d := e.ok(200, "acme", "PATCH", "/domains/go.acme.io", `{"slug":"go2.acme.io"}`).json(t); d["slug"] != "go2.acme.io" {
		t.Fatalf("renamed %v", d)
	}
	if l := e.ok(200, "acme", "GET", "/links/info?domain=go2.acme.io&key=k1", "").json(t); l["shortLink"] != "https://go2.acme.io/k1" {
		t.Fatalf("moved link %v", l)
	}
	e.ok(404, "acme", "GET", "/links/info?domain=go.acme.io&key=k1", "")
	after := [3]string{e.cached("go.acme.io", "k1"), e.cached("go.acme.io", "nope"), e.cached("go2.acme.io", "k1")}
	if after != [3]string{"none", "none", "https://e.com"} {
		t.Fatalf("link cache after the rename %q (stale entries were not dropped)", after)
	}
}

func TestTags(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanPro)
		e.workspace("other", models.PlanPro)
		b := e.ok(201, "acme", "POST", "/tags", `{"name":"  Beta ","color":"pink"}`).json(t)
		if b["name"] != "Beta" || b["color"] != "pink" || !strings.HasPrefix(b["id"].(string), "tag_") || len(b) != 3 {
			t.Fatalf("tag %v", b)
		}
		a := e.ok(201, "acme", "POST", "/tags", `{"tag":"alpha"}`).json(t)
		if !slices.Contains([]string{"red", "yellow", "green", "blue", "purple", "brown", "gray"}, a["color"].(string)) {
			t.Fatalf("random color %v", a["color"])
		}
		e.ok(201, "acme", "POST", "/tags", `{"name":"Gamma","color":"green"}`)
		theirs := e.ok(201, "other", "POST", "/tags", `{"name":"beta"}`).json(t)["id"].(string)

		errs := []struct {
			name, method, path, body string
			status                   int
			code, msg                string
		}{
			{"no name", "POST", "/tags", `{"color":"red"}`, 422, "unprocessable_entity", "custom: name: Name is required."},
			{"bad color", "POST", "/tags", `{"name":"x","color":"orange"}`, 422, "unprocessable_entity", "invalid_value: color: Invalid color. Must be one of: red, yellow, green, blue, purple, brown, gray, pink"},
			{"long name", "POST", "/tags", `{"name":"` + strings.Repeat("n", 191) + `"}`, 422, "unprocessable_entity", "too_big: name: Too big: expected string to have <=190 characters"},
			{"duplicate any case", "POST", "/tags", `{"name":"BETA"}`, 409, "conflict", "A tag with that name already exists."},
			{"malformed", "POST", "/tags", `{`, 400, "bad_request", "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
			{"color-only update", "PATCH", "/tags/" + b["id"].(string), `{"color":"red"}`, 422, "unprocessable_entity", "custom: name: Name is required."},
			{"rename to taken", "PATCH", "/tags/" + b["id"].(string), `{"name":"alpha"}`, 409, "conflict", "A tag with that name already exists."},
			{"update unknown", "PATCH", "/tags/tag_nope", `{"name":"x"}`, 404, "not_found", "Tag not found."},
			{"update other workspace's", "PATCH", "/tags/" + theirs, `{"name":"mine now"}`, 404, "not_found", "Tag not found."},
			{"delete other workspace's", "DELETE", "/tags/" + theirs, "", 404, "not_found", "Tag not found."},
			{"list bad sort", "GET", "/tags?sortBy=color", "", 422, "unprocessable_entity", `invalid_value: sortBy: Invalid option: expected one of "name"|"createdAt"`},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", tc.method, tc.path, tc.body), tc.status, tc.code, tc.msg)
			})
		}
		names := func(q string) string {
			var s []string
			for _, tg := range e.ok(200, "acme", "GET", "/tags"+q, "").list(t) {
				s = append(s, tg["name"].(string))
			}
			return strings.Join(s, ",")
		}
		for q, want := range map[string]string{
			"": "alpha,Beta,Gamma",
			"?sortBy=name&sortOrder=asc&pageSize=100": "alpha,Beta,Gamma",
			"?sortBy=createdAt&sortOrder=desc":        "Gamma,alpha,Beta",
			"?search=AM":                              "Gamma",
			"?ids=" + a["id"].(string) + "," + theirs: "alpha",
			"?pageSize=2&page=2":                      "Gamma",
		} {
			if got := names(q); got != want {
				t.Errorf("GET /tags%s = %q, want %q", q, got, want)
			}
		}
		if u := e.ok(200, "acme", "PATCH", "/tags/"+b["id"].(string), `{"name":"Bravo","color":"blue"}`).json(t); u["name"] != "Bravo" || u["color"] != "blue" {
			t.Fatalf("updated %v", u)
		}
		e.ok(200, "acme", "PUT", "/tags/"+b["id"].(string), `{"name":"Bravo2"}`)
		// Deleting a tag takes it off its links.
		l := e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","tagIds":["`+b["id"].(string)+`"]}`).json(t)
		if r := e.ok(200, "acme", "DELETE", "/tags/"+b["id"].(string), ""); string(r.body) != `{"id":"`+b["id"].(string)+`"}` {
			t.Fatalf("delete %s", r.body)
		}
		if got := e.ok(200, "acme", "GET", "/links/"+l["id"].(string), "").json(t); len(got["tags"].([]any)) != 0 || got["tagId"] != nil {
			t.Fatalf("link kept deleted tag: %v", got["tags"])
		}
		if got := e.ok(200, "other", "GET", "/tags", "").list(t); len(got) != 1 || got[0]["name"] != "beta" {
			t.Fatalf("other workspace's tags %v", got)
		}
	})
}

func TestFolders(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanPro)
		e.workspace("biz", models.PlanBusiness)
		e.workspace("freebie", models.PlanFree)
		fo := e.ok(201, "acme", "POST", "/folders", `{"name":"Launch","description":"Q3","accessLevel":"write"}`).json(t)
		want := map[string]any{"name": "Launch", "description": "Q3", "type": "default", "accessLevel": "write"}
		for k, v := range want {
			if fo[k] != v {
				t.Errorf("%s = %v, want %v", k, fo[k], v)
			}
		}
		if len(fo) != 7 || !strings.HasPrefix(fo["id"].(string), "fold_") {
			t.Fatalf("folder %v", fo)
		}
		id := fo["id"].(string)
		e.ok(201, "acme", "POST", "/folders", `{"name":"Archive"}`)
		if ro := e.ok(201, "biz", "POST", "/folders", `{"name":"Read only","accessLevel":"read"}`).json(t); ro["accessLevel"] != "read" {
			t.Fatalf("business access level %v", ro)
		}
		theirs := e.ok(201, "biz", "POST", "/folders", `{"name":"Theirs","accessLevel":null}`).json(t)
		if theirs["accessLevel"] != nil {
			t.Fatalf("null access level %v", theirs)
		}
		errs := []struct {
			name, key, method, path, body string
			status                        int
			code, msg                     string
		}{
			{"free plan create", "freebie", "POST", "/folders", `{"name":"x"}`, 403, "forbidden", "Unauthorized: Need higher plan."},
			{"free plan delete", "freebie", "DELETE", "/folders/" + id, "", 403, "forbidden", "Unauthorized: Need higher plan."},
			{"access level below business", "acme", "POST", "/folders", `{"name":"x","accessLevel":"read"}`, 403, "forbidden", "You can only change the access level of a folder on Business and above plans."},
			{"bad access level", "acme", "POST", "/folders", `{"name":"x","accessLevel":"admin"}`, 422, "unprocessable_entity", `invalid_value: accessLevel: Invalid option: expected one of "write"|"read"`},
			{"no name", "acme", "POST", "/folders", `{}`, 422, "unprocessable_entity", "invalid_type: name: Invalid input: expected string, received undefined"},
			{"long description", "acme", "POST", "/folders", `{"name":"x","description":"` + strings.Repeat("d", 501) + `"}`, 422, "unprocessable_entity", "too_big: description: Too big: expected string to have <=500 characters"},
			{"duplicate", "acme", "POST", "/folders", `{"name":"Launch"}`, 409, "conflict", "A folder with the name Launch already exists."},
			{"rename to taken", "acme", "PATCH", "/folders/" + id, `{"name":"Archive"}`, 409, "conflict", `A folder with the name "Archive" already exists.`},
			{"update unknown", "acme", "PATCH", "/folders/fold_nope", `{"name":"x"}`, 404, "not_found", "Folder not found."},
			{"update other workspace's", "acme", "PATCH", "/folders/" + theirs["id"].(string), `{"name":"x"}`, 404, "not_found", "Folder does not belong to the workspace."},
			{"delete other workspace's", "acme", "DELETE", "/folders/" + theirs["id"].(string), "", 404, "not_found", "Folder does not belong to the workspace."},
			{"get other workspace's", "acme", "GET", "/folders/" + theirs["id"].(string), "", 404, "not_found", "Folder does not belong to the workspace."},
			{"list page size", "acme", "GET", "/folders?pageSize=51", "", 422, "unprocessable_entity", "too_big: pageSize: Max page size is 50."},
		}
		for _, tc := range errs {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do(tc.key, tc.method, tc.path, tc.body), tc.status, tc.code, tc.msg)
			})
		}
		// Free workspaces may still list folders.
		e.ok(200, "freebie", "GET", "/folders", "")
		names := func(q string) string {
			var s []string
			for _, f := range e.ok(200, "acme", "GET", "/folders"+q, "").list(t) {
				s = append(s, f["name"].(string))
			}
			return strings.Join(s, ",")
		}
		if got := names("?pageSize=50"); got != "Launch,Archive" {
			t.Fatalf("list %q", got)
		}
		if got := names("?search=arch"); got != "Archive" {
			t.Fatalf("search %q", got)
		}
		if u := e.ok(200, "acme", "PATCH", "/folders/"+id, `{"name":"Launch 2","description":null}`).json(t); u["name"] != "Launch 2" || u["description"] != nil {
			t.Fatalf("updated %v", u)
		}
		// Deleting a folder moves its links to no folder.
		l := e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","folderId":"`+id+`"}`).json(t)
		if r := e.ok(200, "acme", "DELETE", "/folders/"+id, ""); string(r.body) != `{"id":"`+id+`"}` {
			t.Fatalf("delete %s", r.body)
		}
		if got := e.ok(200, "acme", "GET", "/links/"+l["id"].(string), "").json(t); got["folderId"] != nil {
			t.Fatalf("link still in deleted folder: %v", got["folderId"])
		}
		e.ok(200, "biz", "GET", "/folders/"+theirs["id"].(string), "")
	})
}
