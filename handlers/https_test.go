package handlers_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// sessionKeys is a valid RELINK_SESSION_KEYS (required outside dev mode).
var sessionKeys = strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32)

// TestPlainHTTPOutsideDev serves real sockets (the peer is 127.0.0.1) in
// production mode without TLS: the API refuses plain HTTP unless a trusted
// proxy says the client used HTTPS; page and short-link hosts redirect.
func TestPlainHTTPOutsideDev(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	_, key := seed(t, db, "acme", models.PlanPro)
	start := func(t *testing.T, trusted string) (appPort, apiPort string) {
		ports := freePorts(t, 2)
		vars := map[string]string{
			"RELINK_APP_URL":      "http://localhost:" + ports[0],
			"RELINK_API_URL":      "http://localhost:" + ports[1],
			"RELINK_SHORT_DOMAIN": "s.test",
			"RELINK_DEV":          "false",
			"RELINK_SESSION_KEYS": sessionKeys,
		}
		if trusted != "" {
			vars["RELINK_TRUSTED_PROXIES"] = trusted
		}
		s := newServer(t, db, env{vars: vars})
		if s.cfg.DevMode {
			t.Fatal("RELINK_DEV=false left dev mode on")
		}
		s.serveLive(t, nil)
		return ports[0], ports[1]
	}
	auth := map[string]string{"Authorization": "Bearer " + key}
	withProto := map[string]string{"Authorization": "Bearer " + key, "X-Forwarded-Proto": "https"}

	t.Run("default trusted proxies (loopback)", func(t *testing.T) {
		appPort, apiPort := start(t, "")
		api := "http://127.0.0.1:" + apiPort
		r := httpDo(t, noRedirect, "GET", api+"/workspaces/acme", "", auth, "")
		e := wantError(t, r, 400, "bad_request", "")
		if !strings.HasPrefix(e.Message, "HTTPS is required.") || !strings.Contains(e.Message, "https://127.0.0.1:"+apiPort+"/workspaces/acme") {
			t.Fatalf("message %q", e.Message)
		}
		// The HTTPS check comes before authentication.
		r = httpDo(t, noRedirect, "GET", api+"/workspaces/acme", "", nil, "")
		wantError(t, r, 400, "bad_request", e.Message)

		r = httpDo(t, noRedirect, "GET", api+"/workspaces/acme", "", withProto, "")
		if r.Status != 200 {
			t.Fatalf("X-Forwarded-Proto https from loopback: %d %s", r.Status, r.Body)
		}
		r = httpDo(t, noRedirect, "GET", "http://127.0.0.1:"+appPort+"/api/workspaces/acme", "localhost:"+appPort, auth, "")
		wantError(t, r, 400, "bad_request", "HTTPS is required. Send this request to https://localhost:"+appPort+"/api/workspaces/acme.")
		for _, p := range []string{appPort, apiPort} {
			if r := httpDo(t, noRedirect, "GET", "http://127.0.0.1:"+p+"/healthz", "", nil, ""); r.Status != 200 {
				t.Fatalf("/healthz on %s over plain HTTP: %d", p, r.Status)
			}
		}

		r = httpDo(t, noRedirect, "GET", "http://127.0.0.1:"+appPort+"/abc?utm_source=x", "s.test", nil, "")
		if r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != "https://s.test/abc?utm_source=x" {
			t.Fatalf("short link over HTTP: %d Location %q", r.Status, r.Header.Get("Location"))
		}
		r = httpDo(t, noRedirect, "GET", "http://127.0.0.1:"+appPort+"/console", "localhost:"+appPort, nil, "")
		if r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != "https://localhost:"+appPort+"/console" {
			t.Fatalf("app over HTTP: %d Location %q", r.Status, r.Header.Get("Location"))
		}
		r = httpDo(t, noRedirect, "GET", "http://127.0.0.1:"+appPort+"/abc", "s.test", map[string]string{"X-Forwarded-Proto": "https"}, "")
		if r.Status == http.StatusMovedPermanently {
			t.Fatalf("short link behind a trusted TLS proxy redirected to %s", r.Header.Get("Location"))
		}
	})
	t.Run("untrusted peer", func(t *testing.T) {
		appPort, apiPort := start(t, "10.0.0.0/8, 192.168.1.1")
		r := httpDo(t, noRedirect, "GET", "http://127.0.0.1:"+apiPort+"/workspaces/acme", "", withProto, "")
		wantError(t, r, 400, "bad_request", "")
		r = httpDo(t, noRedirect, "GET", "http://127.0.0.1:"+appPort+"/abc", "s.test", map[string]string{"X-Forwarded-Proto": "https"}, "")
		if r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != "https://s.test/abc" {
			t.Fatalf("short link, untrusted X-Forwarded-Proto: %d %q", r.Status, r.Header.Get("Location"))
		}
	})
}

