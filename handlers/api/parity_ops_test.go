package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// memberKey adds a user with role to workspace ws and a key named name
// acting as that user; it returns the user id.
func (e *linkEnv) memberKey(name, ws string, role models.Role) string {
	e.t.Helper()
	ctx := context.Background()
	u, err := e.db.CreateUser(ctx, name+"@members.example", "")
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.AddMember(ctx, e.ws[ws].ID, u.ID, role); err != nil {
		e.t.Fatal(err)
	}
	_, token, err := e.db.CreateAPIKey(ctx, e.ws[ws].ID, name, &u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	e.keys[name] = token
	return u.ID
}

// TestCreateCustomer: POST /customers (spec/parity.md §10).
func TestCreateCustomer(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		e.workspace("other", models.PlanBusiness)
		e.workspace("pro", models.PlanPro)
		leaver := e.memberKey("leaver", "acme", models.RoleMember)

		c := e.ok(201, "acme", "POST", "/customers", `{"externalId":"u_1","country":"DE","email":"ann@example.com","avatar":"https://cdn.example/a.png","stripeCustomerId":"cus_stripe"}`).json(t)
		if !strings.HasPrefix(c["id"].(string), "cus_") || c["externalId"] != "u_1" || c["country"] != "DE" || c["name"] != "ann@example.com" ||
			c["avatar"] != "https://cdn.example/a.png" || c["stripeCustomerId"] != "cus_stripe" || c["sales"] != float64(0) || c["saleAmount"] != float64(0) {
			t.Fatalf("customer %v", c)
		}
		for _, k := range []string{"link", "partner", "programId", "discount"} {
			if _, ok := c[k]; ok {
				t.Errorf("non-expanded customer has %s", k)
			}
		}
		got := e.ok(200, "acme", "GET", "/customers/ext_u_1", "").json(t)
		if got["id"] != c["id"] || got["name"] != "ann@example.com" {
			t.Fatalf("read back %v", got)
		}
		named := e.ok(201, "acme", "POST", "/customers", `{"externalId":"u_2","country":"US"}`).json(t)
		if n, _ := named["name"].(string); len(strings.Fields(n)) != 3 {
			t.Errorf("random name %q", n)
		}
		// The same externalId in another workspace is fine.
		e.ok(201, "other", "POST", "/customers", `{"externalId":"u_1","country":"DE"}`)

		for _, tc := range []struct {
			key, body string
			status    int
			code, msg string
		}{
			{"acme", `{"externalId":"u_1","country":"DE"}`, 409, "conflict", "A customer with this external ID already exists."},
			{"acme", `{"country":"DE"}`, 422, "unprocessable_entity", "invalid_type: externalId: External ID is required"},
			{"acme", `{"externalId":7,"country":"DE"}`, 422, "unprocessable_entity", "invalid_type: externalId: External ID is required"},
			{"acme", `{"externalId":"x"}`, 422, "unprocessable_entity", "invalid_type: country: Invalid input: expected string, received undefined"},
			{"acme", `{"externalId":"x","country":"DE","email":"nope"}`, 422, "unprocessable_entity", "invalid_format: email: Invalid email address"},
			{"acme", `{"email":"nope"}`, 422, "unprocessable_entity", "invalid_format: email: Invalid email address"}, // schema order: email first
			{"acme", `{"externalId":"x","country":"DE","avatar":"not a url"}`, 422, "unprocessable_entity", "invalid_format: avatar: Invalid URL"},
			{"acme", `{"externalId":`, 400, "bad_request", "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
			{"pro", `{"externalId":"x","country":"DE"}`, 403, "forbidden", "Unauthorized: Need higher plan."},
		} {
			e.expectErr(e.do(tc.key, "POST", "/customers", tc.body), tc.status, tc.code, tc.msg)
		}
		// A key acts as its user: gone from the workspace, gone the access.
		e.ok(201, "leaver", "POST", "/customers", `{"externalId":"by_member","country":"DE"}`)
		if err := db.RemoveMember(context.Background(), e.ws["acme"].ID, leaver); err != nil {
			t.Fatal(err)
		}
		e.expectErr(e.do("leaver", "POST", "/customers", `{"externalId":"x","country":"DE"}`), 404, "not_found", "Workspace not found.")
	})
}

