// Package e2e is the black-box suite: it runs the built ./cmd/relink exactly
// as production does (`relink serve`, configured by RELINK_* environment
// variables only, nothing injected) and talks to it over sockets. `make test`
// builds the binary once and passes it as RELINK_TEST_BIN; without it the
// suite builds its own.
package e2e

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

// bin is the relink binary under test.
var bin string

func TestMain(m *testing.M) {
	bin = os.Getenv("RELINK_TEST_BIN")
	var tmp string
	if bin == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "relink-e2e-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		bin = filepath.Join(tmp, "relink")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/relink")
		cmd.Dir = "../.."
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "go build ./cmd/relink:", err)
			os.Exit(2)
		}
	}
	code := m.Run()
	if tmp != "" {
		os.RemoveAll(tmp)
	}
	os.Exit(code)
}

// freePorts returns n TCP ports free on 127.0.0.1 right now.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		out = append(out, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	}
	for _, ln := range lns {
		ln.Close()
	}
	return out
}

// environ is the test process's environment without RELINK_* plus env: the
// child sees only what the test configures.
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

// run runs one CLI command to completion and returns its stdout.
func run(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = environ(env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("relink %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// workspace creates a workspace with the CLI and returns its API key.
func workspace(t *testing.T, env map[string]string, slug string) string {
	t.Helper()
	var created struct {
		APIKey string `json:"apiKey"`
	}
	out := run(t, env, "workspace", "create", "--name", slug, "--slug", slug, "--plan", "business")
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.APIKey == "" {
		t.Fatalf("workspace create: %q (%v)", out, err)
	}
	return created.APIKey
}

// server is one `relink serve` child process.
type server struct {
	t    *testing.T
	name string
	cmd  *exec.Cmd
	env  map[string]string
	done chan struct{} // closed when the process's stderr ends (it exited)

	mu   sync.Mutex
	logs bytes.Buffer
}

// Logs is what the server wrote so far (JSON lines).
func (s *server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// start runs `relink serve` with env (JSON logs added) and waits until it
// logs that it started. The server is stopped with SIGTERM at cleanup.
func start(t *testing.T, name string, env map[string]string) *server {
	t.Helper()
	e := map[string]string{"RELINK_LOG_FORMAT": "json"}
	for k, v := range env {
		e[k] = v
	}
	s := &server{t: t, name: name, env: e}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = environ(e)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.cmd.Stdout = io.Discard
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started, done := make(chan struct{}), make(chan struct{})
	s.done = done
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
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
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
		}
		_ = s.cmd.Wait()
		if t.Failed() {
			t.Logf("server %s logs:\n%s", name, s.Logs())
		}
	})
	select {
	case <-started:
	case <-done:
		_ = s.cmd.Wait()
		t.Fatalf("server %s exited before it started:\n%s", name, s.Logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("server %s did not start in a minute:\n%s", name, s.Logs())
	}
	return s
}

// stop ends the server as systemd does (SIGTERM) and waits until it exited,
// so a test can start another on the same database and ports.
func (s *server) stop() {
	s.t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.t.Fatalf("server %s did not stop in 30s:\n%s", s.name, s.Logs())
	}
}

// answer is a response read in full.
type answer struct {
	Status   int
	Location string
	Header   http.Header
	Body     string
}

// noFollow never follows redirects.
var noFollow = &http.Client{Timeout: 10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// get sends GET url with the Host header host (when not empty).
func get(t *testing.T, c *http.Client, rawURL, host string, header map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s (Host %s): %v", rawURL, host, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header.Get("Location"), res.Header, string(b)}
}

// api sends an API request with the key and decodes a 2xx JSON answer into
// out; it returns the status.
func api(t *testing.T, base, method, path, key string, body, out any) int {
	t.Helper()
	return apiWith(t, noFollow, base, method, path, key, body, out)
}

// apiWith is api through the client c.
func apiWith(t *testing.T, c *http.Client, base, method, path, key string, body, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode < 300 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	if res.StatusCode >= 300 {
		t.Logf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return res.StatusCode
}

// eventually retries check until it returns "" or the deadline passes.
func eventually(t *testing.T, within time.Duration, check func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", within, msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
