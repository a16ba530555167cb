package handlers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

const (
	chromeUA  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	iphoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
	androidUA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
	slackUA   = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
)

// redirectEnv is a server on a real database with its own click pipeline, the
// way cmd/relink wires it.
type redirectEnv struct {
	t      *testing.T
	db     *models.DB
	srv    *handlers.Server
	clicks *ingest.Pipeline
	ws     *models.Workspace
	now    time.Time
	n      int
}

func newRedirectEnv(t *testing.T, db *models.DB, env map[string]string) *redirectEnv {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	e := &redirectEnv{t: t, db: db, now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	e.srv = apptest.New(t, cfg, app.Options{DB: db, Now: func() time.Time { return e.now }})
	e.clicks = e.srv.Services().Clicks
	e.ws, err = db.CreateWorkspace(context.Background(), "Acme", "acme-"+strings.ToLower(t.Name()[len(t.Name())-6:]), models.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	// acme.link is a registered domain (www.acme.link is served as it).
	apptest.RegisterDomains(t, e.srv, e.ws.ID, "acme.link")
	return e
}

func (e *redirectEnv) link(l models.Link) *models.Link {
	e.t.Helper()
	l.WorkspaceID = e.ws.ID
	if l.Domain == "" {
		l.Domain = "acme.link"
	}
	if err := e.db.CreateLink(context.Background(), &l); err != nil {
		e.t.Fatal(err)
	}
	return &l
}

type rreq struct {
	method, host, path string
	ua, body           string
	sameVisitor        bool // keep the UA as is (otherwise each request is a new visitor)
	header             map[string]string
	cookies            map[string]string
}

func (e *redirectEnv) do(r rreq) *http.Response {
	e.t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	if r.host == "" {
		r.host = "acme.link"
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr := httptest.NewRequest(r.method, "http://"+r.host+r.path, body)
	hr.Host = r.host
	if r.ua == "" {
		r.ua = chromeUA
	}
	// Each request is a distinct visitor a second later, so the 1-hour
	// de-duplication does not hide clicks (TestRedirectDedup covers it).
	e.n++
	e.now = e.now.Add(time.Second)
	if !r.sameVisitor {
		r.ua += fmt.Sprintf(" visitor/%d", e.n)
	}
	hr.Header.Set("User-Agent", r.ua)
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	for k, v := range r.cookies {
		hr.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	resp, err := e.srv.Root.Test(hr, -1)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

func (e *redirectEnv) flush() {
	e.t.Helper()
	if err := e.clicks.Flush(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

func (e *redirectEnv) clicksOf(l *models.Link) []models.Click {
	e.t.Helper()
	e.flush()
	out, err := e.db.ClicksOfLink(context.Background(), e.ws.ID, l.ID, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func cookieOf(resp *http.Response, name string) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func doc(t *testing.T, resp *http.Response) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ptr[T any](v T) *T { return &v }

// checkStoreInterstitial: an iPhone visit to an App Store link goes through the interstitial and is one click, the click cookie's.
func checkStoreInterstitial(t *testing.T, e *redirectEnv, targeted *models.Link) {
	e.now = e.now.Add(2 * time.Hour) // outside the dedup window of earlier requests
	before := len(e.clicksOf(targeted))
	ua := iphoneUA + " interstitial"
	first := e.do(rreq{path: "/App?ref=tw", ua: ua, sameVisitor: true})
	ck := cookieOf(first, "dub_id_acme.link_app")
	if first.StatusCode != 307 || ck == nil {
		t.Fatalf("first hop %d, cookie %v", first.StatusCode, ck)
	}
	loc, _ := url.Parse(first.Header.Get("Location"))
	page := e.do(rreq{host: loc.Host, path: loc.RequestURI(), ua: ua, sameVisitor: true})
	if page.StatusCode != 200 {
		t.Fatalf("interstitial %d", page.StatusCode)
	}
	if cc := page.Header.Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("interstitial Cache-Control %q", cc)
	}
	d := doc(t, page)
	btn := d.Find(`[data-testid="deeplink-continue"]`)
	href, _ := btn.Attr("href")
	copied, _ := btn.Attr("data-copy")
	if href != "http://acme.link/App?ref=tw&skip_deeplink_preview=1" || copied != "http://acme.link/App" || !strings.Contains(btn.Text(), "App Store") {
		t.Fatalf("button %q href %q copies %q", btn.Text(), href, copied)
	}
	next, _ := url.Parse(href)
	final := e.do(rreq{path: next.RequestURI(), ua: ua, sameVisitor: true, cookies: map[string]string{ck.Name: ck.Value}})
	if final.StatusCode != 302 || final.Header.Get("Location") != "https://apps.apple.com/app/x?ref=tw" {
		t.Fatalf("store hop %d %q", final.StatusCode, final.Header.Get("Location"))
	}
	clicks := e.clicksOf(targeted)
	if len(clicks)-before != 1 || clicks[len(clicks)-1].ClickID != ck.Value {
		t.Fatalf("%d clicks stored for the visit (want 1, id %s)", len(clicks)-before, ck.Value)
	}
}

// checkRedirectHeaders: a redirect sets the click cookie, no-store and the robots tag, and stores the cookie's click.
func checkRedirectHeaders(t *testing.T, e *redirectEnv, plain *models.Link) {
	resp := e.do(rreq{path: "/Promo"})
	ck := cookieOf(resp, "dub_id_acme.link_promo")
	if ck == nil || len(ck.Value) != 16 || ck.Path != "/Promo" || ck.MaxAge != 3600 {
		t.Fatalf("click cookie %+v", ck)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	if rt := resp.Header.Get("X-Robots-Tag"); rt != "googlebot: noindex" {
		t.Errorf("X-Robots-Tag %q", rt)
	}
	clicks := e.clicksOf(plain)
	if last := clicks[len(clicks)-1]; last.ClickID != ck.Value || last.URL != "https://example.com/landing" || last.Trigger != "link" {
		t.Errorf("stored click %+v does not match the cookie %q", last, ck.Value)
	}
}

// checkCloakedPage: a cloaked link's page frames exactly its destination.
func checkCloakedPage(t *testing.T, e *redirectEnv) {
	resp := e.do(rreq{path: "/cloak"})
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src https://example.com;") {
		t.Errorf("CSP %q", csp)
	}
	if src, _ := doc(t, resp).Find("iframe").Attr("src"); src != "https://example.com/framed" {
		t.Errorf("iframe src %q", src)
	}
}

// checkOGCard: a link preview crawler gets the link's OG tags.
func checkOGCard(t *testing.T, e *redirectEnv) {
	d := doc(t, e.do(rreq{path: "/card", ua: slackUA}))
	for prop, want := range map[string]string{"og:title": "Card title", "og:description": "Card description", "og:image": "https://example.com/og.png"} {
		if got, _ := d.Find(`meta[property="` + prop + `"]`).Attr("content"); got != want {
			t.Errorf("%s = %q, want %q", prop, got, want)
		}
	}
}

func TestRedirectDecisions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{})
		past, future := e.now.Add(-time.Hour), e.now.Add(time.Hour)
		plain := e.link(models.Link{Key: "promo", URL: "https://example.com/landing"})
		root := e.link(models.Link{Key: models.RootKey, URL: "https://acme.example/"})
		utm := e.link(models.Link{Key: "Checkly", URL: "https://www.checklyhq.com/?utm_source=x&utm_medium=social&utm_campaign=checks"})
		multi := e.link(models.Link{Key: "conversion/tracking", URL: "https://example.com/multi"})
		uni := e.link(models.Link{Key: "xn--3e0b707e", URL: "https://example.com/korea"}) // 한국
		expiredTo := e.link(models.Link{Key: "old", URL: "https://example.com/", ExpiresAt: &past, ExpiredURL: ptr("https://example.com/expired")})
		expired := e.link(models.Link{Key: "gone", URL: "https://example.com/", ExpiresAt: &past})
		notYet := e.link(models.Link{Key: "soon", URL: "https://example.com/soon", ExpiresAt: &future})
		disabled := e.link(models.Link{Key: "off", URL: "https://example.com/", DisabledAt: &past})
		targeted := e.link(models.Link{Key: "app", URL: "https://example.com/web", IOS: ptr("https://apps.apple.com/app/x"),
			Android: ptr("https://play.google.com/store/apps/details?id=x")})
		iosWeb := e.link(models.Link{Key: "ios-web", URL: "https://example.com/web", IOS: ptr("https://example.com/ios")})
		e.link(models.Link{Key: "secret-app", URL: "https://example.com/web", IOS: ptr("https://apps.apple.com/app/x"), Password: ptr("pw"), Title: ptr("Secret")})
		mail := e.link(models.Link{Key: "mail", URL: "mailto:hi@example.com"})
		cloaked := e.link(models.Link{Key: "cloak", URL: "https://example.com/framed", Rewrite: true, Title: ptr("Framed")})
		proxied := e.link(models.Link{Key: "card", URL: "https://example.com/card", Proxy: true, Title: ptr("Card title"),
			Description: ptr("Card description"), Image: ptr("https://example.com/og.png")})
		e.link(models.Link{Key: "embed", URL: "https://example.com/never", Domain: "localhost:8080"})
		devLink := e.link(models.Link{Key: "dev", URL: "https://example.com/dev", Domain: "localhost:8080"})
		_ = devLink

		tests := []struct {
			name     string
			req      rreq
			status   int
			location string
			testid   string // data-testid on an HTML answer
			link     *models.Link
			recorded bool // a click is recorded for link
		}{
			{"plain link 302", rreq{path: "/promo"}, 302, "https://example.com/landing", "", plain, true},
			{"key is case-insensitive", rreq{path: "/PROMO"}, 302, "https://example.com/landing", "", plain, true},
			{"www. is ignored", rreq{host: "www.acme.link", path: "/promo"}, 302, "https://example.com/landing", "", plain, true},
			{"domain root 301", rreq{path: "/"}, 301, "https://acme.example/", "", root, true},
			{"request query merged, set semantics", rreq{path: "/checkly?utm_source=checkly&ref=tw"}, 302,
				"https://www.checklyhq.com/?utm_source=checkly&utm_medium=social&utm_campaign=checks&ref=tw", "", utm, true},
			{"qr=1 is the qr trigger and is not forwarded", rreq{path: "/promo?qr=1"}, 302, "https://example.com/landing", "", plain, true},
			{"multi-segment key", rreq{path: "/conversion/tracking"}, 302, "https://example.com/multi", "", multi, true},
			{"unicode key is punycoded", rreq{path: "/" + url.PathEscape("한국")}, 302, "https://example.com/korea", "", uni, true},
			{"expired with expiredUrl", rreq{path: "/old"}, 302, "https://example.com/expired", "", expiredTo, false},
			{"expired without", rreq{path: "/gone"}, 410, "", "link-expired", expired, false},
			{"not yet expired", rreq{path: "/soon"}, 302, "https://example.com/soon", "", notYet, true},
			{"disabled is not found", rreq{path: "/off"}, 404, "", "link-not-found", disabled, false},
			{"unknown key 404 page", rreq{path: "/nope"}, 404, "", "link-not-found", nil, false},
			{"iOS targeting", rreq{path: "/ios-web", ua: iphoneUA}, 302, "https://example.com/ios", "", iosWeb, true},
			{"App Store target: the interstitial first", rreq{path: "/app?ref=tw", ua: iphoneUA}, 307, "http://localhost:8080/deeplink/acme.link/app?ref=tw", "", targeted, true},
			{"Google Play target: the interstitial first", rreq{path: "/app", ua: androidUA}, 307, "http://localhost:8080/deeplink/acme.link/app", "", targeted, true},
			{"skip_deeplink_preview goes to the App Store", rreq{path: "/app?skip_deeplink_preview=1", ua: iphoneUA}, 302, "https://apps.apple.com/app/x", "", targeted, true},
			{"skip_deeplink_preview goes to Google Play, the short link in its referrer", rreq{path: "/app?skip_deeplink_preview=1", ua: androidUA}, 302, "https://play.google.com/store/apps/details?id=x&referrer=deepLink%3Dhttps%253A%252F%252Facme.link%252Fapp%253Fskip_deeplink_preview%253D1", "", targeted, true},
			{"interstitial for an unknown link", rreq{host: "localhost:8080", path: "/deeplink/acme.link/nope", ua: iphoneUA}, 404, "", "link-not-found", nil, false},
			{"interstitial of a password link: the short link asks first", rreq{host: "localhost:8080", path: "/deeplink/acme.link/secret-app", ua: iphoneUA}, 302, "http://acme.link/secret-app?skip_deeplink_preview=1", "", nil, false},
			{"interstitial opened on a desktop: the link as usual", rreq{host: "localhost:8080", path: "/deeplink/acme.link/app"}, 302, "http://acme.link/app?skip_deeplink_preview=1", "", targeted, false},
			{"desktop gets the url", rreq{path: "/app"}, 302, "https://example.com/web", "", targeted, true},
			{"mailto via meta refresh", rreq{path: "/mail"}, 200, "", "link-refresh", mail, true},
			{"rewrite frames the destination", rreq{path: "/cloak"}, 200, "", "link-cloaked", cloaked, true},
			{"crawler gets the OG card, no click", rreq{path: "/card", ua: slackUA}, 200, "", "link-preview", proxied, false},
			{"person on a proxy link is redirected", rreq{path: "/card"}, 302, "https://example.com/card", "", proxied, true},
			{"bot without proxy is redirected, not counted", rreq{path: "/promo", ua: "curl/8.5.0"}, 302, "https://example.com/landing", "", plain, false},
			{"HEAD is not counted", rreq{method: "HEAD", path: "/promo"}, 302, "https://example.com/landing", "", plain, false},
			{"dub-no-track is not counted", rreq{path: "/promo", header: map[string]string{"dub-no-track": "1"}}, 302, "https://example.com/landing", "", plain, false},
			{"inspect mode", rreq{path: "/promo+"}, 200, "", "link-inspect", plain, false},
			{".well-known is sent home", rreq{path: "/.well-known/security.txt"}, 302, "/?dub-no-track=1", "", nil, false},
			{"php probe is sent home", rreq{path: "/wp-login.php"}, 302, "/?dub-no-track=1", "", nil, false},
			{"app host serves the default domain", rreq{host: "localhost:8080", path: "/dev"}, 302, "https://example.com/dev", "", devLink, true},
			{"reserved path never resolves as a key", rreq{host: "localhost:8080", path: "/embed"}, 404, "", "", nil, false},
			{"healthz on a short domain is not a key", rreq{path: "/healthz"}, 200, "", "", nil, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var before int
				if tt.link != nil {
					before = len(e.clicksOf(tt.link))
				}
				resp := e.do(tt.req)
				if resp.StatusCode != tt.status {
					b, _ := io.ReadAll(resp.Body)
					t.Fatalf("status %d, want %d: %.300s", resp.StatusCode, tt.status, b)
				}
				if got := resp.Header.Get("Location"); got != tt.location {
					t.Errorf("Location %q, want %q", got, tt.location)
				}
				if tt.testid != "" {
					if n := doc(t, resp).Find(`[data-testid="` + tt.testid + `"]`).Length(); n != 1 {
						t.Errorf("page has no %s element", tt.testid)
					}
				}
				if tt.link != nil {
					after := len(e.clicksOf(tt.link))
					if got := after - before; got != map[bool]int{true: 1, false: 0}[tt.recorded] {
						t.Errorf("recorded %d clicks, want recorded=%v", got, tt.recorded)
					}
				}
			})
		}

		t.Run("redirect headers and click cookie", func(t *testing.T) { checkRedirectHeaders(t, e, plain) })
		t.Run("app-store interstitial: one click, the cookie's", func(t *testing.T) { checkStoreInterstitial(t, e, targeted) })
		t.Run("qr trigger is recorded", func(t *testing.T) {
			e.now = e.now.Add(2 * time.Hour) // outside the dedup window of earlier requests
			e.do(rreq{path: "/promo?qr=1", ua: chromeUA + " qr"})
			clicks := e.clicksOf(plain)
			if last := clicks[len(clicks)-1]; last.Trigger != "qr" || !last.QR {
				t.Errorf("last click %+v, want trigger qr", last)
			}
		})
		t.Run("cloaked page allows exactly the destination frame", func(t *testing.T) { checkCloakedPage(t, e) })
		t.Run("OG card carries the link's tags", func(t *testing.T) { checkOGCard(t, e) })
		t.Run("mailto meta refresh", func(t *testing.T) {
			d := doc(t, e.do(rreq{path: "/mail"}))
			if got, _ := d.Find(`meta[http-equiv="refresh"]`).Attr("content"); got != "0;url=mailto:hi@example.com" {
				t.Errorf("refresh %q", got)
			}
		})
	})
}

func TestRedirectConversionTracking(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{})
		tracked := e.link(models.Link{Key: "track", URL: "https://shop.example/?a=1", TrackConversion: true})
		stripe := e.link(models.Link{Key: "stripe", URL: "https://buy.stripe.com/x?dub_client_reference_id=1", TrackConversion: true})
		partner := e.link(models.Link{Key: "pat", URL: "https://shop.example/", ProgramID: ptr("prog_1"), PartnerID: ptr("pn_1")})
		_ = partner

		resp := e.do(rreq{path: "/track"})
		ck := cookieOf(resp, "dub_id_acme.link_track")
		if ck == nil {
			t.Fatal("no dub_id cookie")
		}
		if loc := resp.Header.Get("Location"); loc != "https://shop.example/?a=1&dub_id="+ck.Value {
			t.Errorf("Location %q, want dub_id=%s appended", loc, ck.Value)
		}
		// The cookie pins the click id on later visits.
		resp = e.do(rreq{path: "/track?x=y", cookies: map[string]string{"dub_id_acme.link_track": "fixedClickId0001"}})
		if loc := resp.Header.Get("Location"); loc != "https://shop.example/?a=1&dub_id=fixedClickId0001&x=y" {
			t.Errorf("with cookie: Location %q", loc)
		}
		if c := cookieOf(resp, "dub_id_acme.link_track"); c == nil || c.Value != "fixedClickId0001" {
			t.Errorf("cookie not renewed with the same id: %+v", c)
		}
		clicks := e.clicksOf(tracked)
		if len(clicks) != 2 || clicks[0].ClickID != ck.Value {
			t.Errorf("clicks %+v", clicks)
		}
		// dub-no-track: no dub_id, no click.
		resp = e.do(rreq{path: "/track?dub-no-track=1", ua: chromeUA + " nt"})
		if loc := resp.Header.Get("Location"); loc != "https://shop.example/?a=1" {
			t.Errorf("dub-no-track: Location %q", loc)
		}
		if n := len(e.clicksOf(tracked)); n != 2 {
			t.Errorf("dub-no-track recorded a click (%d)", n)
		}
		// Stripe payment links get client_reference_id.
		resp = e.do(rreq{path: "/stripe"})
		ck = cookieOf(resp, "dub_id_acme.link_stripe")
		if loc := resp.Header.Get("Location"); ck == nil || loc != "https://buy.stripe.com/x?client_reference_id=dub_id_"+ck.Value {
			t.Errorf("stripe Location %q", loc)
		}
		_ = stripe
		// Partner links carry via= and dub_id.
		resp = e.do(rreq{path: "/pat"})
		ck = cookieOf(resp, "dub_id_acme.link_pat")
		if loc := resp.Header.Get("Location"); ck == nil || loc != "https://shop.example/?via=pat&dub_id="+ck.Value {
			t.Errorf("partner Location %q", loc)
		}
	})
}

