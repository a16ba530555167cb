package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/brotli"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/static"
)

const (
	appHost   = "localhost:8080"
	apiHost   = "localhost:8081"
	shortHost = "go.test" // RELINK_SHORT_DOMAIN in newPagesServer
)

// newPagesServer builds the server as main does, on a fresh SQLite database,
// with a short domain distinct from the app host so both page faces can be
// reached.
func newPagesServer(t *testing.T) *handlers.Server {
	t.Helper()
	env := map[string]string{
		"RELINK_SHORT_DOMAIN": shortHost,
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	db := testdb.Open(t, "sqlite")
	return apptest.New(t, cfg, app.Options{DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

type response struct {
	*http.Response
	body []byte
}

func do(t *testing.T, srv *handlers.Server, host, target string, header map[string]string) response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Host = host
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := srv.Root.Test(req, -1)
	if err != nil {
		t.Fatalf("GET %s%s: %v", host, target, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return response{res, body}
}

func (r response) doc(t *testing.T) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return d
}

func TestStaticFiles(t *testing.T) {
	srv := newPagesServer(t)
	css, ok := static.Lookup("css/app.css")
	if !ok {
		t.Fatal("css/app.css is not embedded")
	}
	tests := []struct {
		name        string
		host        string
		target      string
		contentType string
		cache       string
		body        []byte
	}{
		{"fingerprinted css", appHost, static.URL("css/app.css"), "text/css; charset=utf-8", "public, max-age=31536000, immutable", css.Body},
		{"fingerprinted js", appHost, static.URL("js/htmx.min.js"), "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", nil},
		{"fingerprinted svg", appHost, static.URL("favicon.svg"), "image/svg+xml", "public, max-age=31536000, immutable", nil},
		{"no fingerprint", appHost, "/static/css/app.css", "text/css; charset=utf-8", "public, max-age=300", css.Body},
		{"stale fingerprint", appHost, "/static/css/app.css?v=00000000", "text/css; charset=utf-8", "public, max-age=300", css.Body},
		{"short-link face", shortHost, static.URL("css/app.css"), "text/css; charset=utf-8", "public, max-age=31536000, immutable", css.Body},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, srv, tt.host, tt.target, nil)
			if r.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200; body %.200s", r.StatusCode, r.body)
			}
			if got := r.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tt.contentType)
			}
			if got := r.Header.Get("Cache-Control"); got != tt.cache {
				t.Errorf("Cache-Control = %q, want %q", got, tt.cache)
			}
			if r.Header.Get("ETag") == "" {
				t.Error("no ETag")
			}
			if r.Header.Get("Content-Encoding") != "" {
				t.Errorf("Content-Encoding = %q without Accept-Encoding", r.Header.Get("Content-Encoding"))
			}
			if tt.body != nil && !bytes.Equal(r.body, tt.body) {
				t.Errorf("body differs from the embedded file (%d bytes, want %d)", len(r.body), len(tt.body))
			}
		})
	}
}

