package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCommandHelp: `relink <command> --help` (and -h, and `relink <command>
// help`) prints that command's own help on stdout and exits 0 for every
// command the usage lists, without touching the database: the configured
// database's directory does not exist, and nothing is created.
func TestCommandHelp(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "absent", "relink.db")
	env := map[string]string{"RELINK_DATABASE_URL": "sqlite:" + dbPath}
	cmds := regexp.MustCompile(`(?m)^  relink ([a-z]+)`).FindAllStringSubmatch(usage, -1)
	if len(cmds) < 7 {
		t.Fatalf("usage lists %d commands", len(cmds))
	}
	for _, m := range cmds {
		cmd := m[1]
		want, ok := commandHelp(cmd)
		if !ok {
			t.Errorf("%s: no help", cmd)
			continue
		}
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {cmd, "help"}, {cmd, "create", "--help"}} {
			r := relink(t, env, args...)
			if r.code != 0 || r.stdout != want || r.stderr != "" {
				t.Errorf("relink %s: exit %d, stderr %q, stdout %.80q", strings.Join(args, " "), r.code, r.stderr, r.stdout)
			}
		}
		if !strings.Contains(want, "relink "+cmd) {
			t.Errorf("%s help does not name the command: %.80q", cmd, want)
		}
	}
	// Every flag of `relink demo` is in its help.
	fs, _ := demoFlags()
	h, _ := commandHelp("demo")
	for _, f := range []string{"workspace", "links", "clicks", "leads", "sales", "days", "partners", "seed"} {
		if fs.Lookup(f) == nil || !strings.Contains(h, "-"+f) {
			t.Errorf("demo help lacks -%s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "absent")); !os.IsNotExist(err) {
		t.Errorf("asking for help touched the database directory: %v", err)
	}
	// Not a help request: the command still runs (and fails on its own terms).
	if r := relink(t, env, "demo"); r.code != 2 || !strings.Contains(r.stderr, "--workspace is required") {
		t.Errorf("relink demo without flags: %d %q", r.code, r.stderr)
	}
}
