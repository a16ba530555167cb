// Package deploy tests the deployment kit (deploy/, docs/deploy.md) against
// the built binary, started as production starts it: environment variables
// only. `make test` builds it once (RELINK_TEST_BIN); run alone, TestMain
// builds ./cmd/relink.
package deploy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/binharness"
)

// relinkBin is the binary under test.
var relinkBin string

func TestMain(m *testing.M) { os.Exit(binharness.Main(m, "../..", &relinkBin)) }

const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"

// freePort is a port nothing listens on right now.
func freePort(t *testing.T) string { return binharness.FreePorts(t, 1)[0] }

// relinkCmd runs a `relink` command to completion and returns its stdout.
func relinkCmd(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	return binharness.Run(t, relinkBin, env, args...)
}

// createWorkspace runs `relink workspace create` and returns its API key.
func createWorkspace(t *testing.T, env map[string]string, slug, plan string) string {
	t.Helper()
	return binharness.CreateWorkspace(t, relinkBin, env, slug, plan)
}

// server is one `relink serve` process.
type server struct {
	*binharness.Server
	env      map[string]string
	app, api string // http://127.0.0.1:port
}

// startServer runs `relink serve` with env (RELINK_APP_URL and
// RELINK_API_URL default to free localhost ports; env is completed in
// place) and waits until it logs that it started; it is stopped with
// SIGTERM when the test ends.
func startServer(t *testing.T, env map[string]string) *server {
	t.Helper()
	if env["RELINK_APP_URL"] == "" {
		p := binharness.FreePorts(t, 2)
		env["RELINK_APP_URL"] = "http://localhost:" + p[0]
		env["RELINK_API_URL"] = "http://localhost:" + p[1]
	}
	env["RELINK_LOG_FORMAT"] = "json"
	s := &server{env: env}
	s.app = "http://127.0.0.1:" + portOf(env["RELINK_APP_URL"])
	s.api = "http://127.0.0.1:" + portOf(env["RELINK_API_URL"])
	if a := env["RELINK_LISTEN_ADDR"]; a != "" {
		s.app, s.api = "http://"+a, "http://"+a
	}
	s.Server = binharness.Serve(t, "relink serve", relinkBin, env)
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
