package api_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

const msgFolderForbidden = "You are not allowed to perform this action on this folder."

// folderEnv is a Business workspace "biz" whose owner made three folders
// (Shared: accessLevel write, but "none" was removed from it; ReadOnly:
// read; Private: null, "ed" is its editor) with one link each plus one
// link in no folder, and three member keys: ed, vw, none.
type folderEnv struct {
	*linkEnv
	shared, readOnly, private string            // folder ids
	link                      map[string]string // folder name ("" none) → link id
	users                     map[string]string // member key → user id
}

func newFolderEnv(t *testing.T, db *models.DB, plan models.Plan) *folderEnv {
	e := &folderEnv{linkEnv: newLinkEnv(t, db), link: map[string]string{}, users: map[string]string{}}
	e.workspace("biz", models.PlanBusiness)
	e.workspace("other", models.PlanBusiness)
	for _, k := range []string{"ed", "vw", "none"} {
		e.users[k] = e.memberKey(k, "biz", models.RoleMember)
	}
	folder := func(name, level string) string {
		body := fmt.Sprintf(`{"name":%q,"accessLevel":%s}`, name, level)
		return e.ok(201, "biz", "POST", "/folders", body).json(t)["id"].(string)
	}
	e.shared, e.readOnly, e.private = folder("Shared", `"write"`), folder("ReadOnly", `"read"`), folder("Private", "null")
	ctx := context.Background()
	editor := string(models.FolderEditor)
	if err := db.SetFolderUserRole(ctx, e.private, e.users["ed"], &editor, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := db.SetFolderUserRole(ctx, e.shared, e.users["none"], nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]string{"Shared": e.shared, "ReadOnly": e.readOnly, "Private": e.private, "": ""} {
		body := fmt.Sprintf(`{"url":"https://example.com/%s","key":"k%s"}`, strings.ToLower(name), strings.ToLower(name))
		if id != "" {
			body = fmt.Sprintf(`{"url":"https://example.com/%s","key":"k%s","folderId":%q}`, strings.ToLower(name), strings.ToLower(name), id)
		}
		e.link[name] = e.ok(200, "biz", "POST", "/links", body).json(t)["id"].(string)
	}
	if plan != models.PlanBusiness {
		if err := db.Model(&models.Workspace{}).Where("id = ?", e.ws["biz"].ID).Update("plan", plan).Error; err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func folderNames(t *testing.T, r linkResp) []string {
	var out []string
	for _, f := range r.list(t) {
		out = append(out, f["name"].(string))
	}
	sort.Strings(out)
	return out
}

// TestFolderPermissions: spec/parity.md §13 on single operations: folder
// visibility, 404s, the 403 of verifyFolderAccess for each operation, the
// creator as owner, keys acting as their user.
func TestFolderPermissions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newFolderEnv(t, db, models.PlanBusiness)
		e.scopedKey("machine", "biz", "apis.all")

		t.Run("GET /folders shows what each user may see", func(t *testing.T) {
			for key, want := range map[string]string{
				"biz": "Private ReadOnly Shared", "machine": "Private ReadOnly Shared",
				"ed": "Private ReadOnly Shared", "vw": "ReadOnly Shared", "none": "ReadOnly",
			} {
				if got := strings.Join(folderNames(t, e.ok(200, key, "GET", "/folders", "")), " "); got != want {
					t.Errorf("%s sees %q, want %q", key, got, want)
				}
			}
		})
		forbidden := func(key, method, path, body string) {
			t.Helper()
			e.expectErr(e.do(key, method, path, body), 403, "forbidden", msgFolderForbidden)
		}
		t.Run("folders", func(t *testing.T) {
			forbidden("vw", "GET", "/folders/"+e.private, "")
			e.ok(200, "ed", "GET", "/folders/"+e.private, "")
			// folders.write is for folder owners: an editor may not rename or delete.
			forbidden("ed", "PATCH", "/folders/"+e.private, `{"name":"Mine"}`)
			forbidden("ed", "DELETE", "/folders/"+e.private, "")
			forbidden("vw", "PATCH", "/folders/"+e.shared, `{"description":"x"}`)
			e.expectErr(e.do("vw", "GET", "/folders/fold_missing", ""), 404, "not_found", "Folder not found.")
			e.expectErr(e.do("other", "GET", "/folders/"+e.private, ""), 404, "not_found", "Folder does not belong to the workspace.")
			e.expectErr(e.do("other", "DELETE", "/folders/"+e.private, ""), 404, "not_found", "Folder does not belong to the workspace.")
			// The creator owns what they make, even where the workspace cannot see it.
			mine := e.ok(201, "ed", "POST", "/folders", `{"name":"Ed's","accessLevel":null}`).json(t)["id"].(string)
			e.ok(200, "ed", "PATCH", "/folders/"+mine, `{"description":"only mine"}`)
			forbidden("vw", "GET", "/folders/"+mine, "")
			e.ok(200, "biz", "GET", "/folders/"+mine, "")
			e.ok(200, "ed", "DELETE", "/folders/"+mine, "")
		})
		t.Run("single link operations", func(t *testing.T) {
			forbidden("vw", "GET", "/links/"+e.link["Private"], "")
			forbidden("vw", "GET", "/links/info?linkId="+e.link["Private"], "")
			forbidden("vw", "GET", "/links/info?domain=localhost:8080&key=kprivate", "")
			e.ok(200, "vw", "GET", "/links/"+e.link["ReadOnly"], "")
			e.ok(200, "ed", "GET", "/links/"+e.link["Private"], "")
			// Writing needs folders.links.write on the target …
			forbidden("vw", "POST", "/links", fmt.Sprintf(`{"url":"https://example.com/n","folderId":%q}`, e.readOnly))
			forbidden("none", "POST", "/links", fmt.Sprintf(`{"url":"https://example.com/n","folderId":%q}`, e.shared))
			e.ok(200, "vw", "POST", "/links", fmt.Sprintf(`{"url":"https://example.com/n","folderId":%q}`, e.shared))
			e.expectErr(e.do("vw", "POST", "/links", `{"url":"https://example.com/n","folderId":"fold_missing"}`), 404, "not_found", "Folder not found.")
			// … and on the link's current folder.
			forbidden("vw", "PATCH", "/links/"+e.link["ReadOnly"], `{"title":"x"}`)
			forbidden("vw", "PUT", "/links/"+e.link["ReadOnly"], `{"title":"x"}`)
			forbidden("vw", "PATCH", "/links/"+e.link[""], fmt.Sprintf(`{"folderId":%q}`, e.readOnly))
			forbidden("vw", "PUT", "/links/upsert", `{"url":"https://example.com/readonly","title":"x"}`)
			e.ok(200, "vw", "PATCH", "/links/"+e.link[""], fmt.Sprintf(`{"folderId":%q}`, e.shared))
			forbidden("vw", "DELETE", "/links/"+e.link["ReadOnly"], "")
			e.ok(200, "vw", "GET", "/links/"+e.link["ReadOnly"], "") // still there
			e.ok(200, "ed", "PATCH", "/links/"+e.link["Private"], `{"title":"ed was here"}`)
		})
		t.Run("lists hide what the user cannot read", func(t *testing.T) {
			forbidden("vw", "GET", "/links?folderId="+e.private, "")
			forbidden("vw", "GET", "/links/count?folderId="+e.private, "")
			ids := func(key string) string {
				var out []string
				for _, l := range e.ok(200, key, "GET", "/links?search=example.com", "").list(t) {
					out = append(out, l["key"].(string))
				}
				sort.Strings(out)
				return strings.Join(out, " ")
			}
			if got := ids("vw"); strings.Contains(got, "kprivate") || !strings.Contains(got, "kreadonly") {
				t.Errorf("vw lists %q", got)
			}
			if got := ids("none"); strings.Contains(got, "kshared") || strings.Contains(got, "kprivate") || !strings.Contains(got, "kreadonly") {
				t.Errorf("none lists %q", got)
			}
			if got := ids("biz"); !strings.Contains(got, "kprivate") {
				t.Errorf("owner lists %q", got)
			}
			all := e.ok(200, "biz", "GET", "/links/count", "").body
			vw := e.ok(200, "vw", "GET", "/links/count", "").body
			if string(all) == string(vw) {
				t.Errorf("count: the owner and vw both count %s", all)
			}
		})
		t.Run("analytics and events", func(t *testing.T) {
			forbidden("vw", "GET", "/analytics?folderId="+e.private, "")
			forbidden("vw", "GET", "/events?folderId="+e.private, "")
			forbidden("vw", "GET", "/analytics?domain=localhost:8080&key=kprivate", "")
			forbidden("vw", "GET", "/events/export?folderId="+e.private, "")
			forbidden("vw", "GET", "/links/export?folderId="+e.private, "")
			if csv := string(e.ok(200, "vw", "GET", "/links/export", "").body); strings.Contains(csv, "kprivate") || !strings.Contains(csv, "kreadonly") {
				t.Errorf("vw's links export:\n%s", csv)
			}
			e.ok(200, "ed", "GET", "/analytics?folderId="+e.private, "")
			e.expectErr(e.do("other", "GET", "/analytics?folderId="+e.private, ""), 404, "not_found", "Folder does not belong to the workspace.")
		})
		t.Run("a key whose user left the workspace", func(t *testing.T) {
			if err := db.RemoveMember(context.Background(), e.ws["biz"].ID, e.users["none"]); err != nil {
				t.Fatal(err)
			}
			e.expectErr(e.do("none", "GET", "/links", ""), 404, "not_found", "Workspace not found.")
			e.expectErr(e.do("none", "GET", "/folders", ""), 404, "not_found", "Workspace not found.")
		})
	})
}

