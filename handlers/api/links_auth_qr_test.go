package api_test

import (
	"bytes"
	"image/png"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestLinkPermissions: every route asks for the scope of spec/links.md §1.3.
func TestLinkPermissions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		e.scopedKey("linksRead", "acme", "links.read")
		e.scopedKey("linksWrite", "acme", "links.write")
		e.scopedKey("tagsRead", "acme", "tags.read")
		e.scopedKey("domainsWrite", "acme", "domains.write")
		e.scopedKey("apisRead", "acme", "apis.read")
		e.scopedKey("foldersWrite", "acme", "folders.write")
		ws := "ws_" + e.ws["acme"].ID
		deny := func(perm string) string {
			return "The provided key does not have the required permissions for this endpoint on the workspace '" + ws + "'. Having the '" + perm + "' permission would allow this request to continue."
		}
		tests := []struct {
			key, method, path, body string
			perm                    string // "" = allowed
		}{
			{"linksRead", "GET", "/links", "", ""},
			{"linksRead", "GET", "/links/count", "", ""},
			{"linksRead", "GET", "/links/info?domain=acme.link", "", ""},
			{"linksRead", "POST", "/links", `{"url":"https://e.com"}`, "links.write"},
			{"linksRead", "PATCH", "/links/x", `{}`, "links.write"},
			{"linksRead", "PUT", "/links/upsert", `{}`, "links.write"},
			{"linksRead", "DELETE", "/links/bulk?linkIds=x", "", "links.write"},
			{"linksRead", "GET", "/tags", "", "tags.read"},
			{"linksWrite", "POST", "/links", `{"url":"https://e.com"}`, ""},
			{"linksWrite", "GET", "/links", "", ""},
			{"linksWrite", "GET", "/domains", "", "domains.read"},
			{"tagsRead", "GET", "/tags", "", ""},
			{"tagsRead", "POST", "/tags", `{"name":"x"}`, "tags.write"},
			{"tagsRead", "GET", "/folders", "", "folders.read"},
			{"domainsWrite", "GET", "/domains", "", ""},
			{"domainsWrite", "POST", "/domains", `{"slug":"perm.link"}`, ""},
			{"domainsWrite", "GET", "/links", "", "links.read"},
			{"apisRead", "GET", "/folders", "", ""},
			{"apisRead", "GET", "/domains", "", ""},
			{"apisRead", "DELETE", "/tags/x", "", "tags.write"},
			{"foldersWrite", "POST", "/folders", `{"name":"perm"}`, ""},
			{"foldersWrite", "DELETE", "/domains/acme.link", "", "domains.write"},
		}
		for _, tc := range tests {
			t.Run(tc.key+" "+tc.method+" "+tc.path, func(t *testing.T) {
				e := e.sub(t)
				r := e.do(tc.key, tc.method, tc.path, tc.body)
				if tc.perm != "" {
					e.expectErr(r, 403, "forbidden", deny(tc.perm))
					return
				}
				if r.status >= 400 {
					t.Fatalf("denied: %d %s", r.status, r.body)
				}
			})
		}
		e.expectErr(e.do("", "GET", "/links", ""), 401, "unauthorized", "Missing Authorization header.")
		// Rate-limit headers on link responses.
		if r := e.ok(200, "acme", "GET", "/links", ""); r.header.Get("X-RateLimit-Limit") == "" {
			t.Fatal("no rate-limit headers")
		}
		// Served under /api on the app host as well.
		req := httptest.NewRequest("GET", "/api/links/count", nil)
		req.Host = "localhost:8080"
		req.Header.Set("Authorization", "Bearer "+e.keys["acme"])
		if res, _ := roundTrip(t, e.srv, req); res.StatusCode != 200 {
			t.Fatalf("/api/links/count on the app host: %v", res.StatusCode)
		}
	})
}

