package deploy

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestTLSAsk: the on-demand TLS check of the built binary behind a proxy
// (RELINK_LISTEN_ADDR): 200 for a name Relink serves, 404 for others, and
// 404 for any request a proxy forwarded (X-Forwarded-For) unless it has the
// token. Registered domains are covered through Caddy (TestBehindCaddy).
func TestTLSAsk(t *testing.T) {
	dir := t.TempDir()
	listen := "127.0.0.1:" + freePort(t)
	env := map[string]string{
		"RELINK_DATABASE_URL":  "sqlite:" + filepath.Join(dir, "relink.db"),
		"RELINK_DATA_DIR":      filepath.Join(dir, "data"),
		"RELINK_APP_URL":       "https://app.relink.test",
		"RELINK_API_URL":       "https://api.relink.test",
		"RELINK_SHORT_DOMAIN":  "go.relink.test",
		"RELINK_LISTEN_ADDR":   listen,
		"RELINK_TLS_ASK_TOKEN": "ask-secret",
		"RELINK_SESSION_KEYS":  strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32),
	}
	startServer(t, env)
	ask := func(query string, forwarded bool) int {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+listen+"/.well-known/relink/tls-ask?"+query, nil)
		if forwarded {
			req.Header.Set("X-Forwarded-For", "203.0.113.9")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, tc := range []struct {
		query     string
		forwarded bool
		want      int
	}{
		{"domain=app.relink.test", false, 200},
		{"domain=API.relink.test.", false, 200},
		{"domain=go.relink.test", false, 200},
		{"domain=stranger.example", false, 404},
		{"domain=", false, 404},
		{"domain=app.relink.test", true, 404},
		{"domain=app.relink.test&token=wrong", true, 404},
		{"domain=app.relink.test&token=ask-secret", true, 200},
		{"domain=stranger.example&token=ask-secret", true, 404},
	} {
		if got := ask(tc.query, tc.forwarded); got != tc.want {
			t.Errorf("ask %s (forwarded %v): %d, want %d", tc.query, tc.forwarded, got, tc.want)
		}
	}
}
