package api_test

import (
	"testing"

	"github.com/relinkhq/relink/internal/domaincheck/dnstest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestVerifyDomain: GET /domains/{slug}/verify checks the DNS now and
// answers Dub's shape (status, response, domainConnect); the domain's
// verified follows; another workspace's domain is refused as GET
// /domains/{slug} refuses it.
func TestVerifyDomain(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		dnsrv := dnstest.Start(t)
		dnsrv.Set(t, "cname.relink.test", "A 192.0.2.10")
		chk := e.srv.Services().DomainChecks.Checker
		chk.Target, chk.Server = "cname.relink.test", dnsrv.Addr
		e.workspace("acme", models.PlanPro)
		e.workspace("other", models.PlanPro)
		if r := e.do("acme", "POST", "/domains", `{"slug":"go.acme.test"}`); r.status != 201 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		verify := func(want string, verified bool) map[string]any {
			t.Helper()
			r := e.do("acme", "GET", "/domains/go.acme.test/verify", "")
			if r.status != 200 {
				t.Fatalf("verify: %d %s", r.status, r.body)
			}
			m := r.json(t)
			resp := m["response"].(map[string]any)
			if m["status"] != want || resp["verified"] != verified {
				t.Fatalf("verify: %s, want %s (verified %v)", r.body, want, verified)
			}
			g := e.do("acme", "GET", "/domains/go.acme.test", "").json(t)
			if g["verified"] != verified {
				t.Fatalf("GET /domains/{slug} verified %v, want %v", g["verified"], verified)
			}
			return resp
		}
		resp := verify("Invalid Configuration", false)
		exp := resp["expected"].([]any)[0].(map[string]any)
		if exp["type"] != "CNAME" || exp["name"] != "go.acme.test" || exp["value"] != "cname.relink.test" {
			t.Errorf("expected record %v", exp)
		}
		dnsrv.Set(t, "go.acme.test", "A 192.0.2.10", "A 198.51.100.1")
		verify("Conflicting DNS Records", false)
		dnsrv.Set(t, "go.acme.test", "CNAME cname.relink.test.")
		resp = verify("Valid Configuration", true)
		if cur := resp["current"].(map[string]any); len(cur["cname"].([]any)) != 1 {
			t.Errorf("current answer %v", cur)
		}
		e.expectErr(e.do("other", "GET", "/domains/go.acme.test/verify", ""), 403, "forbidden", "Domain go.acme.test does not belong to workspace ws_"+e.ws["other"].ID+".")
		e.expectErr(e.do("acme", "GET", "/domains/none.acme.test/verify", ""), 404, "not_found", "Domain none.acme.test not found.")
	})
}
