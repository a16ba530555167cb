package e2e

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/binharness"
	"github.com/relinkhq/relink/internal/testdb"
)

// origins is a server's configuration on fresh loopback ports: the app and
// API origins and a SQLite database unless env names another.
func origins(t *testing.T, env map[string]string) (map[string]string, string, string) {
	t.Helper()
	p := freePorts(t, 2)
	e := map[string]string{
		"RELINK_APP_URL":       "http://localhost:" + p[0],
		"RELINK_API_URL":       "http://localhost:" + p[1],
		"RELINK_SHORT_DOMAIN":  "s.relink.test",
		"RELINK_DATABASE_URL":  "sqlite:" + filepath.Join(t.TempDir(), "relink.db"),
		"RELINK_DATA_DIR":      t.TempDir(),
		"RELINK_CLICK_JOURNAL": "off",
	}
	for k, v := range env {
		e[k] = v
	}
	return e, "http://127.0.0.1:" + p[0], "http://127.0.0.1:" + p[1]
}

// TestRegisteredDomain: a domain added with POST /domains on `relink serve`
// as built is served by the short-link face whatever the Host's case, port or
// trailing dot: its links redirect, its root, notFoundUrl, expiredUrl and
// /.well-known files apply; an unknown Host keeps the fallback (the face of
// the port it arrived on).
func TestRegisteredDomain(t *testing.T) {
	env, app, apiURL := origins(t, nil)
	key := workspace(t, env, "acme")
	start(t, "serve", env)

	aasa := `{"applinks":{"apps":[],"details":[]}}`
	if st := api(t, apiURL, "POST", "/domains", key, map[string]any{"slug": "go.acme.test",
		"notFoundUrl": "https://acme.example/404", "expiredUrl": "https://acme.example/expired",
		"appleAppSiteAssociation": aasa}, nil); st != 201 {
		t.Fatalf("POST /domains: %d", st)
	}
	for _, l := range []map[string]any{
		{"domain": "go.acme.test", "key": "hello", "url": "https://example.com/hello"},
		{"domain": "go.acme.test", "key": "old", "url": "https://example.com/old", "expiresAt": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)},
	} {
		if st := api(t, apiURL, "POST", "/links", key, l, nil); st != 200 {
			t.Fatalf("POST /links %v: %d", l, st)
		}
	}
	port := app[strings.LastIndexByte(app, ':')+1:]
	for _, host := range []string{"go.acme.test", "GO.Acme.Test", "go.acme.test:" + port, "go.acme.test.", "go.acme.test.:" + port, "www.go.acme.test"} {
		if a := get(t, noFollow, app+"/hello", host, nil); a.Status != 302 || a.Location != "https://example.com/hello" {
			t.Errorf("Host %s: /hello = %d %q", host, a.Status, a.Location)
		}
	}
	for _, c := range []struct{ path, want string }{{"/nope", "https://acme.example/404"}, {"/old", "https://acme.example/expired"}} {
		if a := get(t, noFollow, app+c.path, "go.acme.test", nil); a.Status != 307 || a.Location != c.want {
			t.Errorf("%s = %d %q, want 307 %q", c.path, a.Status, a.Location, c.want)
		}
	}
	if a := get(t, noFollow, app+"/", "go.acme.test", nil); a.Status != 200 || !strings.Contains(a.Body, "go.acme.test") {
		t.Errorf("root without a destination: %d, want the placeholder page", a.Status)
	}
	if a := get(t, noFollow, app+"/.well-known/apple-app-site-association", "go.acme.test", nil); a.Status != 200 || a.Body != aasa {
		t.Errorf("apple-app-site-association: %d %q", a.Status, a.Body)
	}
	if a := get(t, noFollow, app+"/healthz", "go.acme.test", nil); !strings.Contains(a.Body, `"face":"short"`) {
		t.Errorf("healthz on the registered domain: %s", a.Body)
	}
	// Unknown host: the app face of the app port, not a redirect.
	if a := get(t, noFollow, app+"/healthz", "go.other.test", nil); !strings.Contains(a.Body, `"face":"app"`) {
		t.Errorf("healthz on an unknown host: %s", a.Body)
	}
	if a := get(t, noFollow, app+"/hello", "go.other.test", nil); a.Status == 302 {
		t.Errorf("an unknown host redirects: %d %q", a.Status, a.Location)
	}
}

// TestDomainChangesAcrossInstances: two `relink serve` processes on one
// PostgreSQL and one Redis. A domain added, renamed, archived and deleted
// through A is served (or no longer) by B at once — well before B's
// 30-second safety-net reload — because the change travels on the link
// cache's Redis channel.
func TestDomainChangesAcrossInstances(t *testing.T) {
	redisURL := redisURL(t)
	dbURL := testdb.URL(t, "postgres")
	envA, _, apiA := origins(t, map[string]string{"RELINK_DATABASE_URL": dbURL, "RELINK_REDIS_URL": redisURL})
	envB, appB, _ := origins(t, map[string]string{"RELINK_DATABASE_URL": dbURL, "RELINK_REDIS_URL": redisURL})
	key := workspace(t, envA, "scale")
	start(t, "A", envA)
	start(t, "B", envB)

	// served checks B's face for host (short: a registered domain) and,
	// when served, that /promo redirects.
	served := func(host string, want bool) func() string {
		return func() string {
			h := get(t, noFollow, appB+"/healthz", host, nil)
			if got := strings.Contains(h.Body, `"face":"short"`); got != want {
				return "B: " + host + " healthz " + h.Body
			}
			if a := get(t, noFollow, appB+"/promo", host, nil); want && (a.Status != 302 || a.Location != "https://example.com/promo") {
				return "B: " + host + "/promo = " + http.StatusText(a.Status) + " " + a.Location
			}
			return ""
		}
	}
	if st := api(t, apiA, "POST", "/domains", key, map[string]any{"slug": "one.acme.test"}, nil); st != 201 {
		t.Fatalf("POST /domains: %d", st)
	}
	if st := api(t, apiA, "POST", "/links", key, map[string]any{"domain": "one.acme.test", "key": "promo", "url": "https://example.com/promo"}, nil); st != 200 {
		t.Fatalf("POST /links: %d", st)
	}
	eventually(t, 3*time.Second, served("one.acme.test", true))
	// Renamed: the new name is served, the old one is an unknown host.
	if st := api(t, apiA, "PATCH", "/domains/one.acme.test", key, map[string]any{"slug": "two.acme.test"}, nil); st != 200 {
		t.Fatalf("PATCH /domains: %d", st)
	}
	eventually(t, 3*time.Second, served("two.acme.test", true))
	eventually(t, 3*time.Second, served("one.acme.test", false))
	// Archived: its links still redirect (as upstream).
	if st := api(t, apiA, "PATCH", "/domains/two.acme.test", key, map[string]any{"archived": true}, nil); st != 200 {
		t.Fatalf("archive: %d", st)
	}
	eventually(t, 3*time.Second, served("two.acme.test", true))
	// Deleted: no longer served.
	if st := api(t, apiA, "DELETE", "/domains/two.acme.test", key, nil, nil); st != 200 {
		t.Fatalf("DELETE /domains: %d", st)
	}
	eventually(t, 3*time.Second, served("two.acme.test", false))
}

// redisURL is RELINK_TEST_REDIS_URL (default the local Redis); the test is
// skipped without one outside CI.
func redisURL(t *testing.T) string { t.Helper(); return binharness.RedisURL(t) }
