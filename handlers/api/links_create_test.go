package api_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// fixture: workspaces acme (business, domain acme.link, tags, folder),
// pro (pro plan), freebie (free plan) and other (business, domain
// other.link), each with a full-access key of the same name.
type fixture struct {
	*linkEnv
	tagRed, tagBlue, otherTag, folder, otherFolder string
}

func newFixture(t *testing.T, db *models.DB) *fixture {
	e := newLinkEnv(t, db)
	f := &fixture{linkEnv: e}
	e.workspace("acme", models.PlanBusiness)
	e.workspace("pro", models.PlanPro)
	e.workspace("freebie", models.PlanFree)
	e.workspace("other", models.PlanBusiness)
	e.ok(201, "acme", "POST", "/domains", `{"slug":"acme.link"}`)
	e.ok(201, "other", "POST", "/domains", `{"slug":"other.link"}`)
	f.tagRed = e.ok(201, "acme", "POST", "/tags", `{"name":"Red","color":"red"}`).json(t)["id"].(string)
	f.tagBlue = e.ok(201, "acme", "POST", "/tags", `{"name":"Blue","color":"blue"}`).json(t)["id"].(string)
	f.otherTag = e.ok(201, "other", "POST", "/tags", `{"name":"Red","color":"red"}`).json(t)["id"].(string)
	f.folder = e.ok(201, "acme", "POST", "/folders", `{"name":"Campaigns"}`).json(t)["id"].(string)
	f.otherFolder = e.ok(201, "other", "POST", "/folders", `{"name":"Theirs"}`).json(t)["id"].(string)
	return f
}

// check is one assertion on a created link's JSON.
type check func(t *testing.T, l map[string]any)

// field checks that the link's name field encodes as want does.
func field(name string, want any) check {
	return func(t *testing.T, l map[string]any) {
		t.Helper()
		got, _ := json.Marshal(l[name])
		w, _ := json.Marshal(want)
		if string(got) != string(w) {
			t.Errorf("%s = %s, want %s", name, got, w)
		}
	}
}

// tags checks the link's tag names, in order.
func tags(names ...string) check {
	return func(t *testing.T, l map[string]any) {
		var got []string
		for _, tg := range l["tags"].([]any) {
			got = append(got, tg.(map[string]any)["name"].(string))
		}
		if strings.Join(got, ",") != strings.Join(names, ",") {
			t.Errorf("tags %v, want %v", got, names)
		}
	}
}

// keyLike checks the link's key against the regular expression re.
func keyLike(re string) check {
	return func(t *testing.T, l map[string]any) {
		if !regexp.MustCompile(re).MatchString(l["key"].(string)) {
			t.Errorf("key %q !~ %s", l["key"], re)
		}
	}
}