func TestQRCode(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanPro)
		get := func(query string, withKey bool) linkResp {
			req := httptest.NewRequest("GET", "/qr"+query, nil)
			req.Host = linksAPIHost
			req.Header.Set("Accept", "image/png")
			if withKey {
				req.Header.Set("Authorization", "Bearer "+e.keys["acme"])
			}
			res, b := roundTrip(t, e.srv, req)
			return linkResp{status: res.StatusCode, header: res.Header, body: b}
		}
		tests := []struct {
			name, query string
			key         bool
			size        int
			code, msg   string
		}{
			{name: "defaults", query: "?url=https://acme.link/x?qr=1", size: 600},
			{name: "SDK params with a bearer token", key: true, query: "?url=https%3A%2F%2Facme.link%2Fx&size=256&level=H&fgColor=%23112233&bgColor=%23FFFFFF&hideLogo=false&margin=4&includeMargin=true", size: 256},
			{name: "URLified", query: "?url=acme.link/x&size=100&margin=0", size: 100},
			{name: "missing url", query: "", code: "unprocessable_entity", msg: "invalid_type: url: Invalid input: expected string, received undefined"},
			{name: "bad url", query: "?url=not%20a%20url", code: "unprocessable_entity", msg: "custom: url: Invalid URL"},
			{name: "bad level", query: "?url=https://a.com&level=X", code: "unprocessable_entity", msg: `invalid_value: level: Invalid option: expected one of "L"|"M"|"Q"|"H"`},
			{name: "bad color", query: "?url=https://a.com&fgColor=blue", code: "unprocessable_entity", msg: "invalid_format: fgColor: Invalid hex color: expected #RGB or #RRGGBB"},
			{name: "huge size", query: "?url=https://a.com&size=100000", code: "unprocessable_entity", msg: "too_big: size: Too big: expected number to be <=2048"},
			{name: "size not a number", query: "?url=https://a.com&size=big", code: "unprocessable_entity", msg: "invalid_type: size: Invalid input: expected number, received NaN"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := get(tc.query, tc.key)
				if r.header.Get("Access-Control-Allow-Origin") != "*" {
					t.Errorf("CORS header missing")
				}
				if tc.code != "" {
					e.sub(t).expectErr(r, 422, tc.code, tc.msg)
					return
				}
				if r.status != 200 || r.header.Get("Content-Type") != "image/png" {
					t.Fatalf("%d %s %s", r.status, r.header.Get("Content-Type"), r.body)
				}
				img, err := png.Decode(bytes.NewReader(r.body))
				if err != nil {
					t.Fatal(err)
				}
				if b := img.Bounds(); b.Dx() != tc.size || b.Dy() != tc.size {
					t.Fatalf("image %v, want %dx%d", b, tc.size, tc.size)
				}
			})
		}
		// Colours and margin are honoured: with margin 4 the corner is background, the
		// finder pattern's corner is foreground.
		img, _ := png.Decode(bytes.NewReader(get("?url=https://a.com&size=290&margin=4&fgColor=%23112233&bgColor=%23ffeedd", false).body))
		if r, g, b, _ := img.At(1, 1).RGBA(); r>>8 != 0xff || g>>8 != 0xee || b>>8 != 0xdd {
			t.Fatalf("corner %v, want the background", img.At(1, 1))
		}
		found := false
		for x := 0; x < 290 && !found; x++ {
			if r, g, b, _ := img.At(x, x).RGBA(); r>>8 == 0x11 && g>>8 == 0x22 && b>>8 == 0x33 {
				found = true
			}
		}
		if !found {
			t.Fatal("no foreground pixel on the diagonal")
		}
		// (This test makes 10 GETs: the per-IP limit of /qr; more would be refused.)
		// OPTIONS preflight.
		req := httptest.NewRequest("OPTIONS", "/qr", nil)
		req.Host = linksAPIHost
		res, _ := roundTrip(t, e.srv, req)
		if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Methods") != "GET, OPTIONS" {
			t.Fatalf("OPTIONS %d %v", res.StatusCode, res.Header)
		}
	})
}

func TestQRRateLimit(t *testing.T) {
	e := newLinkEnv(t, testdb.Open(t, "sqlite"))
	var last linkResp
	for i := range 11 {
		req := httptest.NewRequest("GET", "/qr?url=https://a.com&size=32", nil)
		req.Host = linksAPIHost
		res, b := roundTrip(t, e.srv, req)
		last = linkResp{status: res.StatusCode, header: res.Header, body: b}
		if i < 10 && last.status != 200 {
			t.Fatalf("request %d: %d", i+1, last.status)
		}
	}
	e.expectErr(last, 429, "rate_limit_exceeded", "Don't DDoS me pls 🥺")
	if last.header.Get("Retry-After") == "" || !strings.HasPrefix(last.header.Get("X-RateLimit-Limit"), "10") {
		t.Fatalf("headers %v", last.header)
	}
}
