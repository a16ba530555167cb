package console_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/domaincheck/dnstest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestDomainDNS: the domains page shows a new domain as not verified with
// the exact record to create; once the DNS answers with it, "Check DNS"
// verifies the domain and the page shows the answer.
func TestDomainDNS(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		dnsrv := dnstest.Start(t)
		dnsrv.Set(t, "cname.relink.test", "A 192.0.2.10")
		e := newEnvWith(t, db, map[string]string{"RELINK_DOMAIN_TARGET": "cname.relink.test", "RELINK_DNS_RESOLVER": dnsrv.Addr})
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/domains", map[string][]string{"slug": {"go.acme.test"}}), http.StatusSeeOther)

		r := c.get("/console/domains")
		if r.text(t, `[data-testid="domain-unverified"]`) == "" {
			t.Fatal("a new domain is not shown as not verified")
		}
		if records := r.text(t, `[data-testid="domain-dns-records"]`); !strings.Contains(records, "CNAMEgo.acme.testcname.relink.test") {
			t.Errorf("record to create before the first check: %q", records)
		}
		wantStatus(t, c.post("/console/domains/go.acme.test/verify", nil), http.StatusSeeOther)
		r = c.get("/console/domains")
		// Checked: the A record with the target's address is offered too.
		records := r.text(t, `[data-testid="domain-dns-records"]`)
		for _, want := range []string{"CNAMEgo.acme.testcname.relink.test", "Ago.acme.test192.0.2.10"} {
			if !strings.Contains(records, want) {
				t.Errorf("records to create %q: no %q", records, want)
			}
		}
		if got := r.text(t, `[data-testid="domain-dns-current"]`); !strings.Contains(got, "no such domain") {
			t.Errorf("answer before the record exists: %q", got)
		}
		if r.text(t, `[data-testid="domain-verified"]`) != "" {
			t.Fatal("verified before its DNS points here")
		}

		dnsrv.Set(t, "go.acme.test", "CNAME cname.relink.test.")
		wantStatus(t, c.post("/console/domains/go.acme.test/verify", nil), http.StatusSeeOther)
		r = c.get("/console/domains")
		if r.text(t, `[data-testid="domain-verified"]`) == "" {
			t.Fatal("not verified after its CNAME points here")
		}
		if got := r.text(t, `[data-testid="domain-dns-current"]`); !strings.Contains(got, "CNAME cname.relink.test") {
			t.Errorf("current answer %q", got)
		}
		// Another workspace cannot check it.
		e.seedWorkspace("Other", "other", "owner@other.test")
		o := e.client()
		o.signIn("owner@other.test")
		if r := o.post("/console/domains/go.acme.test/verify", nil); r.StatusCode < 400 {
			t.Errorf("another workspace checked the domain: %d", r.StatusCode)
		}
	})
}
