// Package binharness runs the built relink binary for the suites that test
// it from the outside (tests/e2e, tests/deploy, cmd/relink's
// TestTwoInstances): the binary (RELINK_TEST_BIN, or built once), free
// ports, a child's environment with only the RELINK_* variables the test
// sets, `relink serve` started and awaited (its "relink started" log line),
// its logs kept, and its stop (SIGTERM, as systemd) at cleanup. The tests
// keep their own requests and assertions.
package binharness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/relinkhq/relink/internal/freeport"
)

// StartTimeout is how long Start waits for the server's start line (it
// only ends a start that would never come: CI at load average 50 took 40 s
// to migrate and start an instance on chDB, TestClickStoredOnce's second
// of two, and the Node harness waits 90 s for the same reason);
// StopTimeout how long a stop waits for it to exit (then it is killed at
// cleanup).
const (
	StartTimeout = 3 * time.Minute
	StopTimeout  = 30 * time.Second
)

// Main is a suite's TestMain: *bin is RELINK_TEST_BIN (`make test` builds
// the binary once), or ./cmd/relink built into a temporary directory (root
// is the module root from the test's directory, "../.."); then it runs the
// tests and returns their exit code.
func Main(m *testing.M, root string, bin *string) int {
	*bin = os.Getenv("RELINK_TEST_BIN")
	if *bin == "" {
		dir, err := os.MkdirTemp("", "relink-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "relink")
		cmd := exec.Command("go", "build", "-o", *bin, "./cmd/relink")
		cmd.Dir = root
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "go build ./cmd/relink:", err)
			return 2
		}
	}
	return m.Run()
}

// FreePorts returns n TCP ports free on 127.0.0.1 right now (all held open
// together while they are picked, so they differ).
func FreePorts(t testing.TB, n int) []string {
	t.Helper()
	ports, err := freeport.Pick(n)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i, p := range ports {
		out[i] = strconv.Itoa(p)
	}
	return out
}

// Environ is the test process's environment without its RELINK_* variables,
// plus env: the child sees only what the test configures.
func Environ(env map[string]string) []string {
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

// Run runs one command of bin to completion with env (Environ) and returns
// its stdout; a failure fails the test with its output.
func Run(t testing.TB, bin string, env map[string]string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = Environ(env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("relink %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// CreateWorkspace runs `relink workspace create` (name and slug slug, plan
// plan) and returns the new workspace's API key.
func CreateWorkspace(t testing.TB, bin string, env map[string]string, slug, plan string) string {
	t.Helper()
	var created struct {
		APIKey string `json:"apiKey"`
	}
	out := Run(t, bin, env, "workspace", "create", "--name", slug, "--slug", slug, "--plan", plan)
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.APIKey == "" {
		t.Fatalf("workspace create: %q (%v)", out, err)
	}
	return created.APIKey
}

// Server is one `relink serve` child process.
type Server struct {
	Name string
	cmd  *exec.Cmd
	t    testing.TB
	done chan struct{} // closed when the process's stderr ends (it exited)

	mu   sync.Mutex
	logs bytes.Buffer
}

// Start starts cmd (a `relink serve` with its Env set; JSON logs, so that
// the start line is found) and waits until it logs "relink started". What
// it writes on stderr is kept (Logs); stdout is discarded unless cmd has
// one. At cleanup it is stopped with SIGTERM (killed after StopTimeout) and,
// when the test failed, its logs are printed.
func Start(t testing.TB, name string, cmd *exec.Cmd) *Server {
	t.Helper()
	s := &Server{Name: name, cmd: cmd, t: t, done: make(chan struct{})}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Stdout == nil {
		cmd.Stdout = io.Discard
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		defer close(s.done)
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
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(StopTimeout):
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s logs:\n%s", name, s.Logs())
		}
	})
	select {
	case <-started:
	case <-s.done:
		_ = cmd.Wait()
		t.Fatalf("%s exited before it started:\n%s", name, s.Logs())
	case <-time.After(StartTimeout):
		t.Fatalf("%s did not start in %v:\n%s", name, StartTimeout, s.Logs())
	}
	return s
}

// Serve starts `bin serve` with env (Environ; RELINK_LOG_FORMAT=json added)
// as Start does.
func Serve(t testing.TB, name, bin string, env map[string]string) *Server {
	t.Helper()
	e := map[string]string{"RELINK_LOG_FORMAT": "json"}
	for k, v := range env {
		e[k] = v
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = Environ(e)
	return Start(t, name, cmd)
}

// Logs is what the server wrote on stderr so far (JSON lines).
func (s *Server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// Stop ends the server as systemd does (SIGTERM) and waits until it
// exited, so a test can start another on the same database and ports.
func (s *Server) Stop() {
	s.t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(StopTimeout):
		s.t.Fatalf("%s did not stop in %v:\n%s", s.Name, StopTimeout, s.Logs())
	}
}

// RedisURL is RELINK_TEST_REDIS_URL (default the local Redis), pinged; the
// test is skipped without one outside CI, and fails in CI.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("RELINK_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("RELINK_TEST_REDIS_URL: %v", err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis unavailable in CI: %v", err)
		}
		t.Skipf("redis unavailable: %v", err)
	}
	return u
}