func TestStaticCompressionAndRevalidation(t *testing.T) {
	srv := newPagesServer(t)
	js, _ := static.Lookup("js/htmx.min.js")
	target := static.URL("js/htmx.min.js")
	decoders := map[string]func(io.Reader) (io.Reader, error){
		"gzip": func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
		"br":   func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
	}
	tests := []struct {
		accept, want string
	}{
		{"gzip", "gzip"},
		{"gzip, deflate, br", "br"},
		{"br;q=0, gzip;q=0.5", "gzip"},
		{"identity", ""},
		{"gzip;q=0", ""},
	}
	for _, tt := range tests {
		t.Run("Accept-Encoding "+tt.accept, func(t *testing.T) {
			r := do(t, srv, appHost, target, map[string]string{"Accept-Encoding": tt.accept})
			if got := r.Header.Get("Content-Encoding"); got != tt.want {
				t.Fatalf("Content-Encoding = %q, want %q", got, tt.want)
			}
			if !strings.Contains(r.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary = %q, want Accept-Encoding", r.Header.Get("Vary"))
			}
			body := io.Reader(bytes.NewReader(r.body))
			if tt.want != "" {
				if len(r.body) >= len(js.Body) {
					t.Errorf("%s body is %d bytes, not smaller than %d", tt.want, len(r.body), len(js.Body))
				}
				var err error
				if body, err = decoders[tt.want](body); err != nil {
					t.Fatalf("decode %s: %v", tt.want, err)
				}
			}
			got, err := io.ReadAll(body)
			if err != nil {
				t.Fatalf("decode %s: %v", tt.want, err)
			}
			if !bytes.Equal(got, js.Body) {
				t.Errorf("decoded body differs from htmx.min.js")
			}
		})
	}

	t.Run("HEAD", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodHead, target, nil)
		req.Host = appHost
		res, err := srv.Root.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || len(b) != 0 || res.Header.Get("Content-Length") != strconv.Itoa(len(js.Body)) {
			t.Errorf("HEAD: %d, %d-byte body, Content-Length %q", res.StatusCode, len(b), res.Header.Get("Content-Length"))
		}
	})

	t.Run("If-None-Match", func(t *testing.T) {
		first := do(t, srv, appHost, target, nil)
		etag := first.Header.Get("ETag")
		r := do(t, srv, appHost, target, map[string]string{"If-None-Match": etag})
		if r.StatusCode != http.StatusNotModified {
			t.Fatalf("status = %d, want 304", r.StatusCode)
		}
		if len(r.body) != 0 {
			t.Errorf("304 with a %d-byte body", len(r.body))
		}
		r = do(t, srv, appHost, target, map[string]string{"If-None-Match": `W/"other"`})
		if r.StatusCode != http.StatusOK {
			t.Errorf("status with another ETag = %d, want 200", r.StatusCode)
		}
	})
}

func TestHTMLErrorPages(t *testing.T) {
	srv := newPagesServer(t)
	tests := []struct {
		name, host, target string
		status             int
		home               string
	}{
		{"unknown static file", appHost, "/static/css/nope.css", 404, "/"},
		{"static directory", appHost, "/static/css", 404, "/"},
		{"unknown page on the app face", appHost, "/no/such/page", 404, "/"},
		{"unknown static file on the short face", shortHost, "/static/nope.js", 404, "http://localhost:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, srv, tt.host, tt.target, nil)
			if r.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d", r.StatusCode, tt.status)
			}
			if got := r.Header.Get("Content-Type"); got != "text/html; charset=utf-8" {
				t.Errorf("Content-Type = %q", got)
			}
			if r.Header.Get("Cache-Control") == "public, max-age=31536000, immutable" {
				t.Error("an error page is cached as immutable")
			}
			d := r.doc(t)
			if d.Find("html").AttrOr("lang", "") != "en" {
				t.Error("no <html lang=en>")
			}
			if got := strings.TrimSpace(d.Find("[data-testid=error-status]").Text()); got != "404" {
				t.Errorf("error-status = %q", got)
			}
			if got := d.Find("[data-testid=error-title]").Text(); got != "Page not found" {
				t.Errorf("error-title = %q", got)
			}
			if d.Find("[data-testid=error-message]").Text() == "" {
				t.Error("no error message")
			}
			if got := d.Find("a[data-testid=error-home]").AttrOr("href", ""); got != tt.home {
				t.Errorf("home link = %q, want %q", got, tt.home)
			}
			if got := d.Find("title").Text(); got != "Page not found · Relink" {
				t.Errorf("title = %q", got)
			}
			if d.Find("[data-testid=error-request-id]").Text() != "Request ID: "+r.Header.Get("X-Request-Id") {
				t.Errorf("request id %q not on the page", r.Header.Get("X-Request-Id"))
			}
		})
	}

	t.Run("htmx request gets the fragment", func(t *testing.T) {
		r := do(t, srv, appHost, "/no/such/page", map[string]string{"HX-Request": "true"})
		if r.StatusCode != 404 {
			t.Fatalf("status = %d, want 404", r.StatusCode)
		}
		if bytes.Contains(r.body, []byte("<html")) || bytes.Contains(r.body, []byte("<head")) {
			t.Errorf("fragment contains the layout: %.200s", r.body)
		}
		if !bytes.HasPrefix(r.body, []byte(`<main`)) {
			t.Errorf("fragment does not start with the error component: %.80s", r.body)
		}
		if !strings.Contains(r.Header.Get("Vary"), "HX-Request") {
			t.Errorf("Vary = %q, want HX-Request", r.Header.Get("Vary"))
		}
	})

	t.Run("boosted htmx request gets the page", func(t *testing.T) {
		r := do(t, srv, appHost, "/no/such/page", map[string]string{"HX-Request": "true", "HX-Boosted": "true"})
		if r.doc(t).Find("head link[rel=stylesheet]").Length() != 1 {
			t.Errorf("boosted request did not get the full page: %.200s", r.body)
		}
	})

	t.Run("API face still answers JSON", func(t *testing.T) {
		for _, host := range []string{apiHost, appHost} {
			target := "/no/such/endpoint"
			if host == appHost {
				target = "/api/no/such/endpoint"
			}
			// Unknown API paths are the JSON 404, never an HTML page.
			r := do(t, srv, host, target, nil)
			if r.StatusCode != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Errorf("%s%s: %d %q", host, target, r.StatusCode, r.Header.Get("Content-Type"))
			}
		}
	})
}

