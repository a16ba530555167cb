package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
)

func TestImportCommand(t *testing.T) {
	if r := relink(t, nil, "import", "--help"); r.code != 0 || !strings.Contains(r.stdout, "relink import csv FILE") || !strings.Contains(r.stdout, "shlink") {
		t.Fatalf("help: exit %d %q", r.code, r.stdout)
	}
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			env := map[string]string{"RELINK_DATABASE_URL": testdb.URL(t, dialect)}
			if r := relink(t, env, "workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "pro"); r.code != 0 {
				t.Fatalf("workspace: %s", r.stderr)
			}
			file := filepath.Join(t.TempDir(), "links.csv")
			csv := "Short URL,Destination,Labels\nhttps://go.acme.com/a,https://acme.com/a,\"x,y\"\nhttps://go.acme.com/b,,\n"
			if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
				t.Fatal(err)
			}
			r := relink(t, env, "import", "csv", file, "--workspace", "acme", "--map", "link=Short URL,url=Destination,tags=Labels")
			if r.code != 0 || !strings.Contains(r.stdout, "2 links read: 1 created, 0 skipped, 1 failed") ||
				!strings.Contains(r.stdout, "failed row 2 go.acme.com/b: Missing required field: url") ||
				!strings.Contains(r.stdout, "created tags: x, y") || !strings.Contains(r.stderr, "[##############################] 2/2") {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
			// Again: the link exists now and is skipped.
			r = relink(t, env, "import", "csv", file, "--workspace", "acme", "--map", "link=Short URL,url=Destination")
			if r.code != 0 || !strings.Contains(r.stdout, "skipped row 1 go.acme.com/a: short link already exists") {
				t.Fatalf("second run: exit %d %s %s", r.code, r.stdout, r.stderr)
			}
			for _, tc := range []struct {
				args []string
				code int
				want string
			}{
				{[]string{"import", "csv", file}, 2, "--workspace is required"},
				{[]string{"import", "csv", file, "--workspace", "acme", "--map", "link=Nope"}, 1, `column "Nope"`},
				{[]string{"import", "csv", file, "--workspace", "nope"}, 1, "workspace nope"},
				{[]string{"import", "bitly", "--workspace", "acme"}, 2, "needs an API token"},
				{[]string{"import", "myspace", "--workspace", "acme", "--token", "x"}, 2, "unknown source"},
			} {
				if r := relink(t, env, tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
					t.Errorf("%v: exit %d %q, want %d %q", tc.args, r.code, r.stderr, tc.code, tc.want)
				}
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-API-KEY") != "good" {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				w.Write([]byte(`{"data":[{"address":"k1","target":"https://acme.com/k","link":"https://k.acme.com/k1","created_at":"2020-01-01T00:00:00Z"}],"total":1}`))
			}))
			defer srv.Close()
			r = relink(t, env, "import", "kutt", "--workspace", "acme", "--token", "bad", "--base-url", srv.URL)
			if r.code != 1 || !strings.Contains(r.stderr, "Kutt: the service refused the API token (HTTP 401") {
				t.Fatalf("bad token: exit %d %s", r.code, r.stderr)
			}
			r = relink(t, env, "import", "kutt", "--workspace", "acme", "--token", "good", "--base-url", srv.URL, "--json")
			if r.code != 0 || !strings.Contains(r.stdout, `"created": 1`) {
				t.Fatalf("kutt: exit %d %s %s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