// TestPlainHTTPInDev: dev mode (the default on localhost) allows HTTP.
func TestPlainHTTPInDev(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	_, key := seed(t, db, "acme", models.PlanPro)
	s := newServer(t, db, env{vars: map[string]string{"RELINK_SHORT_DOMAIN": "s.test"}})
	if !s.cfg.DevMode {
		t.Fatal("localhost origins are not dev mode")
	}
	if r := s.do(t, req{Host: apiHost, Path: "/workspaces/acme", Key: key}); r.Status != 200 {
		t.Fatalf("api over HTTP in dev: %d %s", r.Status, r.Body)
	}
	if r := s.do(t, req{Host: "s.test", Path: "/abc"}); r.Status == http.StatusMovedPermanently {
		t.Fatalf("short link redirected to HTTPS in dev: %s", r.Header.Get("Location"))
	}
}

// selfSigned writes a self-signed certificate for localhost, 127.0.0.1 and
// names, returning the cert and key paths and a pool that trusts it.
func selfSigned(t *testing.T, dir string, names ...string) (certFile, keyFile string, pool *x509.CertPool, certPEM, keyPEM []byte) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "relink test"},
		DNSNames:              append([]string{"localhost"}, names...),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(leaf)
	return certFile, keyFile, pool, certPEM, keyPEM
}