// createAndCheck posts body to /links as workspace key and checks the
// error (code and msg), or the status, the checks and the link's ids.
func createAndCheck(t *testing.T, e *linkEnv, key, body string, status int, code, msg string, checks []check) {
	r := e.do(key, "POST", "/links", body)
	if code != "" {
		e.expectErr(r, status, code, msg)
		return
	}
	if r.status != status {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	l := r.json(t)
	for _, c := range checks {
		c(t, l)
	}
	if l["workspaceId"] != "ws_"+e.ws[key].ID || l["projectId"] != e.ws[key].ID || !strings.HasPrefix(l["id"].(string), "link_") {
		t.Errorf("ids: %v %v %v", l["id"], l["workspaceId"], l["projectId"])
	}
}

func TestCreateLink(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		e.ok(200, "other", "POST", "/links", `{"url":"https://x.com","key":"taken","domain":"other.link"}`)
		e.ok(200, "other", "POST", "/links", `{"url":"https://x.com","key":"shared-taken","domain":"localhost:8080"}`)
		e.ok(200, "acme", "POST", "/links", `{"url":"https://x.com","key":"mine","externalId":"order-1"}`)

		tests := []struct {
			name   string
			key    string
			body   string
			status int
			code   string
			msg    string
			checks []check
		}{
			{name: "minimal: primary domain, random key", key: "acme", body: `{"url":"https://example.com/a"}`, status: 200,
				checks: []check{field("domain", "acme.link"), keyLike(`^[0-9A-Za-z]{7}$`), field("url", "https://example.com/a"), field("tags", []any{})}},
			{name: "no domain: default short domain", key: "pro", body: `{"url":"https://example.com/a"}`, status: 200,
				checks: []check{field("domain", "localhost:8080")}},
			{name: "URLified destination", key: "acme", body: `{"url":"example.com","key":"urlify","domain":"localhost:8080"}`, status: 200,
				checks: []check{field("url", "https://example.com/"), field("shortLink", "http://localhost:8080/urlify")}},
			{name: "workspace domain", key: "acme", body: `{"url":"https://e.com","domain":"acme.link","key":"Promo"}`, status: 200,
				checks: []check{field("domain", "acme.link"), field("key", "Promo"), field("shortLink", "https://acme.link/Promo"),
					field("qrCode", "http://localhost:8081/qr?url=https://acme.link/Promo?qr=1")}},
			{name: "keyLength and prefix", key: "acme", body: `{"url":"https://e.com","keyLength":10,"prefix":"/test/"}`, status: 200,
				checks: []check{keyLike(`^test/[0-9A-Za-z]{10}$`)}},
			{name: "unicode key punycoded", key: "acme", body: `{"url":"https://e.com","key":"한국어"}`, status: 200,
				checks: []check{field("key", "xn--3e0bk47br7k")}},
			{name: "UTM written into url", key: "acme", body: `{"url":"https://e.com","utm_source":"news","utm_medium":"email","ref":"me"}`, status: 200,
				checks: []check{field("url", "https://e.com/?utm_source=news&utm_medium=email&ref=me"), field("utm_source", "news"), field("utm_medium", "email"), field("utm_campaign", nil)}},
			{name: "UTM in url mirrored", key: "acme", body: `{"url":"https://e.com/?utm_campaign=spring"}`, status: 200,
				checks: []check{field("url", "https://e.com/?utm_campaign=spring"), field("utm_campaign", "spring")}},
			{name: "tags by id in order", key: "acme", body: `{"url":"https://e.com","tagIds":["` + f.tagBlue + `","` + f.tagRed + `"]}`, status: 200,
				checks: []check{tags("Blue", "Red"), field("tagId", f.tagBlue)}},
			{name: "tags by name case-insensitive", key: "acme", body: `{"url":"https://e.com","tagNames":"red"}`, status: 200,
				checks: []check{tags("Red")}},
			{name: "tagIds win over tagNames", key: "acme", body: `{"url":"https://e.com","tagIds":"` + f.tagBlue + `","tagNames":["Red"]}`, status: 200,
				checks: []check{tags("Blue")}},
			{name: "deprecated tagId", key: "acme", body: `{"url":"https://e.com","tagId":"` + f.tagRed + `"}`, status: 200, checks: []check{tags("Red")}},
			{name: "everything", key: "acme", body: `{"url":"https://e.com","key":"full","externalId":"ext_full-1","tenantId":"t1","folderId":"` + f.folder + `",
				"expiresAt":"2030-04-16T17:00:00Z","expiredUrl":"expired.com","password":"pw","proxy":true,"title":"` + strings.Repeat("T", 130) + `",
				"description":"d","image":"https://img.example.com/a.png","video":"https://v.example.com","rewrite":true,"doIndex":true,
				"ios":"https://apps.apple.com/x","android":"https://play.google.com/x","geo":{"FR":"fr.example.com"},"trackConversion":true,
				"archived":true,"comments":"note","publicStats":true,
				"testVariants":[{"url":"https://a.example.com","percentage":50},{"url":"https://b.example.com","percentage":50}],"testCompletedAt":"2030-01-01"}`, status: 200,
				checks: []check{field("externalId", "full-1"), field("tenantId", "t1"), field("folderId", f.folder), field("expiresAt", "2030-04-16T17:00:00.000Z"),
					field("expiredUrl", "https://expired.com/"), field("password", "pw"), field("proxy", true), field("title", strings.Repeat("T", 117)+"..."),
					field("image", "https://img.example.com/a.png"), field("rewrite", true), field("doIndex", true), field("geo", map[string]string{"FR": "https://fr.example.com/"}),
					field("trackConversion", true), field("archived", true), field("comments", "note"), field("publicStats", true),
					field("testVariants", []map[string]any{{"url": "https://a.example.com", "percentage": 50}, {"url": "https://b.example.com", "percentage": 50}}),
					field("testCompletedAt", "2030-01-01T00:00:00.000Z")}},
			{name: "unknown body fields ignored", key: "acme", body: `{"url":"https://e.com","id":"link_forged","projectId":"x","shortLink":"y","clicks":99}`, status: 200,
				checks: []check{field("clicks", 0), func(t *testing.T, l map[string]any) {
					if l["id"] == "link_forged" || l["projectId"] == "x" || l["shortLink"] == "y" {
						t.Errorf("body fields leaked: %v", l)
					}
				}}},

			{name: "invalid destination", key: "acme", body: `{"url":"not a url"}`, status: 422, code: "unprocessable_entity", msg: "Invalid destination URL"},
			{name: "empty destination", key: "acme", body: `{"url":""}`, status: 400, code: "bad_request", msg: "Missing destination URL"},
			{name: "schema: url missing", key: "acme", body: `{}`, status: 422, code: "unprocessable_entity", msg: "invalid_type: url: Invalid input: expected string, received undefined"},
			{name: "schema: geo URL", key: "acme", body: `{"url":"https://e.com","geo":{"US":"ftp"}}`, status: 422, code: "unprocessable_entity", msg: "custom: geo.US: Invalid URL"},
			{name: "malformed JSON", key: "acme", body: `{"url":`, status: 400, code: "bad_request", msg: "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
			{name: "other workspace's domain", key: "acme", body: `{"url":"https://e.com","domain":"other.link"}`, status: 403, code: "forbidden", msg: "Domain does not belong to workspace."},
			{name: "unknown domain", key: "acme", body: `{"url":"https://e.com","domain":"nope.link"}`, status: 403, code: "forbidden", msg: "Domain does not belong to workspace."},
			{name: "invalid key", key: "acme", body: `{"url":"https://e.com","key":"a b"}`, status: 422, code: "unprocessable_entity", msg: "Invalid key."},
			{name: "underscore key", key: "acme", body: `{"url":"https://e.com","key":"_x"}`, status: 422, code: "unprocessable_entity", msg: "Invalid key."},
			{name: "php key", key: "acme", body: `{"url":"https://e.com","key":"x.php"}`, status: 422, code: "unprocessable_entity", msg: "Invalid key."},
			{name: "reserved path", key: "acme", body: `{"url":"https://e.com","key":"favicon.ico","domain":"acme.link"}`, status: 403, code: "forbidden", msg: "favicon.ico is a reserved path and cannot be used as a short link."},
			{name: "app path on default domain", key: "acme", body: `{"url":"https://e.com","key":"api","domain":"localhost:8080"}`, status: 403, code: "forbidden", msg: "api is a reserved path and cannot be used as a short link."},
			{name: "console subpath on default domain", key: "acme", body: `{"url":"https://e.com","key":"console/x","domain":"localhost:8080"}`, status: 403, code: "forbidden", msg: "console/x is a reserved path and cannot be used as a short link."},
			{name: "reserved slug on default domain", key: "acme", body: `{"url":"https://e.com","key":"pricing","domain":"localhost:8080"}`, status: 409, code: "conflict", msg: "Duplicate key: This short link already exists."},
			{name: "app path fine on own domain", key: "acme", body: `{"url":"https://e.com","key":"api","domain":"acme.link"}`, status: 200},
			{name: "duplicate key other case", key: "acme", body: `{"url":"https://e.com","key":"MINE"}`, status: 409, code: "conflict", msg: "Duplicate key: This short link already exists."},
			{name: "key taken by another workspace on default domain", key: "acme", body: `{"url":"https://e.com","key":"Shared-Taken","domain":"localhost:8080"}`, status: 409, code: "conflict", msg: "Duplicate key: This short link already exists."},
			{name: "root link exists", key: "acme", body: `{"url":"https://e.com","key":"_root","domain":"acme.link"}`, status: 409, code: "conflict", msg: "Duplicate key: This short link already exists."},
			{name: "duplicate externalId", key: "acme", body: `{"url":"https://e.com","externalId":"ORDER-1"}`, status: 409, code: "conflict", msg: "A link with this externalId already exists in this workspace."},
			{name: "externalId free in another workspace", key: "other", body: `{"url":"https://e.com","externalId":"order-1"}`, status: 200},
			{name: "invalid tagIds", key: "acme", body: `{"url":"https://e.com","tagIds":["` + f.otherTag + `","nope"]}`, status: 422, code: "unprocessable_entity", msg: "Invalid tagIds detected: " + f.otherTag + ", nope"},
			{name: "invalid tagNames", key: "acme", body: `{"url":"https://e.com","tagNames":["red","Green"]}`, status: 422, code: "unprocessable_entity", msg: "Invalid tagNames detected: Green"},
			{name: "unknown folder", key: "acme", body: `{"url":"https://e.com","folderId":"fold_nope"}`, status: 404, code: "not_found", msg: "Folder not found."},
			{name: "other workspace's folder", key: "acme", body: `{"url":"https://e.com","folderId":"` + f.otherFolder + `"}`, status: 404, code: "not_found", msg: "Folder does not belong to the workspace."},
			{name: "folder on free plan", key: "freebie", body: `{"url":"https://e.com","folderId":"` + f.folder + `"}`, status: 403, code: "forbidden", msg: "You can't add a folder to a link on a free plan."},
			{name: "pro features on free", key: "freebie", body: `{"url":"https://e.com","password":"x","geo":{"US":"https://us.com"},"doIndex":true}`, status: 403, code: "forbidden",
				msg: "You can only use password-protected links, geo targeting, and search engine indexing on a Pro plan and above. Upgrade to Pro to use these features."},
			{name: "one pro feature on free", key: "freebie", body: `{"url":"https://e.com","expiresAt":"2030-01-01"}`, status: 403, code: "forbidden",
				msg: "You can only use link expiration on a Pro plan and above. Upgrade to Pro to use these features."},
			{name: "conversion tracking on pro", key: "pro", body: `{"url":"https://e.com","trackConversion":true}`, status: 403, code: "forbidden",
				msg: "You can only use conversion tracking on a Business plan and above. Upgrade to Business to use these features."},
			{name: "A/B without tracking", key: "acme", body: `{"url":"https://e.com","testVariants":[{"url":"https://a.com","percentage":50},{"url":"https://b.com","percentage":50}]}`, status: 422, code: "unprocessable_entity",
				msg: "Conversion tracking must be enabled to use A/B testing."},
			{name: "bad expiry", key: "acme", body: `{"url":"https://e.com","expiresAt":"someday"}`, status: 422, code: "unprocessable_entity", msg: "Invalid expiration date."},
			{name: "bad test completion", key: "acme", body: `{"url":"https://e.com","testCompletedAt":"soon"}`, status: 422, code: "unprocessable_entity", msg: "Invalid test completion date."},
			{name: "private image", key: "acme", body: `{"url":"https://e.com","image":"http://127.0.0.1/x.png"}`, status: 422, code: "unprocessable_entity", msg: "Invalid image URL: use a public http(s) URL (no localhost or IP address)."},
			{name: "webhooks", key: "acme", body: `{"url":"https://e.com","webhookIds":["wh_1","wh_2"]}`, status: 422, code: "unprocessable_entity", msg: "Invalid webhookIds detected: wh_1, wh_2"},
			{name: "free plan basic link fine", key: "freebie", body: `{"url":"https://e.com"}`, status: 200},
		}
		// The redirect's link cache holds a miss for acme.link/Promo before
		// the link exists; creating it must drop the miss.
		if got := e.cached("acme.link", "Promo"); got != "none" {
			t.Fatalf("link cache before the create: %q", got)
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				createAndCheck(t, e.sub(t), tc.key, tc.body, tc.status, tc.code, tc.msg, tc.checks)
			})
		}
		// A created link invalidated its (domain, key) in the link cache.
		if got := e.cached("acme.link", "Promo"); got != "https://e.com" {
			t.Errorf("link cache after the create: %q, want the new link", got)
		}
	})
}

