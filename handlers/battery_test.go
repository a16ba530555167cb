package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// batteryShort is the short domain of the battery's server (its own face).
const batteryShort = "short.test:8080"

// batteryFields are the body fields the long-text battery fills, one at a
// time, on top of a route's base body.
var batteryFields = []string{
	"url", "key", "domain", "externalId", "tenantId", "title", "description", "comments", "prefix",
	"name", "slug", "email", "username", "color", "eventName", "customerExternalId", "customerName",
	"customerEmail", "customerAvatar", "clickId", "invoiceId", "currency", "paymentProcessor",
	"leadEventName", "partnerId", "programId", "tagName", "folderId", "image", "password", "placeholder",
	"expiredUrl", "notFoundUrl", "ios", "android", "utm_source", "ref", "status", "type", "identifier",
	"password", "logo", "accessLevel", "groupId", "linkId",
}

// batteryBodies are valid base bodies for the routes whose deep paths need
// one (the long value replaces one field at a time).
var batteryBodies = map[string]map[string]any{
	"POST /links":                  {"url": "https://example.com/a"},
	"PUT /links/upsert":            {"url": "https://example.com/b"},
	"PATCH /links/:linkId":         {"url": "https://example.com/c"},
	"POST /track/lead":             {"clickId": "", "eventName": "Sign up", "customerExternalId": "cust_1"},
	"POST /track/sale":             {"customerExternalId": "cust_1", "amount": 100, "invoiceId": "inv_1"},
	"POST /tags":                   {"name": "t1"},
	"POST /folders":                {"name": "f1"},
	"POST /domains":                {"slug": "example.org"},
	"POST /partners":               {"name": "P", "email": "p@example.com"},
	"POST /partners/links":         {"partnerId": "pn_x", "url": "https://example.com/p"},
	"POST /customers":              {"externalId": "x"},
	"POST /tokens/embed/referrals": {"tenantId": "t1"},
	"POST /console/login":          {"email": "owner@example.com", "password": "x"},
	"POST /console/links":          {"url": "https://example.com/console"},
}

type batteryRoute struct {
	face         request.Face
	method, path string
}

// TestBadInputBattery sends the issue 15 battery to every route of every
// face on both dialects: NUL bytes and invalid UTF-8 in the path, the query
// and the body get a 400 naming where they were; 2,800- and 40,000-character
// values in every body field, and a 10,000-character analytics query of
// "é", never get a 5xx.
func TestBadInputBattery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ts := newServer(t, db, env{vars: map[string]string{"RELINK_SHORT_DOMAIN": batteryShort, "RELINK_DEV": "true"}})
		_, key := seed(t, db, "battery", models.PlanEnterprise)
		linkID := jsonOf(t, ts.do(t, req{Method: "POST", Host: apiHost, Path: "/links", Key: key,
			Body: `{"url":"https://example.com/seed","key":"seed"}`}))["id"].(string)
		cookies := batterySignIn(t, ts, db)
		routes := batteryRoutes(ts)
		if len(routes) < 80 {
			t.Fatalf("only %d routes enumerated", len(routes))
		}
		send := func(r batteryRoute, path, query, ct, body string) resp {
			t.Helper()
			host := map[request.Face]string{request.FaceAPI: apiHost, request.FaceApp: appHost, request.FaceShort: batteryShort}[r.face]
			hr := httptest.NewRequest(r.method, "http://"+host+"/", strings.NewReader(body))
			hr.RequestURI = path + query // sent as is, escapes included
			hr.Host = host
			if ct != "" {
				hr.Header.Set("Content-Type", ct)
			}
			if r.face == request.FaceAPI {
				hr.Header.Set("Authorization", "Bearer "+key)
			} else {
				hr.Header.Set("Cookie", cookies.header)
			}
			res, err := ts.Root.Test(hr, -1)
			if err != nil {
				t.Fatalf("%s %s: %v", r.method, path, err)
			}
			return readResp(t, res)
		}
		wantBad := func(r batteryRoute, what, field string, got resp) {
			t.Helper()
			if got.Status != http.StatusBadRequest {
				t.Errorf("%s %s with %s: status %d, want 400; body %.300s", r.method, r.path, what, got.Status, got.Body)
				return
			}
			if r.face == request.FaceAPI {
				if e := errorOf(t, got); e.Code != "bad_request" || !strings.Contains(e.Message, field) {
					t.Errorf("%s %s with %s: %+v, want bad_request naming %q", r.method, r.path, what, e, field)
				}
			}
		}
		wantNo5xx := func(r batteryRoute, what string, got resp) {
			t.Helper()
			if got.Status >= 500 {
				t.Errorf("%s %s with %s: status %d; body %.300s", r.method, r.path, what, got.Status, got.Body)
			}
		}
		long := map[string]string{"2,800 chars": strings.Repeat("x", 2800), "40,000 chars": strings.Repeat("y", 40000),
			"a 3,000-char URL": "https://example.com/" + strings.Repeat("u", 3000)}
		longNames := []string{"2,800 chars", "40,000 chars", "a 3,000-char URL"}
		nlong := 0
		for _, r := range routes {
			good := batteryPath(r.path, linkID, "abc")
			// Path: a NUL and an invalid byte in a parameter (or appended).
			for _, p := range []string{"%00", "%FF"} {
				wantBad(r, "path "+p, "the path", send(r, batteryPath(r.path, linkID, "ab"+p), "", "", ""))
			}
			// Query: NUL and invalid UTF-8 in a value, invalid UTF-8 in a name.
			wantBad(r, "query NUL", "`search`", send(r, good, "?search=a%00b", "", ""))
			wantBad(r, "query invalid UTF-8", "`q`", send(r, good, "?q=%C3%28", "", ""))
			wantBad(r, "query name invalid UTF-8", "query parameter", send(r, good, "?a%FF=1", "", ""))
			if r.method == "GET" || r.method == "DELETE" {
				continue
			}
			base := batteryBodies[r.method+" "+r.path]
			csrf := ""
			if r.face != request.FaceAPI {
				csrf = cookies.csrf
			}
			// Body: a NUL escape in a nested field, raw invalid UTF-8, and a form field.
			wantBad(r, "JSON NUL", "`data.name`", send(r, good, "", "application/json", `{"data":{"name":"a\u0000b"}}`))
			wantBad(r, "JSON invalid UTF-8", "`tags[1]`", send(r, good, "", "application/json", "{\"tags\":[\"ok\",\"\xff\"]}"))
			wantBad(r, "form NUL", "`email`", send(r, good, "", "application/x-www-form-urlencoded", "_csrf="+csrf+"&email=a%00b"))
			// Long values in every field, each alone on a valid base body.
			for _, f := range batteryFields {
				for _, name := range longNames {
					v := long[name]
					if nlong++; !testdb.Every(nlong, 3) { // make test: a third (docs/testing.md)
						continue
					}
					body := map[string]any{}
					for k, bv := range base {
						body[k] = bv
					}
					body[f] = v
					if r.face == request.FaceAPI {
						b, _ := json.Marshal(body)
						wantNo5xx(r, f+" of "+name, send(r, good, "", "application/json", string(b)))
						continue
					}
					form := url.Values{"_csrf": {csrf}}
					for k, bv := range body {
						form.Set(k, fmt.Sprint(bv))
					}
					wantNo5xx(r, f+" of "+name, send(r, good, "", "application/x-www-form-urlencoded", form.Encode()))
				}
			}
		}
		// A 10,000-character analytics query of "é" (the spec's limit) is accepted.
		q := "?event=clicks&groupBy=count&query=" + url.QueryEscape(`metadata['x']:'`+strings.Repeat("é", 9984)+`'`)
		got := send(batteryRoute{request.FaceAPI, "GET", "/analytics"}, "/analytics", q, "", "")
		if got.Status != http.StatusOK {
			t.Errorf("analytics query of 10,000 é: status %d; body %.300s", got.Status, got.Body)
		}
	})
}