func TestRedirectPassword(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{})
		l := e.link(models.Link{Key: "secret", URL: "https://example.com/private", Password: ptr("hunter2")})

		resp := e.do(rreq{path: "/secret"})
		d := doc(t, resp)
		if resp.StatusCode != 200 || d.Find(`[data-testid="link-password"] form input[name="password"]`).Length() != 1 {
			t.Fatalf("password page: status %d", resp.StatusCode)
		}
		if d.Find(`[data-testid="password-error"]`).Length() != 0 {
			t.Error("error shown before any attempt")
		}
		resp = e.do(rreq{method: "POST", path: "/secret", body: "password=wrong"})
		d = doc(t, resp)
		if resp.StatusCode != 401 || !strings.Contains(d.Find(`[data-testid="password-error"]`).Text(), "Incorrect password") {
			t.Errorf("wrong password: status %d, error %q", resp.StatusCode, d.Find(`[data-testid="password-error"]`).Text())
		}
		if resp.Header.Get("Location") != "" || len(e.clicksOf(l)) != 0 {
			t.Error("wrong password redirected or counted")
		}
		resp = e.do(rreq{method: "POST", path: "/secret", body: "password=hunter2"})
		pw := cookieOf(resp, "dub_password_"+l.ID)
		if resp.StatusCode != 302 || resp.Header.Get("Location") != "https://example.com/private" || pw == nil || !pw.HttpOnly || pw.Path != "/secret" {
			t.Fatalf("right password: status %d location %q cookie %+v", resp.StatusCode, resp.Header.Get("Location"), pw)
		}
		resp = e.do(rreq{path: "/secret", cookies: map[string]string{pw.Name: pw.Value}, ua: chromeUA + " 2"})
		if resp.StatusCode != 302 {
			t.Errorf("password cookie not accepted: %d", resp.StatusCode)
		}
		resp = e.do(rreq{path: "/secret?pw=hunter2&x=1", ua: chromeUA + " 3"})
		if loc := resp.Header.Get("Location"); resp.StatusCode != 302 || loc != "https://example.com/private?x=1" {
			t.Errorf("?pw=: status %d Location %q (pw must not be forwarded)", resp.StatusCode, loc)
		}
		if n := len(e.clicksOf(l)); n != 3 {
			t.Errorf("%d clicks, want 3", n)
		}
		// Inspect mode does not bypass the password.
		if resp := e.do(rreq{path: "/secret+"}); doc(t, resp).Find(`[data-testid="link-password"]`).Length() != 1 {
			t.Error("inspect mode showed a protected link")
		}
		// 30 wrong attempts per 10 minutes per link.
		var last *http.Response
		for range 31 {
			last = e.do(rreq{method: "POST", path: "/secret", body: "password=nope"})
		}
		if last.StatusCode != 429 {
			t.Errorf("31st wrong password: status %d, want 429", last.StatusCode)
		}
	})
}

