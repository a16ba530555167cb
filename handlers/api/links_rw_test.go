package api_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestGetLinkInfo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		mine := e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","domain":"acme.link","key":"Promo","externalId":"ord 1/x","tagIds":["`+f.tagRed+`"]}`).json(t)
		theirs := e.ok(200, "other", "POST", "/links", `{"url":"https://e.com","domain":"other.link","key":"secret","externalId":"o-1"}`).json(t)
		id := mine["id"].(string)
		notMine := "Link does not belong to workspace ws_" + e.ws["acme"].ID + "."
		tests := []struct {
			name, path string
			status     int
			code, msg  string
			wantID     string
			wantKey    string
		}{
			{name: "domain and key", path: "/links/info?domain=acme.link&key=Promo", status: 200, wantID: id},
			{name: "key case-insensitive", path: "/links/info?domain=acme.link&key=pROMO", status: 200, wantID: id},
			{name: "linkId", path: "/links/info?linkId=" + id, status: 200, wantID: id},
			{name: "linkId with ext_", path: "/links/info?linkId=" + url.QueryEscape("ext_ord 1/x"), status: 200, wantID: id},
			{name: "externalId prefixed", path: "/links/info?externalId=" + url.QueryEscape("ext_ord 1/x"), status: 200, wantID: id},
			{name: "externalId unprefixed found", path: "/links/info?externalId=" + url.QueryEscape("ORD 1/x"), status: 200, wantID: id},
			{name: "linkId wins over domain", path: "/links/info?linkId=" + id + "&domain=other.link&key=secret", status: 200, wantID: id},
			{name: "domain only: root link", path: "/links/info?domain=acme.link", status: 200, wantKey: "_root"},
			{name: "nothing given", path: "/links/info", status: 400, code: "bad_request", msg: "You must provide a domain and a key or a linkId or an externalId to retrieve a link."},
			{name: "key only", path: "/links/info?key=Promo", status: 404, code: "not_found", msg: "Link not found."},
			{name: "unknown key", path: "/links/info?domain=acme.link&key=nope", status: 404, code: "not_found", msg: "Link not found."},
			{name: "unknown externalId without prefix", path: "/links/info?externalId=nope", status: 400, code: "bad_request", msg: "Invalid externalId. Did you forget to prefix it with `ext_`?"},
			{name: "unknown externalId with prefix", path: "/links/info?externalId=ext_nope", status: 404, code: "not_found", msg: "Link not found."},
			{name: "bad domain", path: "/links/info?domain=not_a_domain&key=x", status: 422, code: "unprocessable_entity", msg: "custom: domain: Invalid domain format"},
			{name: "other workspace by domain+key", path: "/links/info?domain=other.link&key=secret", status: 401, code: "unauthorized", msg: notMine},
			{name: "other workspace by linkId", path: "/links/info?linkId=" + theirs["id"].(string), status: 401, code: "unauthorized", msg: notMine},
			{name: "other workspace's externalId is not found", path: "/links/info?externalId=ext_o-1", status: 404, code: "not_found", msg: "Link not found."},
			{name: "GET by id", path: "/links/" + id, status: 200, wantID: id},
			{name: "GET by encoded ext id", path: "/links/ext_ord%201%2Fx", status: 200, wantID: id},
			{name: "GET other workspace's link", path: "/links/" + theirs["id"].(string), status: 401, code: "unauthorized", msg: notMine},
			{name: "GET unknown", path: "/links/link_nope", status: 404, code: "not_found", msg: "Link not found."},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				r := e.do("acme", "GET", tc.path, "")
				if tc.code != "" {
					e.expectErr(r, tc.status, tc.code, tc.msg)
					return
				}
				if r.status != tc.status {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				l := r.json(t)
				if tc.wantID != "" && l["id"] != tc.wantID {
					t.Fatalf("id %v, want %s", l["id"], tc.wantID)
				}
				if tc.wantKey != "" && l["key"] != tc.wantKey {
					t.Fatalf("key %v, want %s", l["key"], tc.wantKey)
				}
				if tc.wantID == id && len(l["tags"].([]any)) != 1 {
					t.Fatalf("tags not loaded: %v", l["tags"])
				}
			})
		}
		r := e.do("acme", "GET", "/links/info", "")
		if !strings.Contains(string(r.body), `"doc_url":"https://dub.co/docs/api-reference/endpoint/retrieve-a-link"`) {
			t.Fatalf("doc_url: %s", r.body)
		}
	})
}