// TestDomainRegistrarRoutes: GET /domains/status and POST /domains/register
// run their gates and validation, then refuse (no registrar, spec/parity.md §11.1).
func TestDomainRegistrarRoutes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("ent", models.PlanEnterprise)
		e.workspace("adv", models.PlanAdvanced)
		e.scopedKey("readonly", "ent", "links.read")
		for _, tc := range []struct {
			key, method, path, body string
			status                  int
			code, msg               string
		}{
			{"ent", "GET", "/domains/status?domains=acme.link,acme.com", "", 403, "forbidden", "GET /domains/status is not available for your workspace. Contact support for more information."},
			{"ent", "GET", "/domains/status", "", 422, "unprocessable_entity", "invalid_union: domains: Invalid input"},
			{"ent", "GET", "/domains/status?domains=acme.com", "", 400, "bad_request", "You must provide at least one domain to check. We only support .link domains for now."},
			{"ent", "GET", "/domains/status?domains=ACME.LINK", "", 403, "forbidden", "GET /domains/status is not available for your workspace. Contact support for more information."},
			{"adv", "GET", "/domains/status?domains=acme.link", "", 403, "forbidden", "Unauthorized: Need higher plan."},
			{"readonly", "GET", "/domains/status?domains=acme.link", "", 403, "forbidden", "The provided key does not have the required permissions for this endpoint on the workspace '" + e.ws["ent"].PublicID() + "'. Having the 'domains.read' permission would allow this request to continue."},
			{"ent", "POST", "/domains/register", `{"domain":"acme.link"}`, 403, "forbidden", "POST /domains/register is not available for your workspace. Contact support for more information."},
			{"ent", "POST", "/domains/register", `{"domain":"acme.com"}`, 422, "unprocessable_entity", `invalid_format: domain: Invalid string: must end with ".link"`},
			{"ent", "POST", "/domains/register", `{"domain":"ACME.LINK"}`, 422, "unprocessable_entity", `invalid_format: domain: Invalid string: must end with ".link"`},
			{"ent", "POST", "/domains/register", `{"domain":""}`, 422, "unprocessable_entity", "too_small: domain: Domain to register is required."},
			{"ent", "POST", "/domains/register", `{}`, 422, "unprocessable_entity", "invalid_type: domain: Invalid input: expected string, received undefined"},
			{"adv", "POST", "/domains/register", `{"domain":"acme.link"}`, 403, "forbidden", "Unauthorized: Need higher plan."},
		} {
			e.expectErr(e.do(tc.key, tc.method, tc.path, tc.body), tc.status, tc.code, tc.msg)
		}
	})
}