func TestRedirectGeo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		// The test connection comes from 0.0.0.0: trust it as the proxy.
		e := newRedirectEnv(t, db, map[string]string{"RELINK_TRUSTED_PROXIES": "0.0.0.0/32"})
		// The workspace keeps IP addresses (docs/privacy.md), except EU visitors'.
		if err := db.SetPrivacy(context.Background(), e.ws.ID, true, 0); err != nil {
			t.Fatal(err)
		}
		e.srv.Services().KeepIPs.Invalidate(e.ws.ID)
		l := e.link(models.Link{Key: "geo", URL: "https://example.com/", Geo: models.Geo{"DE": "https://example.de/", "FR": "https://example.fr/"}})
		tests := []struct {
			name, country, want string
		}{
			{"DE", "DE", "https://example.de/"},
			{"fr lower-case", "fr", "https://example.fr/"},
			{"no rule", "US", "https://example.com/"},
		}
		for i, tt := range tests {
			resp := e.do(rreq{path: "/geo", header: map[string]string{"CF-IPCountry": tt.country, "X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i+1)}})
			if loc := resp.Header.Get("Location"); loc != tt.want {
				t.Errorf("%s: Location %q, want %q", tt.name, loc, tt.want)
			}
		}
		clicks := e.clicksOf(l)
		if len(clicks) != 3 || clicks[0].Country != "DE" || clicks[0].Continent != "EU" || clicks[0].IP != "" || clicks[2].IP != "203.0.113.3" {
			t.Errorf("clicks %+v", clicks)
		}
	})
	// With no geo configuration at all, the embedded country database
	// locates the visitor by address: geo targeting and the stored click.
	t.Run("by address, no configuration", func(t *testing.T) {
		testdb.Each(t, func(t *testing.T, db *models.DB) {
			e := newRedirectEnv(t, db, map[string]string{"RELINK_TRUSTED_PROXIES": "0.0.0.0/32"})
			l := e.link(models.Link{Key: "geo", URL: "https://example.com/", Geo: models.Geo{"DE": "https://example.de/"}})
			for _, tt := range []struct{ ip, want string }{{"80.128.0.1", "https://example.de/"}, {"8.8.8.8", "https://example.com/"}} {
				resp := e.do(rreq{path: "/geo", header: map[string]string{"X-Forwarded-For": tt.ip}})
				if loc := resp.Header.Get("Location"); loc != tt.want {
					t.Errorf("%s: Location %q, want %q", tt.ip, loc, tt.want)
				}
			}
			clicks := e.clicksOf(l)
			if len(clicks) != 2 || clicks[0].Country != "DE" || clicks[0].Continent != "EU" || clicks[1].Country != "US" || clicks[1].Continent != "NA" {
				t.Errorf("clicks %+v, want DE/EU then US/NA", clicks)
			}
			if clicks[1].IP != "" {
				t.Errorf("a workspace that did not opt in kept the IP address %q", clicks[1].IP)
			}
		})
	})
	t.Run("untrusted peer's geo header is ignored", func(t *testing.T) {
		db := testdb.Open(t, "sqlite")
		e := newRedirectEnv(t, db, map[string]string{})
		e.link(models.Link{Key: "geo", URL: "https://example.com/", Geo: models.Geo{"DE": "https://example.de/"}})
		resp := e.do(rreq{path: "/geo", header: map[string]string{"CF-IPCountry": "DE"}})
		if loc := resp.Header.Get("Location"); loc != "https://example.com/" {
			t.Errorf("Location %q: a header from an untrusted peer was believed", loc)
		}
	})
}

