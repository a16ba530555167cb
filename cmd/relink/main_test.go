package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/relinkhq/relink/internal/binharness"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/migrations"
	"github.com/relinkhq/relink/models"
)

// TestMain lets TestServeStopsOnSIGTERM run the real main() in a child
// process: the test binary re-executes itself with RELINK_TEST_MAIN=1.
func TestMain(m *testing.M) {
	if os.Getenv("RELINK_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(chtest.Main(m))
}

type result struct {
	code           int
	stdout, stderr string
}

// relink runs the CLI in-process, as main does, with only the given RELINK_*
// variables; stdout, stderr and the exit status are the program's own.
func relink(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	defer slog.SetDefault(slog.Default()) // run installs its own logger
	var out, errb bytes.Buffer
	code := cli(context.Background(), args, func(k string) string { return env[k] }, &out, &errb)
	return result{code, out.String(), errb.String()}
}

// baseEnv is the process environment without RELINK_* plus env, for a child
// (this test binary, run as relink: RELINK_TEST_MAIN).
func baseEnv(env map[string]string) []string {
	e := map[string]string{"RELINK_TEST_MAIN": "1"}
	for k, v := range env {
		e[k] = v
	}
	return binharness.Environ(e)
}

var (
	wsIDRe  = regexp.MustCompile(`^ws_c[0-9a-z]{24}$`)
	apiKeRe = regexp.MustCompile(`^dub_[0-9A-Za-z]{24}$`)
)

// decodeOnly decodes stdout as exactly one JSON value with exactly the given keys.
func decodeCreated(t *testing.T, stdout string) (ws map[string]any, key string) {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout is not one line: %q", stdout)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		t.Fatalf("stdout is not a JSON object: %q", stdout)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value on stdout: %q", stdout)
	}
	if len(top) != 2 || top["workspace"] == nil || top["apiKey"] == nil {
		t.Fatalf("want exactly workspace and apiKey: %s", stdout)
	}
	if err := json.Unmarshal(top["workspace"], &ws); err != nil || len(ws) != 4 {
		t.Fatalf("workspace must be {id,name,slug,plan}: %s", top["workspace"])
	}
	if err := json.Unmarshal(top["apiKey"], &key); err != nil {
		t.Fatalf("apiKey is not a string: %s", top["apiKey"])
	}
	return ws, key
}

func TestWorkspaceCreate(t *testing.T) {
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			dbURL := testdb.URL(t, dialect)
			env := map[string]string{"RELINK_DATABASE_URL": dbURL}

			r := relink(t, env, "workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "advanced",
				"--owner-email", "Owner@Example.com", "--owner-password", "a long password")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			ws, key := decodeCreated(t, r.stdout)
			if !wsIDRe.MatchString(ws["id"].(string)) || ws["name"] != "Acme" || ws["slug"] != "acme" || ws["plan"] != "advanced" {
				t.Fatalf("workspace %v", ws)
			}
			if !apiKeRe.MatchString(key) {
				t.Fatalf("apiKey %q is not dub_ + 24 alphanumerics", key)
			}

			// The key works and is stored hashed; the owner exists.
			db, err := models.Open(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			k, w, err := db.APIKeyByToken(ctx, key)
			if err != nil || w.PublicID() != ws["id"] || k.HashedKey == key || strings.Contains(k.HashedKey+k.PartialKey, key) {
				t.Fatalf("stored key %+v, workspace %+v, err %v", k, w, err)
			}
			if u, err := db.UserByEmail(ctx, "owner@example.com"); err != nil || u.PasswordHash == nil || *u.PasswordHash == "a long password" {
				t.Fatalf("owner %+v, err %v", u, err)
			}

			t.Run("default plan is free", func(t *testing.T) {
				r := relink(t, env, "workspace", "create", "--name", "Beta", "--slug", "beta")
				if ws, _ := decodeCreated(t, r.stdout); r.code != 0 || ws["plan"] != "free" {
					t.Fatalf("exit %d, %v", r.code, r.stdout)
				}
			})
			t.Run("taken slug", func(t *testing.T) {
				r := relink(t, env, "workspace", "create", "--name", "Other", "--slug", "ACME")
				if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `relink: The slug "acme" is already in use`) {
					t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
				}
			})
			usage := []struct {
				name string
				args []string
				msg  string
			}{
				{"bad plan", []string{"--name", "X", "--slug", "x1", "--plan", "gold"}, `--plan: unknown plan "gold" (want one of free, pro, business, advanced, enterprise)`},
				{"missing slug", []string{"--name", "X"}, "--name and --slug are required"},
				{"email without password", []string{"--name", "X", "--slug", "x2", "--owner-email", "a@b.c"}, "--owner-email and --owner-password go together"},
				{"bad email", []string{"--name", "X", "--slug", "x3", "--owner-email", "nope", "--owner-password", "a long password"}, `--owner-email: "nope" is not an email address`},
				{"short password", []string{"--name", "X", "--slug", "x4", "--owner-email", "a@b.c", "--owner-password", "short"}, "--owner-password: password must be at least 8 characters"},
				{"unknown flag", []string{"--name", "X", "--slug", "x5", "--colour", "red"}, "flag provided but not defined: -colour"},
			}
			for _, u := range usage {
				t.Run(u.name, func(t *testing.T) {
					r := relink(t, env, append([]string{"workspace", "create"}, u.args...)...)
					if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "relink: "+u.msg) || !strings.Contains(r.stderr, "Usage:") {
						t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
					}
				})
			}
			t.Run("invalid slug", func(t *testing.T) {
				r := relink(t, env, "workspace", "create", "--name", "X", "--slug", "-bad-")
				if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "relink: invalid_format: slug: Slug must be") {
					t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
				}
			})
			t.Run("no workspace was created by the failures", func(t *testing.T) {
				var n int64
				if err := db.Model(&models.Workspace{}).Count(&n).Error; err != nil || n != 2 {
					t.Fatalf("%d workspaces (err %v), want 2", n, err)
				}
			})
		})
	}
}

