package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// certFiles writes a test CA's certificate for hosts and its key as PEM
// files (what RELINK_TLS_CERT and RELINK_TLS_KEY name) and returns them with
// a pool trusting the CA.
func certFiles(t *testing.T, hosts ...string) (certFile, keyFile string, roots *x509.CertPool) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "relink e2e CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	roots = x509.NewCertPool()
	roots.AddCert(ca)
	return certFile, keyFile, roots
}

// loopbackTLS is an HTTPS client that trusts roots, keeps cookies, follows
// no redirect and dials 127.0.0.1 on the URL's port whatever its host: the
// URL's host is the SNI and the Host header.
func loopbackTLS(roots *x509.CertPool) *http.Client {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Client{Timeout: 30 * time.Second, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots},
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				_, port, _ := net.SplitHostPort(addr)
				return d.DialContext(ctx, network, "127.0.0.1:"+port)
			}}}
}

// browserForm is what a browser submits for the form of the page whose
// action is action: hidden and text inputs, checked boxes, textareas, and
// each select's selected option — or its first option when none is
// selected, which is how a browser silently changes a value the page did
// not offer.
func browserForm(t *testing.T, page, action string) url.Values {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	attr := func(n *html.Node, k string) (string, bool) {
		for _, a := range n.Attr {
			if a.Key == k {
				return a.Val, true
			}
		}
		return "", false
	}
	var form *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		if a, _ := attr(n, "action"); form == nil && n.Type == html.ElementNode && n.Data == "form" && a == action {
			form = n
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if form == nil {
		t.Fatalf("no form with action %s in the page", action)
	}
	text := func(n *html.Node) string {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return b.String()
	}
	out := url.Values{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		name, named := attr(n, "name")
		switch {
		case n.Type != html.ElementNode || !named:
		case n.Data == "input":
			typ, _ := attr(n, "type")
			_, checked := attr(n, "checked")
			val, _ := attr(n, "value")
			if (typ != "checkbox" && typ != "radio" && typ != "submit" && typ != "file") || checked {
				out.Add(name, val)
			}
		case n.Data == "textarea":
			out.Add(name, text(n))
		case n.Data == "select":
			var first, chosen *html.Node
			for o := n.FirstChild; o != nil; o = o.NextSibling {
				if o.Type == html.ElementNode && o.Data == "option" {
					if first == nil {
						first = o
					}
					if _, sel := attr(o, "selected"); sel && chosen == nil {
						chosen = o
					}
				}
			}
			if chosen == nil {
				chosen = first
			}
			if chosen != nil {
				v, _ := attr(chosen, "value")
				out.Add(name, v)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(form)
	return out
}

// post submits a form as a browser does.
func post(t *testing.T, c *http.Client, rawURL string, form url.Values) answer {
	t.Helper()
	res, err := c.PostForm(rawURL, form)
	if err != nil {
		t.Fatalf("POST %s: %v", rawURL, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header.Get("Location"), res.Header, string(b)}
}

// TestProductionConsole: `relink serve` as production runs it — TLS from
// certificate files (RELINK_TLS_CERT/RELINK_TLS_KEY), session keys, the click
// journal on — configured by environment variables only. An owner signs in
// to the console over HTTPS (a wrong password is refused); a branded domain
// registered with an API key serves its link over TLS by SNI, and the click
// is stored and counted by /analytics. The console's program settings set
// the partner-link domain to that domain, and refuse another workspace's
// domain and an unregistered one as `relink program set --domain` does.
// After the operator changes RELINK_SHORT_DOMAIN, a link on the old default
// domain keeps it when its console form is saved unchanged.
func TestProductionConsole(t *testing.T) {
	p := freePorts(t, 3)
	appHost, apiHost := "app.relink.test:"+p[0], "api.relink.test:"+p[1]
	certFile, keyFile, roots := certFiles(t, "app.relink.test", "api.relink.test", "go.acme.test")
	env := map[string]string{
		"RELINK_APP_URL":      "https://" + appHost,
		"RELINK_API_URL":      "https://" + apiHost,
		"RELINK_SHORT_DOMAIN": "s.relink.test",
		"RELINK_DATABASE_URL": "sqlite:" + filepath.Join(t.TempDir(), "relink.db"),
		"RELINK_DATA_DIR":     t.TempDir(),
		"RELINK_SESSION_KEYS": strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32),
		"RELINK_TLS_CERT":     certFile,
		"RELINK_TLS_KEY":      keyFile,
		"RELINK_HTTP_ADDR":    "127.0.0.1:" + p[2],
	}
	var created struct {
		APIKey string `json:"apiKey"`
	}
	out := run(t, env, "workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "business",
		"--owner-email", "owner@acme.test", "--owner-password", "correct horse battery")
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.APIKey == "" {
		t.Fatalf("workspace create: %q (%v)", out, err)
	}
	key := created.APIKey
	otherKey := workspace(t, env, "other")
	srv := start(t, "serve", env)
	c := loopbackTLS(roots)
	appURL, apiURL := "https://"+appHost, "https://"+apiHost
	call := func(k, method, path string, body, out any) int {
		t.Helper()
		return apiWith(t, c, apiURL, method, path, k, body, out)
	}

	// The branded domain and a link on it and on the default domain.
	for _, d := range []struct{ key, slug string }{{key, "go.acme.test"}, {otherKey, "other.acme.test"}} {
		if st := call(d.key, "POST", "/domains", map[string]any{"slug": d.slug}, nil); st != 201 {
			t.Fatalf("POST /domains %s: %d", d.slug, st)
		}
	}
	var branded, onDefault struct{ ID, Domain string }
	if st := call(key, "POST", "/links", map[string]any{"domain": "go.acme.test", "key": "hello", "url": "https://example.com/hello"}, &branded); st != 200 {
		t.Fatalf("POST /links: %d", st)
	}
	if st := call(key, "POST", "/links", map[string]any{"domain": "s.relink.test", "key": "stay", "url": "https://example.com/stay"}, &onDefault); st != 200 || onDefault.Domain != "s.relink.test" {
		t.Fatalf("POST /links on the default domain: %d %+v", st, onDefault)
	}

	// A click on the branded domain over TLS (its SNI, the certificate from
	// the files), stored and counted.
	if a := get(t, c, "https://go.acme.test:"+p[0]+"/hello", "", nil); a.Status != 302 || a.Location != "https://example.com/hello" {
		t.Fatalf("https://go.acme.test/hello: %d %q", a.Status, a.Location)
	}
	// (Polled gently: /analytics has its own rate limit.)
	eventually(t, 10*time.Second, func() string {
		time.Sleep(200 * time.Millisecond)
		var count map[string]any
		if st := call(key, "GET", "/analytics?event=clicks&groupBy=count&interval=all&domain=go.acme.test&key=hello", nil, &count); st != 200 {
			return "GET /analytics: " + http.StatusText(st)
		}
		if count["clicks"] != float64(1) {
			b, _ := json.Marshal(count)
			return "analytics " + string(b) + ", want 1 click"
		}
		return ""
	})

	// Console sign-in over HTTPS: the session cookie is Secure (not dev mode).
	if a := signIn(t, c, appURL, "wrong"); a.Status != 401 {
		t.Fatalf("sign-in with a wrong password: %d", a.Status)
	}
	a := signIn(t, c, appURL, "correct horse battery")
	if a.Status != 303 {
		t.Fatalf("sign-in: %d %q", a.Status, a.Location)
	}
	if ck := strings.Join(a.Header.Values("Set-Cookie"), "\n"); !strings.Contains(ck, "; secure") && !strings.Contains(ck, "; Secure") {
		t.Errorf("session cookie over HTTPS is not Secure: %s", ck)
	}
	if h := get(t, c, appURL+"/console", "", nil); h.Status != 200 || !strings.Contains(h.Body, "owner@acme.test") {
		t.Fatalf("console after sign-in: %d", h.Status)
	}

	// Program settings: the partner-link domain, validated as the CLI does.
	consoleProgramDomain(t, c, appURL, env)

	// The operator moves the default short domain: the link on the old one
	// is offered its own domain and keeps it when saved unchanged.
	srv.Stop()
	env["RELINK_SHORT_DOMAIN"] = "s2.relink.test"
	start(t, "serve again", env)
	c = loopbackTLS(roots)
	if a := signIn(t, c, appURL, "correct horse battery"); a.Status != 303 {
		t.Fatalf("sign-in after the restart: %d", a.Status)
	}
	for _, l := range []struct{ id, domain string }{{onDefault.ID, "s.relink.test"}, {branded.ID, "go.acme.test"}} {
		path := "/console/links/" + l.id
		form := browserForm(t, get(t, c, appURL+path, "", nil).Body, path)
		if form.Get("domain") != l.domain {
			t.Errorf("link form of %s submits domain %q", l.domain, form.Get("domain"))
		}
		form.Set("url", "https://example.com/edited")
		if a := post(t, c, appURL+path, form); a.Status != 303 {
			t.Fatalf("save the link form: %d", a.Status)
		}
		var got struct{ Domain, URL string }
		if st := call(key, "GET", "/links/"+l.id, nil, &got); st != 200 || got.Domain != l.domain || got.URL != "https://example.com/edited" {
			t.Errorf("after saving the form: %d %+v, want domain %s", st, got, l.domain)
		}
	}
}

// signIn posts the console's sign-in form as the owner with password.
func signIn(t *testing.T, c *http.Client, appURL, password string) answer {
	t.Helper()
	form := browserForm(t, get(t, c, appURL+"/console/login", "", nil).Body, "/console/login")
	form.Set("email", "owner@acme.test")
	form.Set("password", password)
	return post(t, c, appURL+"/console/login", form)
}

// consoleProgramDomain sets the program's partner-link domain on the
// console's program page (the program made first if there is none): another
// workspace's domain and an unregistered one are refused with the message of
// `relink program set --domain` and change nothing; go.acme.test is stored
// (as `relink program show` reads it) and shown selected.
func consoleProgramDomain(t *testing.T, c *http.Client, appURL string, env map[string]string) {
	t.Helper()
	page := get(t, c, appURL+"/console/program", "", nil)
	if strings.Contains(page.Body, `action="/console/program"`) { // no program yet
		if a := post(t, c, appURL+"/console/program", browserForm(t, page.Body, "/console/program")); a.Status != 303 {
			t.Fatalf("create the program: %d", a.Status)
		}
	}
	programDomain := func() string {
		var show struct{ Domain string }
		if err := json.Unmarshal([]byte(run(t, env, "program", "show", "--workspace", "acme")), &show); err != nil {
			t.Fatal(err)
		}
		return show.Domain
	}
	page = get(t, c, appURL+"/console/program", "", nil)
	form := browserForm(t, page.Body, "/console/program/domain")
	if form.Get("domain") != "s.relink.test" {
		t.Fatalf("program domain form offers %q first, want the current default domain", form.Get("domain"))
	}
	initial := programDomain()
	for _, bad := range []string{"other.acme.test", "nobody.test"} {
		form.Set("domain", bad)
		a := post(t, c, appURL+"/console/program/domain", form)
		if a.Status != 403 || !strings.Contains(a.Body, "Domain "+bad+" does not belong to workspace") {
			t.Errorf("program domain %s: %d, want 403 with the CLI's message", bad, a.Status)
		}
	}
	if d := programDomain(); d != initial {
		t.Fatalf("program domain after refusals: %q, was %q", d, initial)
	}
	form.Set("domain", "go.acme.test")
	if a := post(t, c, appURL+"/console/program/domain", form); a.Status != 303 {
		t.Fatalf("program domain go.acme.test: %d", a.Status)
	}
	if d := programDomain(); d != "go.acme.test" {
		t.Fatalf("program domain %q, want go.acme.test", d)
	}
	page = get(t, c, appURL+"/console/program", "", nil)
	if f := browserForm(t, page.Body, "/console/program/domain"); f.Get("domain") != "go.acme.test" {
		t.Fatalf("program page shows domain %q after the change", f.Get("domain"))
	}
}
