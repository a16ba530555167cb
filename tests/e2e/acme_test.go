package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/letsencrypt/pebble/v2/ca"
	pebbledb "github.com/letsencrypt/pebble/v2/db"
	"github.com/letsencrypt/pebble/v2/va"
	"github.com/letsencrypt/pebble/v2/wfe"
	"github.com/miekg/dns"
)

// pebble is Let's Encrypt's test ACME server, run in this process on
// loopback: its directory over HTTPS (a test certificate the child trusts
// through SSL_CERT_FILE), its validation authority dialling the challenge
// ports the test names, and a DNS server that resolves every name to
// 127.0.0.1 for it. Validation is real (no PEBBLE_VA_ALWAYS_VALID): the
// VA fetches HTTP-01 tokens and makes TLS-ALPN-01 handshakes against the
// relink process.
type pebble struct {
	Directory string // the ACME directory URL
	CAFile    string // PEM of the directory's HTTPS certificate (SSL_CERT_FILE)
	Roots     *x509.CertPool
	logs      *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startPebble runs pebble whose VA validates HTTP-01 on httpPort and
// TLS-ALPN-01 on tlsPort.
func startPebble(t *testing.T, httpPort, tlsPort int) *pebble {
	t.Helper()
	t.Setenv("PEBBLE_VA_NOSLEEP", "1") // no random 0–15 s wait before each validation
	dnsAddr := loopbackDNS(t)
	logs := &lockedBuffer{}
	logger := log.New(logs, "pebble ", log.LstdFlags)
	store := pebbledb.NewMemoryStore()
	authority := ca.New(logger, store, "", "ecdsa", 0, 1, map[string]ca.Profile{"default": {Description: "default"}})
	validator := va.New(logger, httpPort, tlsPort, false, dnsAddr, store)
	front := wfe.New(logger, store, validator, authority, []string{"pebble.letsencrypt.org"}, false, false, 0, 0)
	srv := httptest.NewTLSServer(front.Handler())
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "pebble-directory.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(authority.GetRootCert(0).Cert)
	return &pebble{Directory: srv.URL + wfe.DirectoryPath, CAFile: caFile, Roots: roots, logs: logs}
}

// loopbackDNS answers every A question with 127.0.0.1 and every other one
// with no records, over TCP (pebble's VA asks over TCP) and UDP.
func loopbackDNS(t *testing.T) string {
	t.Helper()
	handler := dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		for _, q := range r.Question {
			if q.Qtype == dns.TypeA {
				m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60},
					A: net.IPv4(127, 0, 0, 1)})
			}
		}
		_ = w.WriteMsg(m)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &dns.Server{Listener: ln, Handler: handler}
	go func() { _ = srv.ActivateAndServe() }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return ln.Addr().String()
}

// gate is a TCP forwarder the VA's TLS-ALPN-01 handshakes pass through:
// open, it forwards to the relink TLS port; closed, it drops the
// connection, so the TLS-ALPN-01 challenge fails and the client falls back
// to HTTP-01.
type gate struct {
	ln     net.Listener
	open   atomic.Bool
	passed atomic.Int64
}

func newGate(t *testing.T, to string) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{ln: ln}
	g.open.Store(true)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if !g.open.Load() {
				c.Close()
				continue
			}
			g.passed.Add(1)
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c) }()
				_, _ = io.Copy(c, up)
			}()
		}
	}()
	return g
}

func (g *gate) port() int { return g.ln.Addr().(*net.TCPAddr).Port }

// dialAll is an HTTPS client that trusts roots and dials addr whatever the
// URL's host, so the URL's host is the SNI and the Host header.
func dialAll(roots *x509.CertPool, addr string) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Client{Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots},
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return d.DialContext(ctx, network, addr)
			}}}
}