func TestMigrate(t *testing.T) {
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			env := map[string]string{"RELINK_DATABASE_URL": testdb.URL(t, dialect)}
			fsys, err := migrations.FS(dialect)
			if err != nil {
				t.Fatal(err)
			}
			files, err := fs.Glob(fsys, "*.sql")
			if err != nil || len(files) == 0 {
				t.Fatalf("no migrations: %v", err)
			}
			total := strconv.Itoa(len(files)) + " migrations, "

			r := relink(t, env, "migrate", "status")
			if r.code != 0 || !strings.Contains(r.stdout, total+strconv.Itoa(len(files))+" pending") {
				t.Fatalf("fresh status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			for _, f := range files {
				if !regexp.MustCompile(`(?m)^\d{5}\s+` + regexp.QuoteMeta(f) + `\s+pending\s*$`).MatchString(r.stdout) {
					t.Fatalf("%s not listed as pending:\n%s", f, r.stdout)
				}
			}
			r = relink(t, env, "migrate")
			if r.code != 0 || r.stdout != "database is up to date\n" {
				t.Fatalf("migrate: exit %d %q %s", r.code, r.stdout, r.stderr)
			}
			r = relink(t, env, "migrate", "status")
			if r.code != 0 || !strings.Contains(r.stdout, total+"0 pending") {
				t.Fatalf("status after up: exit %d\n%s", r.code, r.stdout)
			}
			for _, f := range files {
				if !regexp.MustCompile(`(?m)^\d{5}\s+` + regexp.QuoteMeta(f) + `\s+applied\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$`).MatchString(r.stdout) {
					t.Fatalf("%s not listed as applied:\n%s", f, r.stdout)
				}
			}
			// A database that took a later area's migration before an earlier
			// area's new one (version ranges per area) still migrates.
			db, err := models.Open(env["RELINK_DATABASE_URL"])
			if err != nil {
				t.Fatal(err)
			}
			err = db.Exec("DELETE FROM goose_db_version WHERE version_id = 310").Error
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			if r = relink(t, env, "migrate", "status"); !strings.Contains(r.stdout, total+"1 pending") {
				t.Fatalf("status with 00310 missing: exit %d\n%s", r.code, r.stdout)
			}
			if r = relink(t, env, "migrate"); r.code != 0 || r.stdout != "database is up to date\n" || !strings.Contains(r.stderr, "version=310 file=00310_") {
				t.Fatalf("out-of-order migrate: exit %d %q %s", r.code, r.stdout, r.stderr)
			}
			if r := relink(t, env, "migrate", "down"); r.code != 2 || !strings.Contains(r.stderr, `unknown migrate command "down"`) {
				t.Fatalf("migrate down: exit %d %s", r.code, r.stderr)
			}
		})
	}
}

