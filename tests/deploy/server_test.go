// Package deploy tests the deployment kit (deploy/, docs/deploy.md) against
// the built binary, started as production starts it: environment variables
// only. `make test` builds it once (RELINK_TEST_BIN); run alone, TestMain
// builds ./cmd/relink.
package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// relinkBin is the binary under test.
var relinkBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	relinkBin = os.Getenv("RELINK_TEST_BIN")
	if relinkBin == "" {
		dir, err := os.MkdirTemp("", "relink-deploy-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		relinkBin = filepath.Join(dir, "relink")
		cmd := exec.Command("go", "build", "-o", relinkBin, "../../cmd/relink")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build relink:", err)
			return 1
		}
	}
	return m.Run()
}

const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"

// freePort is a port nothing listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// environ is the process environment without RELINK_* plus env.
func environ(env map[string]string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RELINK_") {
			out = append(out, kv)
		}
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// relinkCmd runs a `relink` command to completion and returns its stdout.
func relinkCmd(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	cmd := exec.Command(relinkBin, args...)
	cmd.Env = environ(env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("relink %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// createWorkspace runs `relink workspace create` and returns its API key.
func createWorkspace(t *testing.T, env map[string]string, slug, plan string) string {
	t.Helper()
	var created struct{ APIKey string }
	out := relinkCmd(t, env, "workspace", "create", "--name", slug, "--slug", slug, "--plan", plan)
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.APIKey == "" {
		t.Fatalf("workspace create: %v: %s", err, out)
	}
	return created.APIKey
}

// server is one `relink serve` process.
type server struct {
	env      map[string]string
	app, api string // http://127.0.0.1:port
	mu       sync.Mutex
	logs     bytes.Buffer
}

func (s *server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// startServer runs `relink serve` with env (RELINK_APP_URL and
// RELINK_API_URL default to free localhost ports) and waits until it logs
// that it started; it is stopped with SIGTERM when the test ends.
func startServer(t *testing.T, env map[string]string) *server {
	t.Helper()
	s := &server{env: env}
	if env["RELINK_APP_URL"] == "" {
		env["RELINK_APP_URL"] = "http://localhost:" + freePort(t)
		env["RELINK_API_URL"] = "http://localhost:" + freePort(t)
	}
	env["RELINK_LOG_FORMAT"] = "json"
	s.app = "http://127.0.0.1:" + portOf(env["RELINK_APP_URL"])
	s.api = "http://127.0.0.1:" + portOf(env["RELINK_API_URL"])
	if a := env["RELINK_LISTEN_ADDR"]; a != "" {
		s.app, s.api = "http://"+a, "http://"+a
	}
	cmd := exec.Command(relinkBin, "serve")
	cmd.Env = environ(env)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		once := false
		for sc.Scan() {
			s.mu.Lock()
			s.logs.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if !once && strings.Contains(sc.Text(), `"msg":"relink started"`) {
				once = true
				close(started)
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("relink serve logs:\n%s", s.Logs())
		}
	})
	select {
	case <-started:
	case <-done:
		t.Fatalf("relink serve exited before it started:\n%s", s.Logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("relink serve did not start in a minute:\n%s", s.Logs())
	}
	return s
}

func portOf(origin string) string {
	i := strings.LastIndex(origin, ":")
	return origin[i+1:]
}

// call sends an API request with the key (Host: the API origin's) and
// decodes a successful JSON answer into out; it returns the status.
func (s *server) call(t *testing.T, method, path, key string, body, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.api+path, rd)
	req.Host = strings.TrimPrefix(strings.TrimPrefix(s.env["RELINK_API_URL"], "http://"), "https://")
	if s.env["RELINK_LISTEN_ADDR"] != "" {
		req.Header.Set("X-Forwarded-Proto", "https")
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		t.Logf("%s %s: %d %s", method, path, res.StatusCode, b)
	} else if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return res.StatusCode
}

// must is call that fails the test unless the answer is a 2xx.
func (s *server) must(t *testing.T, method, path, key string, body, out any) {
	t.Helper()
	if st := s.call(t, method, path, key, body, out); st >= 300 {
		t.Fatalf("%s %s: status %d", method, path, st)
	}
}

// clicksByLink is GET /analytics' all-time clicks per link id (waiting out
// the analytics rate limit).
func (s *server) clicksByLink(t *testing.T, key string) map[string]int {
	t.Helper()
	for range 30 {
		var rows []struct {
			ID     string `json:"id"`
			Clicks int    `json:"clicks"`
		}
		st := s.call(t, "GET", "/analytics?event=clicks&interval=all&groupBy=top_links", key, nil, &rows)
		if st == 200 {
			out := map[string]int{}
			for _, r := range rows {
				out[r.ID] = r.Clicks
			}
			return out
		}
		if st != 429 {
			t.Fatalf("analytics: status %d", st)
		}
		time.Sleep(time.Second)
	}
	t.Fatal("analytics: rate limited for 30 s")
	return nil
}
