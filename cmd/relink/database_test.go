package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingDatabaseRefused: a command that reads or changes an existing
// database refuses a missing SQLite file instead of creating an empty one
// (issue 33 item 6), and every command says which database it opened.
func TestMissingDatabaseRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "relink.db")
	env := map[string]string{"RELINK_DATABASE_URL": "sqlite:" + path}
	for _, args := range [][]string{{"program", "show", "--workspace", "acme"}, {"import", "csv", "links.csv", "--workspace", "acme"},
		{"stripe", "status", "--workspace", "acme"}} {
		r := relink(t, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "no database at "+path) {
			t.Errorf("%v: code %d, stderr %q", args, r.code, r.stderr)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("%v created %s", args, path)
		}
	}
	r := relink(t, env, "workspace", "create", "--name", "Acme", "--slug", "acme")
	if r.code != 0 || !strings.Contains(r.stderr, "url=sqlite:"+path) {
		t.Fatalf("workspace create: code %d, stderr %q", r.code, r.stderr)
	}
	r = relink(t, env, "program", "show", "--workspace", "acme")
	if r.code != 0 || !strings.Contains(r.stderr, "url=sqlite:"+path) {
		t.Errorf("program show on the created database: code %d, stderr %q", r.code, r.stderr)
	}
	if r := relink(t, env, "nonsense"); !strings.Contains(r.stderr, `unknown command "nonsense"`) {
		t.Errorf("unknown command: %q", r.stderr)
	}
}