// TestFolderPermissionsBulk: the per-item folder errors of bulk create and
// update, bulk delete skipping, and the whole-request check of
// PATCH /links/bulk's data.folderId (spec/parity.md §13.3, spec/links.md §5.9-5.11).
func TestFolderPermissionsBulk(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newFolderEnv(t, db, models.PlanBusiness)
		other := e.ok(201, "other", "POST", "/folders", `{"name":"Theirs"}`).json(t)["id"].(string)

		body := fmt.Sprintf(`[{"url":"https://example.com/a","folderId":%q},{"url":"https://example.com/b","folderId":%q},`+
			`{"url":"https://example.com/c","folderId":"fold_missing"},{"url":"https://example.com/d","folderId":%q},{"url":"https://example.com/e"}]`,
			e.readOnly, e.shared, other)
		rs := e.ok(200, "vw", "POST", "/links/bulk", body).list(t)
		if len(rs) != 5 || rs[0]["url"] != "https://example.com/b" || rs[1]["url"] != "https://example.com/e" {
			t.Fatalf("bulk create %v", rs)
		}
		want := []struct{ code, msg string }{
			{"forbidden", "You don't have write access to the folder: " + e.readOnly},
			{"unprocessable_entity", "Invalid folderId detected: fold_missing"},
			{"unprocessable_entity", "Invalid folderId detected: " + other},
		}
		for i, w := range want {
			got := rs[2+i]
			if got["code"] != w.code || got["error"] != w.msg || got["link"] == nil {
				t.Errorf("entry %d: %v, want %v", i, got, w)
			}
		}
		// The owner writes everywhere.
		if rs := e.ok(200, "biz", "POST", "/links/bulk", fmt.Sprintf(`[{"url":"https://example.com/f","folderId":%q}]`, e.private)).list(t); rs[0]["folderId"] != e.private {
			t.Fatalf("owner bulk create %v", rs)
		}

		upd := fmt.Sprintf(`{"linkIds":[%q,%q,%q,"link_missing"],"data":{"title":"bulk"}}`, e.link["ReadOnly"], e.link["Shared"], e.link["Private"])
		rs = e.ok(200, "vw", "PATCH", "/links/bulk", upd).list(t)
		if len(rs) != 4 || rs[0]["id"] != e.link["Shared"] || rs[0]["title"] != "bulk" || rs[1]["code"] != "not_found" {
			t.Fatalf("bulk update %v", rs)
		}
		denied := map[string]bool{}
		for _, r := range rs[2:] {
			if r["code"] != "forbidden" || !strings.HasPrefix(r["error"].(string), "You don't have permission to update links in this folder: ") {
				t.Errorf("entry %v", r)
			}
			denied[strings.TrimPrefix(r["error"].(string), "You don't have permission to update links in this folder: ")] = true
			if l, _ := r["link"].(map[string]any); l == nil || l["id"] == nil {
				t.Errorf("entry without the link: %v", r)
			}
		}
		if !denied[e.readOnly] || !denied[e.private] {
			t.Errorf("denied folders %v", denied)
		}
		if got := e.ok(200, "biz", "GET", "/links/"+e.link["ReadOnly"], "").json(t)["title"]; got == "bulk" {
			t.Error("a read-only folder's link was changed")
		}
		e.expectErr(e.do("vw", "PATCH", "/links/bulk", fmt.Sprintf(`{"linkIds":[%q],"data":{"folderId":%q}}`, e.link[""], e.readOnly)), 403, "forbidden", msgFolderForbidden)
		e.expectErr(e.do("vw", "PATCH", "/links/bulk", fmt.Sprintf(`{"linkIds":[%q],"data":{"folderId":%q}}`, e.link[""], other)), 404, "not_found", "Folder does not belong to the workspace.")

		del := e.ok(200, "vw", "DELETE", "/links/bulk?linkIds="+strings.Join([]string{e.link["ReadOnly"], e.link["Private"], e.link["Shared"]}, ","), "").json(t)
		if del["deletedCount"] != float64(1) {
			t.Fatalf("bulk delete %v", del)
		}
		e.ok(200, "biz", "GET", "/links/"+e.link["ReadOnly"], "")
		e.ok(404, "biz", "GET", "/links/"+e.link["Shared"], "")
		// Another workspace's key deletes nothing here.
		if del := e.ok(200, "other", "DELETE", "/links/bulk?linkIds="+e.link["ReadOnly"], "").json(t); del["deletedCount"] != float64(0) {
			t.Fatalf("cross-workspace bulk delete %v", del)
		}
		e.ok(200, "biz", "GET", "/links/"+e.link["ReadOnly"], "")
	})
}