// TestLinkJSONShape compares a full link response with testdata, ids and
// times masked: every key the SDK requires, nulls included.
func TestLinkJSONShape(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		r := e.ok(200, "acme", "POST", "/links", `{"url":"https://example.com/p","domain":"acme.link","key":"shape","tagIds":["`+f.tagRed+`"],"utm_source":"s"}`)
		got := maskIDs(t, r.body, map[string]string{e.ws["acme"].ID: "WORKSPACE", f.tagRed: "TAG"})
		path := filepath.Join("testdata", "link_create.json")
		if os.Getenv("UPDATE_GOLDEN") != "" {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
			t.Fatalf("link JSON differs from %s:\n got %s\nwant %s", path, got, want)
		}
	})
}

var (
	linkIDRe = regexp.MustCompile(`"link_[0-9A-Z]+"`)
	userIDRe = regexp.MustCompile(`"user_[0-9A-Z]+"`)
	timeRe   = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"`)
)

// maskIDs re-indents a JSON body and replaces generated values.
func maskIDs(t *testing.T, body []byte, repl map[string]string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	s := string(b)
	for from, to := range repl {
		s = strings.ReplaceAll(s, from, to)
	}
	s = linkIDRe.ReplaceAllString(s, `"LINK_ID"`)
	s = userIDRe.ReplaceAllString(s, `"USER_ID"`)
	s = timeRe.ReplaceAllString(s, `"TIME"`)
	return []byte(s + "\n")
}
