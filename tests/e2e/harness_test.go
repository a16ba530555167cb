// Package e2e is the black-box suite: it runs the built ./cmd/relink exactly
// as production does (`relink serve`, configured by RELINK_* environment
// variables only, nothing injected) and talks to it over sockets. `make test`
// builds the binary once and passes it as RELINK_TEST_BIN; without it the
// suite builds its own.
package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/binharness"
)

// bin is the relink binary under test.
var bin string

func TestMain(m *testing.M) { os.Exit(binharness.Main(m, "../..", &bin)) }

// freePorts returns n TCP ports free on 127.0.0.1 right now.
func freePorts(t *testing.T, n int) []string { return binharness.FreePorts(t, n) }

// run runs one CLI command to completion and returns its stdout.
func run(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	return binharness.Run(t, bin, env, args...)
}

// workspace creates a workspace with the CLI and returns its API key.
func workspace(t *testing.T, env map[string]string, slug string) string {
	t.Helper()
	return binharness.CreateWorkspace(t, bin, env, slug, "business")
}

// server is one `relink serve` child process.
type server = binharness.Server

// start runs `relink serve` with env (JSON logs added) and waits until it
// logs that it started. The server is stopped with SIGTERM at cleanup.
func start(t *testing.T, name string, env map[string]string) *server {
	t.Helper()
	return binharness.Serve(t, "server "+name, bin, env)
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
