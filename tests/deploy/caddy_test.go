package deploy

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/relinkhq/relink/models"
)

// caddy runs deploy/Caddyfile with Caddy's internal CA on free ports in
// front of upstream until the test ends; it returns the HTTPS port and the
// pool trusting the internal CA.
func startCaddy(t *testing.T, upstream, appHost, apiHost string) (string, *x509.CertPool) {
	t.Helper()
	bin, err := exec.LookPath("caddy")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("caddy is not installed (.ci/run installs Debian's caddy)")
		}
		t.Skip("caddy is not installed")
	}
	home := t.TempDir()
	https := freePort(t)
	cmd := exec.Command(bin, "run", "--config", "../../deploy/Caddyfile", "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+home, "XDG_CONFIG_HOME="+home,
		"CADDY_ISSUER=internal", "CADDY_ADMIN=off", "CADDY_HTTPS_PORT="+https, "CADDY_HTTP_PORT="+freePort(t),
		"RELINK_UPSTREAM="+upstream, "RELINK_APP_HOST="+appHost, "RELINK_API_HOST="+apiHost)
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("caddy logs:\n%s", logs.String())
		}
	})
	// Started: the internal CA exists and the app host's certificate
	// (obtained at start) completes a handshake.
	root := filepath.Join(home, "caddy/pki/authorities/local/root.crt")
	deadline := time.Now().Add(30 * time.Second)
	for {
		pem, err := os.ReadFile(root)
		if err == nil {
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(pem)
			c, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", "127.0.0.1:"+https, &tls.Config{RootCAs: pool, ServerName: appHost})
			if err == nil {
				c.Close()
				return https, pool
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("caddy did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// visitor is an HTTPS client that reaches every name at Caddy's port from
// 127.0.0.2 (so the address Relink stores is not the proxy's own), trusting
// Caddy's internal CA and following no redirect.
func visitor(port string, pool *x509.CertPool) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: 5 * time.Second}
	return &http.Client{
		Timeout: 20 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool},
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return d.DialContext(ctx, network, "127.0.0.1:"+port)
			},
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// TestBehindCaddy: deploy/Caddyfile in front of the built binary
// (RELINK_LISTEN_ADDR), Caddy with on-demand TLS and its internal CA. The
// console and API names have certificates; a domain registered through the
// API gets one on its first visit and its link redirects over HTTPS; the
// click is stored with the visitor's address from X-Forwarded-For; a name
// Relink does not serve gets no certificate (Relink's ask said no). The
// ask itself answers only direct loopback calls or its token.
func TestBehindCaddy(t *testing.T) {
	dir := t.TempDir()
	listen := "127.0.0.1:" + freePort(t)
	env := map[string]string{
		"RELINK_DATABASE_URL":         "sqlite:" + filepath.Join(dir, "relink.db"),
		"RELINK_DATA_DIR":             filepath.Join(dir, "data"),
		"RELINK_APP_URL":              "https://app.relink.test",
		"RELINK_API_URL":              "https://api.relink.test",
		"RELINK_LISTEN_ADDR":          listen,
		"RELINK_TLS_ASK_TOKEN":        "ask-secret",
		"RELINK_SESSION_KEYS":         strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32),
		"RELINK_CLICK_FLUSH_INTERVAL": "50ms",
	}
	key := createWorkspace(t, env, "acme", "business")
	keepIPs(t, env["RELINK_DATABASE_URL"], "acme")
	startServer(t, env)
	port, pool := startCaddy(t, listen, "app.relink.test", "api.relink.test")
	c := visitor(port, pool)

	api := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, "https://api.relink.test"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s through caddy: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if st, body := api("POST", "/domains", `{"slug":"go.acme.test"}`); st != 201 {
		t.Fatalf("POST /domains through caddy: %d %s", st, body)
	}
	if st, body := api("POST", "/links", `{"domain":"go.acme.test","key":"hello","url":"https://example.com/landing"}`); st != 200 {
		t.Fatalf("POST /links through caddy: %d %s", st, body)
	}

	req, _ := http.NewRequest("GET", "https://go.acme.test/hello", nil)
	req.Header.Set("User-Agent", browserUA)
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("https://go.acme.test/hello through caddy: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "https://example.com/landing" {
		t.Fatalf("https://go.acme.test/hello: %d Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	if cn := res.TLS.PeerCertificates[0].DNSNames; len(cn) != 1 || cn[0] != "go.acme.test" {
		t.Errorf("certificate names %v", cn)
	}
	if ip := storedClickIP(t, env["RELINK_DATABASE_URL"]); ip != "127.0.0.2" {
		t.Errorf("stored click address %q, want the visitor's 127.0.0.2 (X-Forwarded-For)", ip)
	}

	// Not a Relink domain: no certificate.
	if _, err := c.Get("https://stranger.example/hello"); err == nil || !strings.Contains(err.Error(), "tls") {
		t.Errorf("a name Relink does not serve got a TLS connection (err %v)", err)
	}

	// The ask: through Caddy (a forwarded request) it is not there; with
	// its token it answers.
	askURL := "https://app.relink.test/.well-known/relink/tls-ask?domain=go.acme.test"
	if res, err := c.Get(askURL); err != nil || res.StatusCode != http.StatusNotFound {
		t.Errorf("ask through the proxy: %v %v", err, res)
	}
	if res, err := c.Get(askURL + "&token=ask-secret"); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("ask with the token: %v %v", err, res)
	}
}

// keepIPs turns on the workspace's "keep visitors' addresses" setting (the
// console's privacy setting) before the server starts.
func keepIPs(t *testing.T, dbURL, slug string) {
	t.Helper()
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec("UPDATE workspaces SET keep_ips = ? WHERE slug = ?", true, slug).Error; err != nil {
		t.Fatal(err)
	}
}

// storedClickIP waits for the one click to be written and returns its
// stored address.
func storedClickIP(t *testing.T, dbURL string) string {
	t.Helper()
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 100 {
		var ips []string
		if err := db.Raw("SELECT COALESCE(ip, '') FROM clicks").Scan(&ips).Error; err != nil {
			t.Fatal(err)
		}
		if len(ips) > 0 {
			return ips[0]
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no click stored in 10 s")
	return ""
}

// syncBuffer is a bytes.Buffer safe for a child's stdout and stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