// TestPrimaryDomainAndDeepview: POST /domains/{slug}/primary moves the
// primary flag; deepviewData is validated, stored compact and echoed on
// every Domain answer (spec/parity.md §11.2, §11.4).
func TestPrimaryDomainAndDeepview(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanPro)
		e.workspace("other", models.PlanPro)
		first := e.ok(201, "acme", "POST", "/domains", `{"slug":"one.link"}`).json(t)
		// A new domain's deepviewData is Dub's column default "{}" (issue 36).
		if first["primary"] != true || first["deepviewData"] != "{}" {
			t.Fatalf("first domain %v", first)
		}
		if _, ok := first["deepviewData"]; !ok {
			t.Fatal("deepviewData key missing")
		}
		two := e.ok(201, "acme", "POST", "/domains", `{"slug":"two.link","deepviewData":"{ \"variant\" : \"minimal\",\n \"appName\": \"Acme\" }"}`).json(t)
		if two["primary"] != false || two["deepviewData"] != `{"variant":"minimal","appName":"Acme"}` {
			t.Fatalf("second domain %v", two)
		}
		e.ok(201, "other", "POST", "/domains", `{"slug":"theirs.link"}`)

		p := e.ok(200, "acme", "POST", "/domains/two.link/primary", "").json(t)
		if p["slug"] != "two.link" || p["primary"] != true || p["deepviewData"] != `{"variant":"minimal","appName":"Acme"}` {
			t.Fatalf("primary answer %v", p)
		}
		for _, d := range e.ok(200, "acme", "GET", "/domains", "").list(t) {
			if (d["slug"] == "two.link") != (d["primary"] == true) {
				t.Errorf("after primary: %v", d)
			}
		}
		// The other workspace's primary is untouched.
		if d := e.ok(200, "other", "GET", "/domains", "").list(t); d[0]["primary"] != true {
			t.Errorf("other workspace %v", d)
		}
		e.expectErr(e.do("acme", "POST", "/domains/nope.link/primary", ""), 404, "not_found", "Domain nope.link not found.")
		e.expectErr(e.do("acme", "POST", "/domains/theirs.link/primary", ""), 403, "forbidden", "Domain theirs.link does not belong to workspace "+e.ws["acme"].PublicID()+".")
		e.expectErr(e.do("acme", "POST", "/domains/localhost:8080/primary", ""), 403, "forbidden", "Domain localhost:8080 does not belong to workspace "+e.ws["acme"].PublicID()+".")

		for _, tc := range []struct {
			body string
			want any
		}{
			{`{"deepviewData":"0"}`, nil}, // falsy values echo as null
			{`{"deepviewData":"false"}`, nil},
			{`{"deepviewData":"[1, 2]"}`, "[1,2]"},
			{`{"deepviewData":""}`, nil},
			{`{"deepviewData":"{\"a\":1}"}`, `{"a":1}`},
			{`{"archived":false}`, `{"a":1}`}, // absent: unchanged
			{`{"deepviewData":null}`, nil},
		} {
			got := e.ok(200, "acme", "PATCH", "/domains/one.link", tc.body).json(t)
			if got["deepviewData"] != tc.want {
				t.Errorf("%s: deepviewData %v, want %v", tc.body, got["deepviewData"], tc.want)
			}
		}
		e.expectErr(e.do("acme", "PATCH", "/domains/one.link", `{"deepviewData":"{x"}`), 422, "unprocessable_entity", "Invalid Deep View data")
		e.expectErr(e.do("acme", "PATCH", "/domains/one.link", `{"deepviewData":5}`), 422, "unprocessable_entity", "invalid_type: deepviewData: Invalid input: expected string, received number")
	})
}

// TestMetatags: GET /links/metatags validates its url, never reaches the
// server's own network (a loopback page gives the fallback built from the
// URL) and is limited per IP (spec/parity.md §12).
func TestMetatags(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<title>Secret intranet page</title>`)
		}))
		defer page.Close()
		for _, tc := range []struct {
			query     string
			status    int
			code, msg string
		}{
			{"", 422, "unprocessable_entity", "invalid_type: url: Invalid input: expected string, received null"},
			{"?url=not%20a%20url", 422, "unprocessable_entity", "custom: url: Invalid URL"},
		} {
			e.expectErr(e.do("", "GET", "/links/metatags"+tc.query, ""), tc.status, tc.code, tc.msg)
		}
		r := e.ok(200, "", "GET", "/links/metatags?url="+page.URL+"/blog/my-first-post", "")
		m := r.json(t)
		if m["title"] != "My First Post" || m["description"] != "Visit 127.0.0.1/blog/my-first-post" || m["image"] != nil ||
			m["poweredBy"] != "Dub - The Modern Link Attribution Platform" {
			t.Fatalf("loopback page: %v (must be the fallback, not the page)", m)
		}
		if r.header.Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("cache-control %q", r.header.Get("Cache-Control"))
		}
		// A scheme-less URL gets https:// (a dot and no space).
		if m := e.ok(200, "", "GET", "/links/metatags?url=acme.invalid/pricing-plans", "").json(t); m["title"] != "Pricing Plans" {
			t.Errorf("schemeless: %v", m)
		}
		limited := false
		for i := 0; i < 12 && !limited; i++ {
			limited = e.do("", "GET", "/links/metatags?url=acme.invalid/x", "").status == 429
		}
		if !limited {
			t.Error("no 429 after 14 requests in 10 seconds")
		}
	})
}
