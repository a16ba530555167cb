package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
)

// TestCommandChangesReachServers: a command of the CLI builds its services
// with app.BuildCommand, as serve does, so a link it creates invalidates a
// running server's link cache through Redis: the server had cached the key
// as unknown (a 404, kept 10 s), and redirects it as soon as `relink import`
// has created it, not when that entry expires.
func TestCommandChangesReachServers(t *testing.T) {
	const short = "go.acme.test"
	env := map[string]string{
		"RELINK_DATABASE_URL":       testdb.URL(t, "sqlite"),
		"RELINK_REDIS_URL":          testRedisURL(t),
		"RELINK_SHORT_DOMAIN":       short,
		"RELINK_CLICK_DEDUP_WINDOW": "0",
		"RELINK_LOG_FORMAT":         "json",
	}
	if r := relink(t, env, "workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "pro"); r.code != 0 {
		t.Fatalf("workspace create: exit %d: %s", r.code, r.stderr)
	}
	srv := startInstance(t, "server", env)
	if st, _ := srv.redirect(t, short, "spring", "203.0.113.1"); st != 404 {
		t.Fatalf("/spring before the import = %d, want 404", st)
	}
	unknownSince := time.Now() // the server now caches spring as unknown for 10 s

	file := filepath.Join(t.TempDir(), "links.csv")
	if err := os.WriteFile(file, []byte("link,url\nhttps://"+short+"/spring,https://acme.test/spring\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := relink(t, env, "import", "csv", file, "--workspace", "acme"); r.code != 0 || !strings.Contains(r.stdout, "1 created") {
		t.Fatalf("import: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if time.Since(unknownSince) > 8*time.Second {
		t.Skip("the import took longer than the not-found entry lives: this run cannot tell an invalidation from an expiry")
	}
	for {
		st, loc := srv.redirect(t, short, "spring", "203.0.113.2")
		if st == 302 && loc == "https://acme.test/spring" {
			return
		}
		if time.Since(unknownSince) > 9*time.Second {
			t.Fatalf("/spring = %d %q until the not-found entry was about to expire: the import's link never invalidated the server's cache", st, loc)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