func TestRedirectDomainSettings(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{})
		now := e.now
		aasa := `{"applinks":{"apps":[],"details":[{"appID":"TEAM.com.acme.app","paths":["*"]}]}}`
		if err := db.Model(&models.Domain{}).Where("slug = ?", "acme.link").Updates(map[string]any{"not_found_url": "https://acme.example/404",
			"expired_url": "https://acme.example/expired", "apple_app_site_association": aasa}).Error; err != nil {
			t.Fatal(err)
		}
		// The app-association files: the stored document, or 404 when unset.
		resp := e.do(rreq{path: "/.well-known/apple-app-site-association"})
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || string(body) != aasa {
			t.Errorf("AASA: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		resp = e.do(rreq{path: "/.well-known/assetlinks.json"})
		body, _ = io.ReadAll(resp.Body)
		if resp.StatusCode != 404 || !strings.Contains(string(body), "No assetlinks.json is configured for acme.link") {
			t.Errorf("unset assetlinks: %d %s", resp.StatusCode, body)
		}
		if resp := e.do(rreq{path: "/.well-known/security.txt"}); resp.StatusCode != 302 {
			t.Errorf("other well-known paths are still sent home: %d", resp.StatusCode)
		}
		past := now.Add(-time.Minute)
		e.link(models.Link{Key: "old", URL: "https://example.com/", ExpiresAt: &past})
		e.link(models.Link{Key: "off", URL: "https://example.com/", DisabledAt: &past})
		for _, tt := range []struct{ path, want string }{
			{"/nope", "https://acme.example/404"},
			{"/off", "https://acme.example/404"},
			{"/old", "https://acme.example/expired"},
		} {
			resp := e.do(rreq{path: tt.path})
			if resp.StatusCode != 307 || resp.Header.Get("Location") != tt.want {
				t.Errorf("%s: %d %q, want 307 %q", tt.path, resp.StatusCode, resp.Header.Get("Location"), tt.want)
			}
		}
	})
}

