package handlers_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestBulkCreateLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com","domain":"acme.link","key":"taken","externalId":"ext-taken"}`)

		r := e.ok(200, "acme", "POST", "/links/bulk", `[
			{"url":"https://a.com","key":"b1"},
			{"url":"https://b.com","key":"TAKEN"},
			{"url":"b2.com","key":"b2","tagIds":["`+f.tagRed+`"],"tagNames":["blue"]},
			{"url":"https://c.com","tagIds":["nope"]},
			{"url":"https://d.com","folderId":"fold_nope"},
			{"url":"not a url"},
			{"url":"https://e.com","externalId":"ext-taken"},
			{"url":"https://f.com","key":"b3","image":"data:image/png;base64,AAAA"}
		]`)
		items := r.list(t)
		type want struct{ key, errMsg, code string }
		wants := []want{
			{key: "b1"}, {key: "b2"},
			{errMsg: "Duplicate key: This short link already exists.", code: "conflict"},
			{errMsg: "Invalid tagIds detected: nope", code: "unprocessable_entity"},
			{errMsg: "Invalid folderId detected: fold_nope", code: "unprocessable_entity"},
			{errMsg: "Invalid destination URL", code: "unprocessable_entity"},
			{errMsg: "A link with this externalId already exists in this workspace.", code: "conflict"},
			{errMsg: "You cannot upload custom link preview images with bulk link creation.", code: "unprocessable_entity"},
		}
		if len(items) != len(wants) {
			t.Fatalf("%d items, want %d: %s", len(items), len(wants), r.body)
		}
		for i, w := range wants {
			it := items[i]
			if w.key != "" {
				if it["key"] != w.key || it["workspaceId"] != "ws_"+e.ws["acme"].ID {
					t.Errorf("item %d: %v", i, it)
				}
				continue
			}
			if it["error"] != w.errMsg || it["code"] != w.code {
				t.Errorf("item %d: error %v code %v, want %q %s", i, it["error"], it["code"], w.errMsg, w.code)
			}
			if _, ok := it["link"].(map[string]any)["url"]; !ok {
				t.Errorf("item %d: link is not the request item: %v", i, it["link"])
			}
		}
		// Bulk applies tagIds and tagNames together.
		if tags := items[1]["tags"].([]any); len(tags) != 2 || items[1]["url"] != "https://b2.com/" {
			t.Errorf("bulk tags %v url %v", tags, items[1]["url"])
		}

		many := "[" + strings.TrimSuffix(strings.Repeat(`{"url":"https://a.com"},`, 101), ",") + "]"
		tests := []struct {
			name, body string
			status     int
			code, msg  string
		}{
			{"empty", `[]`, 422, "unprocessable_entity", "too_small: : No links created – you must provide at least one link."},
			{"too many", many, 422, "unprocessable_entity", "too_big: : You can only create up to 100 links at a time."},
			{"item schema", `[{"url":"https://a.com"},{"url":1}]`, 422, "unprocessable_entity", "invalid_type: [1].url: Invalid input: expected string, received number"},
			{"duplicate keys", `[{"url":"https://a.com","key":"dup"},{"url":"https://b.com","key":"DUP"},{"url":"https://c.com","key":"x","domain":"localhost:8080"},{"url":"https://c.com","key":"x","domain":"localhost:8080"}]`,
				400, "bad_request", "Duplicate links found: acme.link/DUP, localhost:8080/x"},
			{"not JSON", `[`, 400, "bad_request", "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", "POST", "/links/bulk", tc.body), tc.status, tc.code, tc.msg)
			})
		}
		// Nothing of the rejected requests was stored.
		if n := e.ok(200, "acme", "GET", "/links/count?showArchived=true", "").body; string(n) != "4" {
			t.Fatalf("count %s, want 4 (root, taken, b1, b2)", n)
		}
	})
}

func TestBulkUpdateLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		var ids []string
		for i := range 3 {
			ids = append(ids, e.ok(200, "acme", "POST", "/links", fmt.Sprintf(`{"url":"https://e.com/%d","externalId":"x%d"}`, i, i)).json(t)["id"].(string))
		}
		theirs := e.ok(200, "other", "POST", "/links", `{"url":"https://e.com/t"}`).json(t)["id"].(string)

		r := e.ok(200, "acme", "PATCH", "/links/bulk", `{"linkIds":["`+ids[0]+`","`+ids[1]+`","link_nope","`+theirs+`"],"data":{"archived":true,"tagIds":["`+f.tagRed+`"],"utm_source":"bulk"}}`)
		items := r.list(t)
		if len(items) != 4 {
			t.Fatalf("%d items: %s", len(items), r.body)
		}
		for _, it := range items[:2] {
			if it["archived"] != true || it["tagId"] != f.tagRed || it["utm_source"] != "bulk" || !strings.Contains(it["url"].(string), "utm_source=bulk") {
				t.Errorf("updated link %v", it)
			}
		}
		for i, missing := range []string{"link_nope", theirs} {
			it := items[2+i]
			if it["error"] != "Link not found" || it["code"] != "not_found" || it["link"].(map[string]any)["id"] != missing {
				t.Errorf("not-found entry %v", it)
			}
		}
		if l := e.ok(200, "other", "GET", "/links/"+theirs, "").json(t); l["archived"] != false {
			t.Fatal("bulk update changed another workspace's link")
		}
		// externalIds are used when linkIds is empty.
		r = e.ok(200, "acme", "PATCH", "/links/bulk", `{"externalIds":["x2"],"data":{"title":"by ext"}}`)
		if items := r.list(t); len(items) != 1 || items[0]["id"] != ids[2] || items[0]["title"] != "by ext" {
			t.Fatalf("by externalIds: %s", r.body)
		}
		// Nothing to update is an empty array, not upstream's string.
		if r := e.ok(200, "acme", "PATCH", "/links/bulk", `{"linkIds":[],"data":{}}`); string(r.body) != "[]" {
			t.Fatalf("empty: %s", r.body)
		}
		tests := []struct {
			name, body string
			status     int
			code, msg  string
		}{
			{"bad tag", `{"linkIds":["` + ids[0] + `"],"data":{"tagIds":["nope"]}}`, 422, "unprocessable_entity", "Invalid tagIds detected: nope"},
			{"bad folder", `{"linkIds":["` + ids[0] + `"],"data":{"folderId":"` + f.otherFolder + `"}}`, 404, "not_found", "Folder does not belong to the workspace."},
			{"bad url", `{"linkIds":["` + ids[0] + `"],"data":{"url":"nope"}}`, 422, "unprocessable_entity", "custom: data.url: Invalid URL"},
			{"no data", `{"linkIds":["` + ids[0] + `"]}`, 422, "unprocessable_entity", "invalid_type: data: Invalid input: expected object, received undefined"},
			{"too many ids", `{"linkIds":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 101), ",") + `],"data":{}}`, 422, "unprocessable_entity", "too_big: linkIds: Too big: expected array to have <=100 items"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", "PATCH", "/links/bulk", tc.body), tc.status, tc.code, tc.msg)
			})
		}
		// A processing failure is an entry: the free workspace cannot set a password.
		fid := e.ok(200, "freebie", "POST", "/links", `{"url":"https://e.com/f"}`).json(t)["id"].(string)
		r = e.ok(200, "freebie", "PATCH", "/links/bulk", `{"linkIds":["`+fid+`"],"data":{"password":"x"}}`)
		if items := r.list(t); len(items) != 1 || items[0]["code"] != "forbidden" || items[0]["link"].(map[string]any)["id"] != fid {
			t.Fatalf("processing error entry: %s", r.body)
		}
	})
}

func TestBulkDeleteLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		a := e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com/a"}`).json(t)["id"].(string)
		e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com/b","externalId":"del-b"}`)
		keep := e.ok(200, "acme", "POST", "/links", `{"url":"https://e.com/c"}`).json(t)["id"].(string)
		root := e.ok(200, "acme", "GET", "/links/info?domain=acme.link", "").json(t)["id"].(string)
		theirs := e.ok(200, "other", "POST", "/links", `{"url":"https://e.com/t"}`).json(t)["id"].(string)

		r := e.ok(200, "acme", "DELETE", "/links/bulk?linkIds="+a+"%2C%20ext_del-b,link_nope,"+root+","+theirs, "")
		if string(r.body) != `{"deletedCount":2}` {
			t.Fatalf("%s", r.body)
		}
		e.ok(404, "acme", "GET", "/links/"+a, "")
		e.ok(404, "acme", "GET", "/links/ext_del-b", "")
		e.ok(200, "acme", "GET", "/links/"+keep, "")
		e.ok(200, "acme", "GET", "/links/"+root, "")
		e.ok(200, "other", "GET", "/links/"+theirs, "")
		msg := "Please provide linkIds to delete. You may use `linkId` or `externalId` prefixed with `ext_` as comma separated values."
		e.expectErr(e.do("acme", "DELETE", "/links/bulk", ""), 400, "bad_request", msg)
		e.expectErr(e.do("acme", "DELETE", "/links/bulk?linkIds=%2C%20", ""), 400, "bad_request", msg)
	})
}