var cspNonce = regexp.MustCompile(`script-src [^;]*'nonce-([A-Za-z0-9_-]+)'`)

func TestPageLayoutAndCSP(t *testing.T) {
	srv := newPagesServer(t)
	seen := map[string]bool{}
	for _, host := range []string{appHost, appHost, shortHost} {
		r := do(t, srv, host, "/no/such/page", nil)
		csp := r.Header.Get("Content-Security-Policy")
		m := cspNonce.FindStringSubmatch(csp)
		if m == nil {
			t.Fatalf("%s: no script nonce in CSP %q", host, csp)
		}
		nonce := m[1]
		if len(nonce) < 22 {
			t.Errorf("nonce %q is shorter than 128 bits", nonce)
		}
		if seen[nonce] {
			t.Errorf("nonce %q reused across requests", nonce)
		}
		seen[nonce] = true
		for _, directive := range []string{"default-src 'self'", "object-src 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, directive) {
				t.Errorf("CSP %q lacks %q", csp, directive)
			}
		}
		if strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "script-src 'unsafe-inline'") {
			t.Errorf("CSP allows eval or inline scripts: %q", csp)
		}
		// The embed pages must be frameable: nothing forbids it by default.
		if r.Header.Get("X-Frame-Options") != "" || strings.Contains(csp, "frame-ancestors") {
			t.Errorf("framing restricted by default: XFO %q, CSP %q", r.Header.Get("X-Frame-Options"), csp)
		}

		d := r.doc(t)
		scripts := d.Find("script")
		if scripts.Length() == 0 {
			t.Fatal("no script tags in the layout")
		}
		scripts.Each(func(_ int, s *goquery.Selection) {
			if got := s.AttrOr("nonce", ""); got != nonce {
				t.Errorf("script %q nonce = %q, want the header's %q", s.AttrOr("src", "inline"), got, nonce)
			}
		})
		if got := d.Find(`script[src]`).AttrOr("src", ""); got != static.URL("js/htmx.min.js") {
			t.Errorf("htmx src = %q, want %q", got, static.URL("js/htmx.min.js"))
		}
		css := d.Find(`head link[rel=stylesheet]`)
		if css.Length() != 1 {
			t.Fatalf("%d stylesheets, want 1", css.Length())
		}
		href := css.AttrOr("href", "")
		if href != static.URL("css/app.css") || !regexp.MustCompile(`^/static/css/app\.css\?v=[0-9a-f]{8}$`).MatchString(href) {
			t.Errorf("stylesheet href = %q, want the fingerprinted %q", href, static.URL("css/app.css"))
		}
		// The URL the layout links to is served with the long cache.
		if got := do(t, srv, host, href, nil).Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("Cache-Control of %s = %q", href, got)
		}
		if d.Find(`meta[name=viewport]`).Length() != 1 {
			t.Error("no meta viewport")
		}
		if d.Find(`link[rel=icon]`).AttrOr("href", "") != static.URL("favicon.svg") {
			t.Error("no fingerprinted favicon")
		}
		if d.Find(`body[data-testid=page-body]`).Length() != 1 {
			t.Error("no body[data-testid=page-body]")
		}
	}
}