// The redirect reads the cache: a changed link is served from the cache
// until the write path invalidates it.
func TestRedirectUsesCacheUntilInvalidated(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	e := newRedirectEnv(t, db, map[string]string{})
	l := e.link(models.Link{Key: "promo", URL: "https://example.com/v1"})
	if loc := e.do(rreq{path: "/promo"}).Header.Get("Location"); loc != "https://example.com/v1" {
		t.Fatalf("Location %q", loc)
	}
	if err := db.Model(&models.Link{}).Where("id = ?", l.ID).Update("url", "https://example.com/v2").Error; err != nil {
		t.Fatal(err)
	}
	if loc := e.do(rreq{path: "/promo"}).Header.Get("Location"); loc != "https://example.com/v1" {
		t.Errorf("before invalidation: Location %q, want the cached v1", loc)
	}
	e.srv.LinkCache().Invalidate("acme.link", "PROMO")
	if loc := e.do(rreq{path: "/promo"}).Header.Get("Location"); loc != "https://example.com/v2" {
		t.Errorf("after invalidation: Location %q, want v2", loc)
	}
	// A 404 is cached too, and a newly created link invalidates it.
	if resp := e.do(rreq{path: "/new"}); resp.StatusCode != 404 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	e.link(models.Link{Key: "new", URL: "https://example.com/new"})
	e.srv.LinkCache().Invalidate("acme.link", "new")
	if loc := e.do(rreq{path: "/new"}).Header.Get("Location"); loc != "https://example.com/new" {
		t.Errorf("new link: Location %q", loc)
	}
}