// TestTLS serves HTTPS for real with certificate files, and the plain
// RELINK_HTTP_ADDR listener upgrades short links and refuses the API.
func TestTLS(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	_, key := seed(t, db, "acme", models.PlanPro)
	certFile, keyFile, pool, _, _ := selfSigned(t, t.TempDir())
	ports := freePorts(t, 3)
	appPort, apiPort, plainPort := ports[0], ports[1], ports[2]
	s := newServer(t, db, env{vars: map[string]string{
		"RELINK_APP_URL":      "https://localhost:" + appPort,
		"RELINK_API_URL":      "https://localhost:" + apiPort,
		"RELINK_SHORT_DOMAIN": "s.test",
		"RELINK_TLS_CERT":     certFile,
		"RELINK_TLS_KEY":      keyFile,
		"RELINK_HTTP_ADDR":    "127.0.0.1:" + plainPort,
		"RELINK_DEV":          "false",
		"RELINK_SESSION_KEYS": sessionKeys,
	}})
	plan, err := s.Listeners()
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 3 {
		t.Fatalf("planned %d listeners, want app TLS, api TLS and plain HTTP: %+v", len(plan), plan)
	}
	for _, l := range plan {
		if wantTLS := !strings.HasSuffix(l.Addr, ":"+plainPort); (l.TLS != nil) != wantTLS {
			t.Fatalf("listener %s: TLS %v, want %v", l.Addr, l.TLS != nil, wantTLS)
		}
	}
	s.serveLive(t, nil)
	tlsClient := &http.Client{
		Timeout:       10 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t.Cleanup(tlsClient.CloseIdleConnections)

	for port, face := range map[string]string{appPort: "app", apiPort: "api"} {
		r := httpDo(t, tlsClient, "GET", "https://localhost:"+port+"/healthz", "", nil, "")
		if r.Status != 200 || jsonOf(t, r)["face"] != face {
			t.Fatalf("https healthz on %s: %d %s", port, r.Status, r.Body)
		}
	}
	auth := map[string]string{"Authorization": "Bearer " + key}
	for _, u := range []string{"https://localhost:" + apiPort + "/workspaces/acme", "https://localhost:" + appPort + "/api/workspaces/acme"} {
		if r := httpDo(t, tlsClient, "GET", u, "", auth, ""); r.Status != 200 || jsonOf(t, r)["slug"] != "acme" {
			t.Fatalf("API over TLS %s: %d %s", u, r.Status, r.Body)
		}
	}

	plain := "http://127.0.0.1:" + plainPort
	if r := httpDo(t, noRedirect, "GET", plain+"/healthz", "", nil, ""); r.Status != 200 {
		t.Fatalf("plain healthz: %d", r.Status)
	}
	for _, c := range []struct{ host, path, location string }{
		{"s.test", "/abc?x=1", "https://s.test/abc?x=1"},
		{"localhost:" + plainPort, "/console", "https://localhost:" + appPort + "/console"},
		{"localhost", "/abc", "https://localhost/abc"},
	} {
		r := httpDo(t, noRedirect, "GET", plain+c.path, c.host, nil, "")
		if r.Status != http.StatusMovedPermanently || r.Header.Get("Location") != c.location {
			t.Fatalf("plain %s%s: %d Location %q, want %s", c.host, c.path, r.Status, r.Header.Get("Location"), c.location)
		}
	}
	r := httpDo(t, noRedirect, "GET", plain+"/workspaces/acme", "localhost:"+apiPort, auth, "")
	wantError(t, r, 400, "bad_request", "HTTPS is required. Send this request to https://localhost:"+apiPort+"/workspaces/acme.")
}

// TestACME checks, without any network, that automatic certificates are
// limited to Relink's own hosts: the HTTP-01 challenge handler and the TLS
// certificate lookup both apply the host policy.
func TestACME(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	dir := t.TempDir()
	s := newServer(t, db, env{
		vars: map[string]string{
			"RELINK_APP_URL":      "https://app.test",
			"RELINK_API_URL":      "https://api.test",
			"RELINK_SHORT_DOMAIN": "s.test",
			"RELINK_ACME_EMAIL":   "ops@example.com",
			"RELINK_ACME_DIR":     dir,
			"RELINK_SESSION_KEYS": sessionKeys,
		},
		domains: []string{"go.example.com"},
	})
	// A pending HTTP-01 token, as autocert caches it.
	if err := os.WriteFile(filepath.Join(dir, "tok123+http-01"), []byte("tok123.proof"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host string
		ok   bool
	}{
		{"app.test", true}, {"api.test", true}, {"s.test", true}, {"go.example.com", true},
		{"evil.test", false}, {"app.test.evil", false},
	} {
		t.Run("challenge for "+c.host, func(t *testing.T) {
			r := s.do(t, req{Host: c.host, Path: "/.well-known/acme-challenge/tok123"})
			if c.ok && (r.Status != 200 || string(r.Body) != "tok123.proof") {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			if !c.ok && (r.Status != http.StatusForbidden || strings.Contains(string(r.Body), "proof")) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}

	plan, err := s.Listeners()
	if err != nil {
		t.Fatal(err)
	}
	var tlsCfg *tls.Config
	var addrs []string
	for _, l := range plan {
		addrs = append(addrs, l.Addr)
		if l.TLS != nil {
			tlsCfg = l.TLS
		}
	}
	if strings.Join(addrs, " ") != ":443 :80" || tlsCfg == nil {
		t.Fatalf("listeners %v, want TLS on :443 and plain :80", addrs)
	}
	// Seed autocert's cache with a certificate for app.test so the lookup
	// is answered without contacting an ACME server.
	_, _, _, certPEM, keyPEM := selfSigned(t, t.TempDir(), "app.test")
	if err := os.WriteFile(filepath.Join(dir, "app.test"), append(keyPEM, certPEM...), 0o600); err != nil {
		t.Fatal(err)
	}
	hello := func(name string) *tls.ClientHelloInfo {
		return &tls.ClientHelloInfo{ServerName: name, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}}
	}
	cert, err := tlsCfg.GetCertificate(hello("app.test"))
	if err != nil || len(cert.Certificate) == 0 {
		t.Fatalf("certificate for app.test from the cache: %v", err)
	}
	if leaf, err := x509.ParseCertificate(cert.Certificate[0]); err != nil || leaf.VerifyHostname("app.test") != nil {
		t.Fatalf("served certificate is not app.test's: %v", err)
	}
	if _, err := tlsCfg.GetCertificate(hello("evil.test")); err == nil || !strings.Contains(err.Error(), "not a Relink origin") {
		t.Fatalf("certificate for evil.test: %v", err)
	}
}
