package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// systemdAnalyze is systemd-analyze's path; CI installs systemd (.ci/run),
// elsewhere the test is skipped without it.
func systemdAnalyze(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("systemd-analyze is not installed (.ci/run installs systemd)")
		}
		t.Skip("systemd-analyze is not installed")
	}
	return p
}

// TestSystemdUnit: deploy/relink.service passes `systemd-analyze verify`
// and its offline security review stays at "OK" (exposure under 2.0), and
// it keeps what docs/deploy.md promises: its own user, the state directory
// holding the SQLite database and the click journal, restarts on failure.
//
// The container runs no systemd as PID 1, so verify runs against a root
// directory (--root) holding the system's unit files, the unit and the
// built binary at the unit's ExecStart path: verify checks that the command
// exists and is executable.
func TestSystemdUnit(t *testing.T) {
	analyze := systemdAnalyze(t)
	unit, err := os.ReadFile("../../deploy/relink.service")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	units := "/usr/lib/systemd/system"
	if _, err := os.Stat(units); err != nil {
		units = "/lib/systemd/system"
	}
	for _, p := range []string{"usr/lib/systemd", "usr/local/bin", "etc/systemd/system"} {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "cp", "-r", units, filepath.Join(root, "usr/lib/systemd/"))
	if err := os.Link(relinkBin, filepath.Join(root, "usr/local/bin/relink")); err != nil {
		mustRun(t, "cp", relinkBin, filepath.Join(root, "usr/local/bin/relink"))
	}
	if err := os.WriteFile(filepath.Join(root, "etc/systemd/system/relink.service"), unit, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(analyze, "verify", "--root="+root, "relink.service").CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err := exec.Command(analyze, "security", "--offline=true", "--threshold=20", "../../deploy/relink.service").CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: exposure over 2.0: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Log(lines[len(lines)-1])

	set := unitSettings(string(unit))
	for k, want := range map[string]string{"User": "relink", "StateDirectory": "relink", "Restart": "on-failure",
		"ProtectSystem": "strict", "NoNewPrivileges": "yes", "ExecStart": "/usr/local/bin/relink serve"} {
		if set[k] != want {
			t.Errorf("%s=%q, want %q", k, set[k], want)
		}
	}
	for _, want := range []string{"RELINK_DATABASE_URL=sqlite:/var/lib/relink/", "RELINK_DATA_DIR=/var/lib/relink/"} {
		if !strings.Contains(set["Environment"], want) {
			t.Errorf("Environment has no %s…: %q", want, set["Environment"])
		}
	}
}

// TestUnitEnvironmentStarts: the unit's environment plus the example
// deploy/relink.env (state directory moved to a temporary one, session keys
// added) is a configuration relink accepts: `relink migrate` creates the
// database where the unit says.
func TestUnitEnvironmentStarts(t *testing.T) {
	unit, err := os.ReadFile("../../deploy/relink.service")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("../../deploy/relink.env")
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	env := map[string]string{}
	for _, kv := range strings.Split(unitSettings(string(unit))["Environment"], "\n") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = strings.ReplaceAll(v, "/var/lib/relink", state)
	}
	sc := bufio.NewScanner(strings.NewReader(string(example)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		env[k] = v
	}
	env["RELINK_SESSION_KEYS"] = strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32)
	out := relinkCmd(t, env, "migrate")
	if !strings.Contains(out, "up to date") {
		t.Fatalf("relink migrate: %s", out)
	}
	if _, err := os.Stat(filepath.Join(state, "relink.db")); err != nil {
		t.Fatalf("the unit's database: %v", err)
	}
	if st := relinkCmd(t, env, "migrate", "status"); !strings.Contains(st, " 0 pending") {
		t.Fatalf("relink migrate status: %s", st)
	}
}

// unitSettings reads a unit file's Key=Value lines (repeated keys joined
// by newlines).
func unitSettings(unit string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(unit, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		if out[k] != "" {
			v = out[k] + "\n" + v
		}
		out[k] = v
	}
	return out
}

func mustRun(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
