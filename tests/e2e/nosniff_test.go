package e2e

import (
	"bufio"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rawAnswer writes raw to addr as one HTTP/1.1 request and reads the
// answer's status line and headers (answers fasthttp writes before any
// handler runs: a body over the limit, headers too large, a malformed
// request line).
func rawAnswer(t *testing.T, addr, raw string) *http.Response {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = c.Write([]byte(raw)) }()
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", raw, err)
	}
	res.Body.Close()
	return res
}

// TestNosniffEverywhere (issue 37 item 5): `relink serve` as built answers
// every face with X-Content-Type-Options: nosniff, in dev mode and outside
// it: API JSON and its errors (401, 404, bad JSON, a body over
// RELINK_BODY_LIMIT, headers too large, a malformed request), pages,
// static assets, /healthz, /metrics, short-link redirects and their 404,
// and, outside dev mode, the HTTPS-required error and the upgrade redirect.
func TestNosniffEverywhere(t *testing.T) {
	for _, dev := range []string{"true", "false"} {
		t.Run("dev="+dev, func(t *testing.T) {
			env, app, apiURL := origins(t, map[string]string{"RELINK_DEV": dev, "RELINK_BODY_LIMIT": "4096",
				"RELINK_METRICS_TOKEN": "tok", "RELINK_SESSION_KEYS": strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32)})
			key := workspace(t, env, "acme")
			start(t, "serve", env)
			https := map[string]string{"X-Forwarded-Proto": "https"} // a trusted proxy (loopback) ended TLS
			body := strings.NewReader(`{"url":"https://example.com/x","key":"x"}`)
			req, _ := http.NewRequest("POST", apiURL+"/links", body)
			req.Header = http.Header{"Authorization": {"Bearer " + key}, "X-Forwarded-Proto": {"https"}, "Content-Type": {"application/json"}}
			if res, err := noFollow.Do(req); err != nil || res.StatusCode != 200 {
				t.Fatalf("POST /links: %v %v", res, err)
			} else {
				res.Body.Close()
			}
			check := func(what string, h http.Header, status int) {
				t.Helper()
				if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
					t.Errorf("%s (%d): X-Content-Type-Options %q", what, status, got)
				}
			}
			login := get(t, noFollow, app+"/console/login", "", https)
			check("login page", login.Header, login.Status)
			asset := regexp.MustCompile(`/static/[^"' ]+\.(css|js)`).FindString(login.Body)
			if asset == "" {
				t.Fatalf("no asset on the login page: %d %.300s", login.Status, login.Body)
			}
			auth := map[string]string{"Authorization": "Bearer " + key, "X-Forwarded-Proto": "https"}
			for _, c := range []struct {
				what, url, host string
				header          map[string]string
				status          int
			}{
				{"static asset", app + asset, "", https, 200},
				{"static 404", app + "/static/nope.css", "", https, 404},
				{"sign-in redirect", app + "/console/nope", "", https, 303},
				{"page 404", app + "/no/such/page", "", https, 404},
				{"healthz", app + "/healthz", "", nil, 200},
				{"metrics", app + "/metrics", "", map[string]string{"Authorization": "Bearer tok", "X-Forwarded-Proto": "https"}, 200},
				{"API list", apiURL + "/links", "", auth, 200},
				{"API on the app origin", app + "/api/links", "", auth, 200},
				{"openapi.json", apiURL + "/openapi.json", "", https, 200},
				{"API 401", apiURL + "/links", "", https, 401},
				{"API 404", apiURL + "/nope", "", auth, 404},
				{"API plain HTTP", apiURL + "/links", "", map[string]string{"Authorization": "Bearer " + key}, 0},
				{"redirect", app + "/x", "s.relink.test", https, 302},
				{"redirect 404", app + "/nope", "s.relink.test", https, 404},
				{"short plain HTTP", app + "/x", "s.relink.test", nil, 0},
				{"qr", apiURL + "/qr?url=https://s.relink.test/x", "", https, 200},
			} {
				a := get(t, noFollow, c.url, c.host, c.header)
				want := c.status
				if want == 0 { // plain HTTP: served in dev mode, refused or upgraded outside it
					want = map[string]int{"API plain HTTP": 200, "short plain HTTP": 302}[c.what]
					if dev == "false" {
						want = map[string]int{"API plain HTTP": 400, "short plain HTTP": 301}[c.what]
					}
				}
				if a.Status != want {
					t.Errorf("%s: status %d, want %d", c.what, a.Status, want)
				}
				check(c.what, a.Header, a.Status)
			}
			apiAddr := strings.TrimPrefix(apiURL, "http://")
			for what, raw := range map[string]string{
				"bad JSON": "POST /links HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key + "\r\nX-Forwarded-Proto: https\r\n" +
					"Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{\"url",
				"body over the limit": "POST /links HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key + "\r\n" +
					"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n" + strings.Repeat("a", 100000),
				"headers too large": "GET /links HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 200<<10) + "\r\n\r\n",
				"malformed request": "GET\r\n\r\n",
			} {
				res := rawAnswer(t, apiAddr, raw)
				if res.StatusCode < 400 || res.StatusCode >= 500 {
					t.Errorf("%s: status %d, want 4xx", what, res.StatusCode)
				}
				check(what, res.Header, res.StatusCode)
			}
		})
	}
}