// TestFolderPermissionsBelowBusiness: below Business single-item checks are
// skipped (everyone has full access) but bulk checks are not — upstream's
// quirk after a downgrade (spec/parity.md §13.3).
func TestFolderPermissionsBelowBusiness(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newFolderEnv(t, db, models.PlanPro)
		e.ok(200, "vw", "GET", "/links/"+e.link["Private"], "")
		e.ok(200, "vw", "PATCH", "/links/"+e.link["ReadOnly"], `{"title":"single"}`)
		e.ok(200, "vw", "GET", "/folders/"+e.private, "")
		e.ok(200, "vw", "PATCH", "/folders/"+e.private, `{"description":"pro"}`)
		// Lists scope nothing below Business.
		if n := e.ok(200, "vw", "GET", "/links/count", "").body; string(n) != string(e.ok(200, "biz", "GET", "/links/count", "").body) {
			t.Errorf("pro member counts %s", n)
		}
		rs := e.ok(200, "vw", "PATCH", "/links/bulk", fmt.Sprintf(`{"linkIds":[%q],"data":{"title":"bulk"}}`, e.link["ReadOnly"])).list(t)
		if len(rs) != 1 || rs[0]["code"] != "forbidden" {
			t.Fatalf("bulk update below business %v", rs)
		}
		// Only write can be set below Business, in PATCH's own words.
		e.expectErr(e.do("biz", "PATCH", "/folders/"+e.shared, `{"accessLevel":"read"}`), 403, "forbidden",
			"You can only set access levels for folders on Business plans and above. Upgrade to Business to continue.")
		e.expectErr(e.do("biz", "POST", "/folders", `{"name":"N","accessLevel":"read"}`), 403, "forbidden",
			"You can only change the access level of a folder on Business and above plans.")
	})
}

