package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/binharness"
	"github.com/relinkhq/relink/internal/testdb"
)

// logged sends GET path to app with the app URL's Host and returns the
// X-Request-Id the server answered with.
func logged(t *testing.T, app, host, path string, status int) string {
	t.Helper()
	req, _ := http.NewRequest("GET", app+path, nil)
	req.Host = host
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	if res.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d", path, res.StatusCode, status)
	}
	id := res.Header.Get("X-Request-Id")
	if len(id) != 16 {
		t.Fatalf("GET %s: X-Request-Id %q", path, id)
	}
	return id
}

// TestRequestLogLines: relink serve writes one request line per request in
// the configured format, through the server's own log handler
// (internal/logline): a plain line as it writes it, and a path slog must
// quote (a space and a double quote) as slog writes it.
func TestRequestLogLines(t *testing.T) {
	t.Run("json", func(t *testing.T) {
		in := startInstance(t, "json", map[string]string{"RELINK_DATABASE_URL": testdb.URL(t, "sqlite")})
		host := strings.TrimPrefix(strings.Replace(in.app, "127.0.0.1", "localhost", 1), "http://")
		plain := logged(t, in.app, host, "/healthz", 200)
		odd := logged(t, in.app, host, `/a%20b%22c`, 404)
		in.Stop()
		found := map[string]map[string]any{}
		for _, l := range strings.Split(in.Logs(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" {
				found[m["request_id"].(string)] = m
			}
		}
		for id, want := range map[string]map[string]any{
			plain: {"level": "INFO", "method": "GET", "host": host, "path": "/healthz", "face": "app", "status": 200.0, "ip": "127.0.0.1"},
			odd:   {"level": "INFO", "method": "GET", "host": host, "path": `/a b"c`, "face": "app", "status": 404.0, "ip": "127.0.0.1"},
		} {
			got := found[id]
			if got == nil {
				t.Fatalf("no request line for %s in:\n%s", id, in.Logs())
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s = %v, want %v (%v)", id, k, got[k], v, got)
				}
			}
			if took, ok := got["took"].(float64); !ok || took <= 0 {
				t.Errorf("%s: took %v, want nanoseconds", id, got["took"])
			}
		}
	})

	t.Run("text", func(t *testing.T) {
		p := binharness.FreePorts(t, 2)
		cmd := exec.Command(os.Args[0], "serve")
		cmd.Env = binharness.Environ(map[string]string{
			"RELINK_TEST_MAIN": "1", "RELINK_LOG_FORMAT": "text", "RELINK_DATA_DIR": t.TempDir(),
			"RELINK_DATABASE_URL": testdb.URL(t, "sqlite"),
			"RELINK_APP_URL":      "http://localhost:" + p[0], "RELINK_API_URL": "http://localhost:" + p[1],
		})
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		app, host := "http://127.0.0.1:"+p[0], "localhost:"+p[0]
		deadline := time.Now().Add(binharness.StartTimeout)
		for {
			res, err := http.Get(app + "/healthz")
			if err == nil {
				res.Body.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("relink serve did not answer: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		plain := logged(t, app, host, "/healthz", 200)
		odd := logged(t, app, host, `/a%20b%22c`, 404)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("relink serve: %v\n%s", err, stderr.String())
		}
		want := map[string]*regexp.Regexp{
			plain: regexp.MustCompile(`^time=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\S+ level=INFO msg=request request_id=` + plain +
				` method=GET host=` + regexp.QuoteMeta(host) + ` path=/healthz face=app status=200 took=[0-9.]+[µm]?s ip=127\.0\.0\.1$`),
			odd: regexp.MustCompile(`^time=\S+ level=INFO msg=request request_id=` + odd +
				` method=GET host=` + regexp.QuoteMeta(host) + ` path="/a b\\"c" face=app status=404 took=\S+ ip=127\.0\.0\.1$`),
		}
		sc := bufio.NewScanner(&stderr)
		for sc.Scan() {
			for id, re := range want {
				if strings.Contains(sc.Text(), "request_id="+id) {
					if !re.MatchString(sc.Text()) {
						t.Errorf("request line %q does not match %s", sc.Text(), re)
					}
					delete(want, id)
				}
			}
		}
		if len(want) > 0 {
			t.Fatalf("no request line for %v", want)
		}
	})
}
