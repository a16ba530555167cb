package domaincheck_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/domaincheck"
	"github.com/relinkhq/relink/internal/domaincheck/dnstest"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestCheck: each way a domain's DNS can look, answered by a local DNS
// server, and the status the check gives it.
func TestCheck(t *testing.T) {
	dnsrv := dnstest.Start(t)
	dnsrv.Set(t, "cname.relink.test", "A 192.0.2.10", "AAAA 2001:db8::10")
	dnsrv.Set(t, "go.acme.test", "CNAME cname.relink.test.")
	dnsrv.Set(t, "acme.test", "A 192.0.2.10")
	dnsrv.Set(t, "both.acme.test", "A 192.0.2.10", "AAAA 2001:db8::10")
	dnsrv.Set(t, "elsewhere.acme.test", "A 198.51.100.7")
	dnsrv.Set(t, "mixed.acme.test", "A 192.0.2.10", "A 198.51.100.7")
	dnsrv.Set(t, "via.acme.test", "CNAME lb.vendor.test.")
	dnsrv.Set(t, "lb.vendor.test", "A 192.0.2.10")
	c := &domaincheck.Checker{Target: "cname.relink.test", Server: dnsrv.Addr}
	for _, tc := range []struct {
		domain, status string
		verified       bool
	}{
		{"go.acme.test", domaincheck.StatusValid, true},
		{"Go.Acme.Test.", domaincheck.StatusValid, true},
		{"acme.test", domaincheck.StatusValid, true},
		{"both.acme.test", domaincheck.StatusValid, true},
		{"via.acme.test", domaincheck.StatusValid, true}, // another CNAME to our address
		{"elsewhere.acme.test", domaincheck.StatusInvalid, false},
		{"mixed.acme.test", domaincheck.StatusConflicting, false},
		{"missing.acme.test", domaincheck.StatusInvalid, false},
	} {
		r := c.Check(context.Background(), tc.domain)
		if r.Status != tc.status || r.Verified != tc.verified || !r.Definite {
			t.Errorf("%s: %+v, want %s (verified %v)", tc.domain, r, tc.status, tc.verified)
		}
	}
	// The records to create: a CNAME for a subdomain, A/AAAA always.
	r := c.Check(context.Background(), "new.acme.test")
	want := []domaincheck.Record{{"CNAME", "new.acme.test", "cname.relink.test"}, {"A", "new.acme.test", "192.0.2.10"}, {"AAAA", "new.acme.test", "2001:db8::10"}}
	if len(r.Expected) != len(want) {
		t.Fatalf("expected records %+v, want %+v", r.Expected, want)
	}
	for i := range want {
		if r.Expected[i] != want[i] {
			t.Errorf("expected record %d: %+v, want %+v", i, r.Expected[i], want[i])
		}
	}
	if got := c.Check(context.Background(), "acme.test").Expected; len(got) != 2 || got[0].Type != "A" {
		t.Errorf("apex domain: %+v, want A and AAAA only (no CNAME at an apex)", got)
	}
	// Configured addresses win over the target's.
	c2 := &domaincheck.Checker{Target: "cname.relink.test", Server: dnsrv.Addr, Addresses: []netip.Addr{netip.MustParseAddr("198.51.100.7")}}
	if r := c2.Check(context.Background(), "elsewhere.acme.test"); !r.Verified {
		t.Errorf("RELINK_DOMAIN_ADDRESSES: %+v", r)
	}
	// A DNS server that does not answer concludes nothing.
	dead := &domaincheck.Checker{Target: "cname.relink.test", Server: "127.0.0.1:1", Timeout: 300 * time.Millisecond}
	if r := dead.Check(context.Background(), "go.acme.test"); r.Definite || r.Status != domaincheck.StatusUnknown || r.Answer.Error == "" {
		t.Errorf("dead resolver: %+v", r)
	}
}

// TestJob: the job verifies a domain once its DNS is right, backs off while
// it is not (1, 2, 4 … minutes), keeps a verified domain's state when the
// DNS does not answer, and re-checks verified ones daily; a rename makes
// the domain unverified and due at once.
func TestJob(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		dnsrv := dnstest.Start(t)
		dnsrv.Set(t, "cname.relink.test", "A 192.0.2.10")
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		svc := &domaincheck.Service{DB: db, Now: clock, Log: testLogger(t),
			Checker: &domaincheck.Checker{Target: "cname.relink.test", Server: dnsrv.Addr}}
		ws, err := db.CreateWorkspace(ctx, "Acme", "acme-"+ids.Nano(4), models.PlanPro)
		if err != nil {
			t.Fatal(err)
		}
		d := &models.Domain{ID: ids.New(ids.Domain), WorkspaceID: ws.ID, Slug: "go.acme.test", CreatedAt: now, UpdatedAt: now}
		if err := db.InsertDomain(ctx, d); err != nil {
			t.Fatal(err)
		}
		load := func() *models.Domain {
			got, err := db.DomainByName(ctx, d.Slug)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		round := func() {
			if err := svc.Run(ctx); err != nil {
				t.Fatal(err)
			}
		}
		round() // not pointed yet
		for i, wait := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute} {
			got := load()
			if got.Verified || got.CheckFailures != i+1 || !got.NextCheckAt.Equal(now.Add(wait)) || *got.DNSStatus != domaincheck.StatusInvalid {
				t.Fatalf("after %d failed checks: verified %v, failures %d, next %v (want +%v)", i+1, got.Verified, got.CheckFailures, got.NextCheckAt, wait)
			}
			round() // not due: nothing happens
			if load().CheckFailures != i+1 {
				t.Fatal("a domain not due was checked")
			}
			now = now.Add(wait)
			round()
		}
		dnsrv.Set(t, "go.acme.test", "CNAME cname.relink.test.")
		now = now.Add(8 * time.Minute)
		round()
		got := load()
		if !got.Verified || got.CheckFailures != 0 || !got.NextCheckAt.Equal(now.Add(domaincheck.Recheck)) {
			t.Fatalf("pointed domain: verified %v, failures %d, next %v", got.Verified, got.CheckFailures, got.NextCheckAt)
		}
		if r := svc.Last(got); r.Status != domaincheck.StatusValid || len(r.Answer.CNAME) != 1 {
			t.Errorf("stored answer: %+v", r)
		}
		// The DNS stops answering: still verified, re-checked after a backoff.
		svc.Checker.Server, svc.Checker.Timeout = "127.0.0.1:1", 200*time.Millisecond
		now = now.Add(domaincheck.Recheck)
		round()
		if got := load(); !got.Verified || *got.DNSStatus != domaincheck.StatusUnknown {
			t.Fatalf("resolver down: verified %v, status %v", got.Verified, *got.DNSStatus)
		}
		// Renamed: unverified and due now.
		got = load()
		old := got.Slug
		got.Slug = "links.acme.test"
		if err := db.SaveDomain(ctx, got, old); err != nil {
			t.Fatal(err)
		}
		if got := load2(t, db, "links.acme.test"); got.Verified || got.NextCheckAt != nil || got.DNSStatus != nil {
			t.Fatalf("renamed domain keeps its verification: %+v", got)
		}
	})
}

func load2(t *testing.T, db *models.DB, name string) *models.Domain {
	t.Helper()
	d, err := db.DomainByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