// TestFolderPermissionEndpoints: GET /folders/permissions and GET
// /folders/{id}/users (upstream's dashboard routes, Business+).
func TestFolderPermissionEndpoints(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newFolderEnv(t, db, models.PlanBusiness)
		forbidden := func(key, method, path, body string) {
			t.Helper()
			e.expectErr(e.do(key, method, path, body), 403, "forbidden", msgFolderForbidden)
		}
		perms := map[string]string{}
		for _, f := range e.ok(200, "ed", "GET", "/folders/permissions", "").list(t) {
			var ps []string
			for _, p := range f["permissions"].([]any) {
				ps = append(ps, p.(string))
			}
			perms[f["name"].(string)] = strings.Join(ps, " ")
		}
		want := map[string]string{"Shared": "folders.read folders.links.write", "ReadOnly": "folders.read", "Private": "folders.read folders.links.write"}
		if fmt.Sprint(perms) != fmt.Sprint(want) {
			t.Errorf("ed's permissions %v, want %v", perms, want)
		}
		owner := e.ok(200, "biz", "GET", "/folders/permissions", "").list(t)
		if len(owner) != 3 || len(owner[0]["permissions"].([]any)) != 4 {
			t.Errorf("owner's permissions %v", owner)
		}
		roles := map[string]any{}
		for _, u := range e.ok(200, "ed", "GET", "/folders/"+e.private+"/users", "").list(t) {
			roles[u["email"].(string)] = u["role"]
		}
		if roles["ed@members.example"] != "editor" || roles["vw@members.example"] != nil || roles["biz@example.com"] != "owner" {
			t.Errorf("private folder's users %v", roles)
		}
		forbidden("vw", "GET", "/folders/"+e.private+"/users", "")
		e.expectErr(e.do("other", "GET", "/folders/"+e.private+"/users", ""), 404, "not_found", "Folder does not belong to the workspace.")
	})
}
