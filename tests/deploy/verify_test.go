package deploy

import (
	"path/filepath"
	"testing"

	"github.com/relinkhq/relink/internal/domaincheck/dnstest"
)

// TestDomainVerification: the built binary, pointed at a local DNS server
// by RELINK_DNS_RESOLVER, verifies a domain once its CNAME names
// RELINK_DOMAIN_TARGET, and an apex domain by its A record naming
// RELINK_DOMAIN_ADDRESSES, through GET /domains/{slug}/verify.
func TestDomainVerification(t *testing.T) {
	dnsrv := dnstest.Start(t)
	dnsrv.Set(t, "cname.relink.test", "A 192.0.2.10")
	dir := t.TempDir()
	env := map[string]string{
		"RELINK_DATABASE_URL":     "sqlite:" + filepath.Join(dir, "relink.db"),
		"RELINK_DATA_DIR":         filepath.Join(dir, "data"),
		"RELINK_DOMAIN_TARGET":    "cname.relink.test",
		"RELINK_DOMAIN_ADDRESSES": "192.0.2.10,2001:db8::10",
		"RELINK_DNS_RESOLVER":     dnsrv.Addr,
	}
	key := createWorkspace(t, env, "acme", "pro")
	srv := startServer(t, env)
	type verify struct {
		Status   string
		Response struct {
			Verified bool
			Expected []struct{ Type, Name, Value string }
		}
	}
	check := func(domain, status string, verified bool) verify {
		t.Helper()
		var v verify
		srv.must(t, "GET", "/domains/"+domain+"/verify", key, nil, &v)
		if v.Status != status || v.Response.Verified != verified {
			t.Fatalf("%s: %+v, want %s (verified %v)", domain, v, status, verified)
		}
		return v
	}
	srv.must(t, "POST", "/domains", key, map[string]any{"slug": "go.acme.test"}, nil)
	srv.must(t, "POST", "/domains", key, map[string]any{"slug": "acme.test"}, nil)
	v := check("go.acme.test", "Invalid Configuration", false)
	if len(v.Response.Expected) != 3 || v.Response.Expected[0].Type != "CNAME" || v.Response.Expected[2].Value != "2001:db8::10" {
		t.Errorf("records to create: %+v", v.Response.Expected)
	}
	dnsrv.Set(t, "go.acme.test", "CNAME cname.relink.test.")
	check("go.acme.test", "Valid Configuration", true)
	dnsrv.Set(t, "acme.test", "A 203.0.113.5")
	check("acme.test", "Invalid Configuration", false)
	dnsrv.Set(t, "acme.test", "A 192.0.2.10", "AAAA 2001:db8::10")
	check("acme.test", "Valid Configuration", true)
}