// TestACME: `relink serve` with RELINK_ACME_EMAIL and RELINK_ACME_CA naming
// a real ACME server (pebble) obtains certificates on first use: for the API
// origin and a registered domain through TLS-ALPN-01, for a second
// registered domain through HTTP-01 (the TLS-ALPN-01 path closed), serves
// the domain's redirect over TLS with its SNI, and refuses a certificate for
// a name that is not registered.
func TestACME(t *testing.T) {
	p := freePorts(t, 3)
	tlsPort, httpPort := p[0], p[2]
	tlsAddr := "127.0.0.1:" + tlsPort
	g := newGate(t, tlsAddr)
	hp, _ := strconv.Atoi(httpPort)
	peb := startPebble(t, hp, g.port())
	env := map[string]string{
		"RELINK_APP_URL":       "https://app.relink.test:" + tlsPort,
		"RELINK_API_URL":       "https://api.relink.test:" + p[1],
		"RELINK_SHORT_DOMAIN":  "s.relink.test",
		"RELINK_DATABASE_URL":  "sqlite:" + filepath.Join(t.TempDir(), "relink.db"),
		"RELINK_DATA_DIR":      t.TempDir(),
		"RELINK_SESSION_KEYS":  strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32),
		"RELINK_ACME_EMAIL":    "ops@relink.test",
		"RELINK_ACME_CA":       peb.Directory,
		"RELINK_ACME_DIR":      t.TempDir(),
		"RELINK_HTTP_ADDR":     "127.0.0.1:" + httpPort,
		"RELINK_CLICK_JOURNAL": "off",
		"SSL_CERT_FILE":        peb.CAFile,
	}
	key := workspace(t, env, "acme")
	start(t, "acme", env)
	app := dialAll(peb.Roots, tlsAddr)
	apiC := dialAll(peb.Roots, "127.0.0.1:"+p[1])
	apiURL := "https://api.relink.test:" + p[1]
	call := func(method, path string, body any) int {
		t.Helper()
		return apiWith(t, apiC, apiURL, method, path, key, body, nil)
	}
	// The API origin's certificate comes from pebble on this first request.
	for _, d := range []string{"go.acme.test", "b.acme.test"} {
		if st := call("POST", "/domains", map[string]any{"slug": d}); st != 201 {
			t.Fatalf("POST /domains %s: %d\n%s", d, st, peb.logs.String())
		}
		if st := call("POST", "/links", map[string]any{"domain": d, "key": "hello", "url": "https://example.com/" + d}); st != 200 {
			t.Fatalf("POST /links on %s: %d", d, st)
		}
	}
	// A registered domain, by SNI, through TLS-ALPN-01.
	before := g.passed.Load()
	a := get(t, app, "https://go.acme.test:"+tlsPort+"/hello", "", nil)
	if a.Status != 302 || a.Location != "https://example.com/go.acme.test" {
		t.Fatalf("go.acme.test/hello over TLS: %d %q", a.Status, a.Location)
	}
	if g.passed.Load() == before {
		t.Fatal("no TLS-ALPN-01 validation reached relink for go.acme.test")
	}
	// The second one through HTTP-01: pebble's TLS-ALPN-01 handshakes are
	// dropped, autocert falls back to HTTP-01 on RELINK_HTTP_ADDR.
	g.open.Store(false)
	a = get(t, app, "https://b.acme.test:"+tlsPort+"/hello", "", nil)
	if a.Status != 302 || a.Location != "https://example.com/b.acme.test" {
		t.Fatalf("b.acme.test/hello over TLS: %d %q", a.Status, a.Location)
	}
	if !strings.Contains(peb.logs.String(), "Attempting to validate w/ HTTP: http://b.acme.test:"+httpPort+"/.well-known/acme-challenge/") {
		t.Fatalf("b.acme.test was not validated through HTTP-01:\n%s", peb.logs.String())
	}
	// Certificates are pebble's, for the name asked.
	conn, err := tls.Dial("tcp", tlsAddr, &tls.Config{ServerName: "go.acme.test", RootCAs: peb.Roots})
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.ConnectionState().PeerCertificates[0].VerifyHostname("go.acme.test"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	// An unregistered name gets no certificate: the handshake fails and
	// pebble is never asked.
	orders := strings.Count(peb.logs.String(), "Pulled a task")
	_, err = tls.Dial("tcp", tlsAddr, &tls.Config{ServerName: "evil.acme.test", RootCAs: peb.Roots})
	if err == nil {
		t.Fatal("a certificate was served for an unregistered name")
	}
	if n := strings.Count(peb.logs.String(), "Pulled a task"); n != orders || strings.Contains(peb.logs.String(), "evil.acme.test") {
		t.Fatalf("pebble was asked about evil.acme.test:\n%s", peb.logs.String())
	}
}