// updateStep is one request of a TestUpdateLink case and what it answers.
type updateStep struct {
	method, body string
	status       int
	code, msg    string
	want         map[string]any // field → JSON-ish value
}

// runUpdateSteps sends each step to /links/ref as workspace acme and checks
// the answer: the error, or the fields and the keys every update response has.
func runUpdateSteps(t *testing.T, e *linkEnv, ref string, steps []updateStep) {
	t.Helper()
	for i, s := range steps {
		r := e.do("acme", s.method, "/links/"+ref, s.body)
		if s.code != "" {
			e.expectErr(r, s.status, s.code, s.msg)
			continue
		}
		if r.status != s.status {
			t.Fatalf("step %d: status %d: %s", i, r.status, r.body)
		}
		l := r.json(t)
		for k, want := range s.want {
			if !jsonEqual(l[k], want) {
				t.Errorf("step %d: %s = %v, want %v", i, k, l[k], want)
			}
		}
		for _, k := range []string{"qrCode", "workspaceId", "webhookIds", "tags", "shortLink"} {
			if _, ok := l[k]; !ok {
				t.Errorf("step %d: %s missing from update response", i, k)
			}
		}
	}
}

func TestUpdateLink(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		create := func(body string) string {
			return e.ok(200, "acme", "POST", "/links", body).json(t)["id"].(string)
		}
		e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","domain":"acme.link","key":"busy"}`)
		e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","externalId":"busy-ext"}`)
		theirs := e.ok(200, "other", "POST", "/links", `{"url":"https://e.com","domain":"other.link","key":"secret"}`).json(t)["id"].(string)
		root := e.ok(200, "acme", "GET", "/links/info?domain=acme.link", "").json(t)["id"].(string)

		type step = updateStep
		tests := []struct {
			name  string
			setup string // create body
			ref   func(id string) string
			steps []step
		}{
			{name: "UTM rules from upstream tests", setup: `{"url":"https://github.com/dubinc","domain":"acme.link"}`, steps: []step{
				{method: "PATCH", body: `{"url":"https://example.com","utm_source":"test_source","utm_medium":"email"}`, status: 200,
					want: map[string]any{"url": "https://example.com/?utm_source=test_source&utm_medium=email", "utm_source": "test_source", "utm_medium": "email"}},
				{method: "PATCH", body: `{"utm_source":"new_source","utm_campaign":"spring_sale"}`, status: 200,
					want: map[string]any{"url": "https://example.com/?utm_source=new_source&utm_medium=email&utm_campaign=spring_sale", "utm_campaign": "spring_sale"}},
				{method: "PATCH", body: `{"url":"https://newdomain.com/path"}`, status: 200,
					want: map[string]any{"url": "https://newdomain.com/path?utm_source=new_source&utm_medium=email&utm_campaign=spring_sale"}},
				{method: "PATCH", body: `{"utm_campaign":""}`, status: 200,
					want: map[string]any{"url": "https://newdomain.com/path?utm_source=new_source&utm_medium=email", "utm_campaign": nil}},
			}},
			{name: "fields change, absent fields kept, null clears", setup: `{"url":"https://e.com","title":"T","comments":"c","tagIds":["` + f.tagRed + `"]}`, steps: []step{
				{method: "PATCH", body: `{"key":"renamed","comments":null,"archived":true}`, status: 200,
					want: map[string]any{"key": "renamed", "title": "T", "comments": nil, "archived": true, "tagId": f.tagRed}},
				{method: "PUT", body: `{"tagIds":[]}`, status: 200, want: map[string]any{"tagId": nil, "tags": []any{}}},
				{method: "PATCH", body: `{"tagNames":["blue","red"]}`, status: 200, want: map[string]any{"tagId": f.tagBlue}},
				{method: "PATCH", body: `{"folderId":"` + f.folder + `"}`, status: 200, want: map[string]any{"folderId": f.folder}},
				{method: "PATCH", body: `{"folderId":""}`, status: 200, want: map[string]any{"folderId": nil}},
				{method: "PATCH", body: `{}`, status: 200, want: map[string]any{"key": "renamed", "webhookIds": []any{}}},
			}},
			{name: "key change to own key in another case is fine", setup: `{"url":"https://e.com","domain":"acme.link","key":"casey"}`, steps: []step{
				{method: "PATCH", body: `{"key":"CASEY"}`, status: 200, want: map[string]any{"key": "CASEY"}},
			}},
			{name: "conflicts and validation", setup: `{"url":"https://e.com","domain":"acme.link","externalId":"mine"}`, steps: []step{
				{method: "PATCH", body: `{"key":"BUSY"}`, status: 409, code: "conflict", msg: "Duplicate key: This short link already exists."},
				{method: "PATCH", body: `{"externalId":"busy-ext"}`, status: 409, code: "conflict", msg: "A link with this externalId already exists in this workspace."},
				{method: "PATCH", body: `{"externalId":"MINE"}`, status: 200, want: map[string]any{"externalId": "MINE"}},
				{method: "PATCH", body: `{"url":"nope"}`, status: 422, code: "unprocessable_entity", msg: "Invalid destination URL"},
				{method: "PATCH", body: `{"url":7}`, status: 422, code: "unprocessable_entity", msg: "invalid_type: url: Invalid input: expected string, received number"},
				{method: "PATCH", body: `{"domain":"other.link"}`, status: 403, code: "forbidden", msg: "Domain does not belong to workspace."},
				{method: "PATCH", body: `{"tagIds":["` + f.otherTag + `"]}`, status: 422, code: "unprocessable_entity", msg: "Invalid tagIds detected: " + f.otherTag},
				{method: "PATCH", body: `{"folderId":"` + f.otherFolder + `"}`, status: 404, code: "not_found", msg: "Folder does not belong to the workspace."},
				{method: "PATCH", body: `{"keyLength":3}`, status: 200},
			}},
			{name: "moves to the default domain", setup: `{"url":"https://e.com","domain":"acme.link","key":"mover"}`, steps: []step{
				{method: "PATCH", body: `{"domain":"localhost:8080"}`, status: 200, want: map[string]any{"domain": "localhost:8080", "shortLink": "http://localhost:8080/mover"}},
			}},
			{name: "root link keeps domain and key", ref: func(string) string { return root }, steps: []step{
				{method: "PATCH", body: `{"key":"x","domain":"localhost:8080","url":"https://root.example.com"}`, status: 200,
					want: map[string]any{"key": "_root", "domain": "acme.link", "url": "https://root.example.com"}},
			}},
			{name: "other workspace's link", ref: func(string) string { return theirs }, steps: []step{
				{method: "PATCH", body: `{"url":"https://evil.com"}`, status: 401, code: "unauthorized", msg: "Link does not belong to workspace ws_" + e.ws["acme"].ID + "."},
				{method: "PUT", body: `{"url":"https://evil.com"}`, status: 401, code: "unauthorized", msg: "Link does not belong to workspace ws_" + e.ws["acme"].ID + "."},
			}},
			{name: "unknown link", ref: func(string) string { return "link_nope" }, steps: []step{
				{method: "PATCH", body: `{}`, status: 404, code: "not_found", msg: "Link not found."},
				{method: "PATCH", body: `{"url":`, status: 400, code: "bad_request", msg: "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
			}},
			{name: "by externalId", setup: `{"url":"https://e.com","externalId":"by-ext"}`, ref: func(string) string { return "ext_by-ext" }, steps: []step{
				{method: "PATCH", body: `{"title":"via ext"}`, status: 200, want: map[string]any{"title": "via ext"}},
			}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				id := ""
				if tc.setup != "" {
					id = create(tc.setup)
				}
				ref := id
				if tc.ref != nil {
					ref = tc.ref(id)
				}
				runUpdateSteps(t, e, ref, tc.steps)
			})
		}
		// The other workspace's link is untouched.
		l := e.ok(200, "other", "GET", "/links/"+theirs, "").json(t)
		if l["url"] != "https://e.com" {
			t.Fatalf("other workspace's link changed: %v", l["url"])
		}
		// A link moved to another domain: the redirect's link cache drops
		// both the old (domain, key) and a miss held for the new one.
		id := create(`{"url":"https://e.com/moved","domain":"acme.link","key":"mover2"}`)
		if got := [2]string{e.cached("acme.link", "mover2"), e.cached("localhost:8080", "mover2")}; got != [2]string{"https://e.com/moved", "none"} {
			t.Fatalf("link cache before the move %q", got)
		}
		e.ok(200, "acme", "PATCH", "/links/"+id, `{"domain":"localhost:8080"}`)
		if got := [2]string{e.cached("acme.link", "mover2"), e.cached("localhost:8080", "mover2")}; got != [2]string{"none", "https://e.com/moved"} {
			t.Fatalf("link cache after the move %q (stale entries were not dropped)", got)
		}
	})
}