func TestCLIErrors(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stderr string
	}{
		{"bad config", map[string]string{"RELINK_LOG_FORMAT": "xml", "RELINK_BODY_LIMIT": "big"}, []string{"migrate", "status"}, 1,
			"relink: configuration: RELINK_LOG_FORMAT: want text or json, got \"xml\"\nRELINK_BODY_LIMIT: want a positive number of bytes, got \"big\"\n"},
		{"unknown command", nil, []string{"frobnicate"}, 2, `relink: unknown command "frobnicate"`},
		{"workspace without create", nil, []string{"workspace"}, 2, "relink: want: relink workspace create"},
		{"unreachable database", map[string]string{"RELINK_DATABASE_URL": "postgres://nobody@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"}, []string{"migrate", "status"}, 1, "relink: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := relink(t, c.env, c.args...)
			if r.code != c.code || r.stdout != "" || !strings.Contains(r.stderr, c.stderr) {
				t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("version ignores a bad config", func(t *testing.T) {
		r := relink(t, map[string]string{"RELINK_LOG_FORMAT": "xml"}, "version")
		if r.code != 0 || r.stdout != "relink dev\n" {
			t.Fatalf("exit %d %q %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("no arguments prints usage", func(t *testing.T) {
		r := relink(t, nil)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "relink — ") {
			t.Fatalf("exit %d %q", r.code, r.stdout)
		}
	})
}

// TestJSONLogs: RELINK_LOG_FORMAT=json makes every stderr line a JSON object
// while stdout keeps only the command's output.
func TestJSONLogs(t *testing.T) {
	env := map[string]string{"RELINK_DATABASE_URL": testdb.URL(t, "sqlite"), "RELINK_LOG_FORMAT": "json"}
	r := relink(t, env, "workspace", "create", "--name", "Acme", "--slug", "acme")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	decodeCreated(t, r.stdout)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("no log lines (a fresh database logs its migrations)")
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["msg"] == nil || m["level"] == nil || m["time"] == nil {
			t.Fatalf("stderr line is not a slog JSON record: %q", l)
		}
	}

	t.Run("setupLogging", func(t *testing.T) {
		defer slog.SetDefault(slog.Default())
		for _, c := range []struct {
			format, level string
			json          bool
		}{{"json", "debug", true}, {"text", "warn", false}} {
			cfg, err := config.Load(func(k string) string {
				return map[string]string{"RELINK_LOG_FORMAT": c.format, "RELINK_LOG_LEVEL": c.level}[k]
			})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			setupLogging(cfg, &buf)
			slog.Debug("dbg", "n", 1)
			slog.Warn("wrn", "n", 2)
			out := buf.String()
			if c.json {
				var m map[string]any
				first := strings.SplitN(out, "\n", 2)[0]
				if json.Unmarshal([]byte(first), &m) != nil || m["msg"] != "dbg" || m["n"] != float64(1) {
					t.Fatalf("json debug: %q", out)
				}
			} else if strings.Contains(out, "dbg") || !strings.Contains(out, "level=WARN msg=wrn n=2") {
				t.Fatalf("text warn: %q", out)
			}
		}
	})
}

// TestServeStopsOnSIGTERM runs `relink serve` as a process, waits for it to
// answer, sends SIGTERM and expects a clean exit after the shutdown steps.
func TestServeStopsOnSIGTERM(t *testing.T) {
	ports := binharness.FreePorts(t, 2)
	cmd := exec.Command(os.Args[0], "serve")
	cmd.Env = baseEnv(map[string]string{
		"RELINK_DATABASE_URL": testdb.URL(t, "sqlite"),
		"RELINK_APP_URL":      "http://localhost:" + ports[0],
		"RELINK_API_URL":      "http://localhost:" + ports[1],
		"RELINK_LOG_FORMAT":   "json",
	})
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	logs := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs <- sc.Text()
		}
		close(logs)
	}()
	// The server logs "relink started" once its listeners are open.
	var seen []string
	for l := range logs {
		seen = append(seen, l)
		if strings.Contains(l, `"msg":"relink started"`) {
			break
		}
	}
	for _, p := range ports {
		res, err := http.Get("http://127.0.0.1:" + p + "/healthz")
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("healthz on %s: %v %v\nlogs: %v", p, res, err, seen)
		}
		res.Body.Close()
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for l := range logs {
		seen = append(seen, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve exited with %v after SIGTERM\nlogs: %s", err, strings.Join(seen, "\n"))
	}
	all := strings.Join(seen, "\n")
	for _, msg := range []string{`"msg":"shutting down"`, `"msg":"stopped"`} {
		if !strings.Contains(all, msg) {
			t.Fatalf("no %s in logs:\n%s", msg, all)
		}
	}
}