// N redirects, then the server's shutdown (what SIGTERM runs): exactly N
// clicks in the database and on the link's counter.
func TestRedirectClicksSurviveShutdown(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{"RELINK_TRUSTED_PROXIES": "0.0.0.0/32"})
		l := e.link(models.Link{Key: "promo", URL: "https://example.com/"})
		const n = 300
		for i := range n {
			resp := e.do(rreq{path: "/promo", header: map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.%d.%d", i/250, i%250+1)}})
			if resp.StatusCode != 302 {
				t.Fatalf("request %d: status %d", i, resp.StatusCode)
			}
		}
		if err := e.srv.Shutdown(); err != nil {
			t.Fatal(err)
		}
		got, err := db.CountClicks(context.Background(), e.ws.ID, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Errorf("%d clicks stored after shutdown, want %d", got, n)
		}
		stored, _ := db.LinkByID(context.Background(), e.ws.ID, l.ID)
		if stored.Clicks != n || stored.LastClicked == nil {
			t.Errorf("link counter %d (last %v), want %d", stored.Clicks, stored.LastClicked, n)
		}
	})
}

// The same visitor (IP and user agent) on the same link within an hour is
// one click (spec/links.md §11).
func TestRedirectDedup(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	e := newRedirectEnv(t, db, map[string]string{})
	l := e.link(models.Link{Key: "promo", URL: "https://example.com/"})
	e.do(rreq{path: "/promo", sameVisitor: true})
	e.now = e.now.Add(30 * time.Minute)
	e.do(rreq{path: "/promo", sameVisitor: true})
	if n := len(e.clicksOf(l)); n != 1 {
		t.Errorf("%d clicks within the hour, want 1", n)
	}
	e.now = e.now.Add(31 * time.Minute)
	e.do(rreq{path: "/promo", sameVisitor: true})
	if n := len(e.clicksOf(l)); n != 2 {
		t.Errorf("%d clicks after the hour, want 2", n)
	}
}

func TestMetrics(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	e := newRedirectEnv(t, db, map[string]string{})
	e.link(models.Link{Key: "promo", URL: "https://example.com/"})
	e.do(rreq{path: "/promo"})
	e.flush()
	resp := e.do(rreq{host: "localhost:8080", path: "/metrics"})
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"relink_clicks_accepted_total 1\n", "relink_clicks_written_total 1\n", "relink_clicks_dropped_total 0\n", "relink_link_cache_hits_total"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, b)
		}
	}
}