func jsonEqual(a, b any) bool {
	return jsonString(a) == jsonString(b)
}

func TestUpsertAndDeleteLink(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		first := e.ok(200, "acme", "PUT", "/links/upsert", `{"url":"https://upsert.example.com/a","title":"one"}`).json(t)
		again := e.ok(200, "acme", "PUT", "/links/upsert", `{"url":"upsert.example.com/a","title":"two"}`).json(t)
		if first["url"] != "https://upsert.example.com/a" {
			t.Fatalf("first url %v", first["url"])
		}
		// "upsert.example.com/a" URLifies to ".../a" which matches: same link updated.
		if again["id"] != first["id"] || again["title"] != "two" {
			t.Fatalf("upsert did not update: %v %v", again["id"], again["title"])
		}
		other := e.ok(200, "acme", "PUT", "/links/upsert", `{"url":"https://upsert.example.com/b"}`).json(t)
		if other["id"] == first["id"] {
			t.Fatal("upsert with a new url updated the old link")
		}
		// Another workspace with the same url gets its own link.
		theirs := e.ok(200, "other", "PUT", "/links/upsert", `{"url":"https://upsert.example.com/a"}`).json(t)
		if theirs["id"] == first["id"] || theirs["workspaceId"] != "ws_"+e.ws["other"].ID {
			t.Fatalf("upsert crossed workspaces: %v", theirs)
		}
		e.expectErr(e.do("acme", "PUT", "/links/upsert", `{}`), 422, "unprocessable_entity", "invalid_type: url: Invalid input: expected string, received undefined")

		id := first["id"].(string)
		root := e.ok(200, "acme", "GET", "/links/info?domain=acme.link", "").json(t)["id"].(string)
		notMine := "Link does not belong to workspace ws_" + e.ws["acme"].ID + "."
		tests := []struct {
			name, ref string
			status    int
			code, msg string
		}{
			{"other workspace's link", theirs["id"].(string), 401, "unauthorized", notMine},
			{"root link", root, 403, "forbidden", "You can't delete a custom domain link. You can delete the domain instead."},
			{"unknown", "link_nope", 404, "not_found", "Link not found."},
			{"delete", id, 200, "", ""},
			{"deleted is gone", id, 404, "not_found", "Link not found."},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				r := e.do("acme", "DELETE", "/links/"+tc.ref, "")
				if tc.code != "" {
					e.expectErr(r, tc.status, tc.code, tc.msg)
					return
				}
				if r.status != 200 || string(r.body) != `{"id":"`+tc.ref+`"}` {
					t.Fatalf("%d %s", r.status, r.body)
				}
			})
		}
		e.ok(404, "acme", "GET", "/links/"+id, "")
		e.ok(200, "other", "GET", "/links/"+theirs["id"].(string), "")
		e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","externalId":"gone"}`)
		e.ok(200, "acme", "DELETE", "/links/ext_gone", "")
		e.ok(404, "acme", "GET", "/links/ext_gone", "")
	})
}