var paramRe = regexp.MustCompile(`:[A-Za-z]+\??|\*`)

// batteryPath fills a route's parameters: linkId gets a real link id, the
// others v. A route without parameters gets v appended as a segment only
// when v is a probe (so the probe still reaches the path check).
func batteryPath(route, linkID, v string) string {
	if !paramRe.MatchString(route) {
		if strings.Contains(v, "%") {
			return strings.TrimSuffix(route, "/") + "/" + v
		}
		return route
	}
	first := true
	return paramRe.ReplaceAllStringFunc(route, func(p string) string {
		if p == ":linkId" && !strings.Contains(v, "%") {
			return linkID
		}
		if first {
			first = false
			return v
		}
		return "x"
	})
}

// batteryRoutes enumerates every face's routes (methods that take input).
func batteryRoutes(ts *testServer) []batteryRoute {
	seen := map[string]bool{}
	var out []batteryRoute
	for _, f := range []request.Face{request.FaceAPI, request.FaceApp, request.FaceShort} {
		for _, r := range ts.Face(f).GetRoutes(true) {
			switch r.Method {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
			default:
				continue
			}
			k := string(f) + r.Method + r.Path
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, batteryRoute{f, r.Method, r.Path})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return string(out[i].face)+out[i].path+out[i].method < string(out[j].face)+out[j].path+out[j].method
	})
	return out
}

const batteryPassword = "correct horse battery"

var batteryHash = func() string {
	h, err := bcrypt.GenerateFromPassword([]byte(batteryPassword), bcrypt.MinCost)
	if err != nil {
		panic(err)
	}
	return string(h)
}()

type batteryCookies struct{ header, csrf string }

var csrfRe = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// batterySignIn makes a console owner of the battery workspace and signs in
// through the form.
func batterySignIn(t *testing.T, ts *testServer, db *models.DB) batteryCookies {
	t.Helper()
	ctx := context.Background()
	ws, err := db.WorkspaceBySlug(ctx, "battery")
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.CreateUser(ctx, "owner@example.com", batteryHash)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AddMember(ctx, ws.ID, u.ID, models.RoleOwner); err != nil {
		t.Fatal(err)
	}
	jar := map[string]string{}
	do := func(method, path, body string) (*http.Response, string) {
		hr := httptest.NewRequest(method, "http://"+appHost+path, strings.NewReader(body))
		hr.Host = appHost
		if body != "" {
			hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for k, v := range jar {
			hr.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		res, err := ts.Root.Test(hr, -1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for _, c := range res.Cookies() {
			jar[c.Name] = c.Value
		}
		return res, string(b)
	}
	_, page := do("GET", "/console/login", "")
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the sign-in page")
	}
	res, _ := do("POST", "/console/login", url.Values{"_csrf": {m[1]}, "email": {"owner@example.com"}, "password": {batteryPassword}}.Encode())
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: status %d", res.StatusCode)
	}
	_, page = do("GET", "/console/links", "")
	m = csrfRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the console page")
	}
	var parts []string
	for k, v := range jar {
		parts = append(parts, k+"="+v)
	}
	return batteryCookies{header: strings.Join(parts, "; "), csrf: m[1]}
}
