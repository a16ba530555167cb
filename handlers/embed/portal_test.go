package embed_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/mail"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// mailbox records what the portal sends.
type mailbox struct {
	mu   sync.Mutex
	sent []mail.Message
	got  chan mail.Message
}

func (m *mailbox) Send(_ context.Context, msg mail.Message) error {
	m.mu.Lock()
	m.sent = append(m.sent, msg)
	m.mu.Unlock()
	m.got <- msg
	return nil
}

// next is the next message sent (sign-in links leave off the request).
func (m *mailbox) next(t *testing.T) mail.Message {
	t.Helper()
	select {
	case msg := <-m.got:
		return msg
	case <-time.After(10 * time.Second):
		t.Fatal("no mail sent")
	}
	return mail.Message{}
}

var linkRe = regexp.MustCompile(`https?://\S+/partners/login/[A-Za-z0-9_-]+`)

// browser is a cookie-keeping client of the app face.
type browser struct {
	e       *env
	cookies map[string]string
}

func (b *browser) do(method, path string, form url.Values, hdr map[string]string) resp {
	b.e.t.Helper()
	h := map[string]string{}
	for k, v := range hdr {
		h[k] = v
	}
	var parts []string
	for k, v := range b.cookies {
		parts = append(parts, k+"="+v)
	}
	if len(parts) > 0 {
		h["Cookie"] = strings.Join(parts, "; ")
	}
	body := ""
	if form != nil {
		body = form.Encode()
	}
	r := b.e.doForm(method, path, body, h)
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		b.cookies[c.Name] = c.Value
	}
	return r
}

func (e *env) doForm(method, path, body string, hdr map[string]string) resp {
	e.t.Helper()
	if body != "" {
		hdr["Content-Type"] = "application/x-www-form-urlencoded"
	}
	return e.do(appHost, method, path, body, hdr)
}

var csrfRe = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF field in %s", body)
	}
	return m[1]
}

// TestPartnerPortal: a partner signs in on /partners with a one-time link
// (the same answer for an unknown address, single use, 15 minutes, limited
// per address), sees the enrollments of their address in both workspaces,
// opens each program's dashboard — the embed's fragments under the portal's
// path — and never another partner's; sign-out ends the session on the
// server.
func TestPartnerPortal(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		acme := newEnv(t, db, "acme")
		globex := acme.another("globex")
		box := &mailbox{got: make(chan mail.Message, 16)}
		acme.srv.Services().Portal.Mailer = box
		_, annLink := acme.partner("ann", "ann-acme")
		globex.partner("ann", "ann-globex")
		_, bobLink := acme.partner("bob", "bob-acme")
		clicks(t, acme, annLink, 3)
		clicks(t, acme, bobLink, 2)

		b := &browser{e: acme, cookies: map[string]string{}}
		home := b.do("GET", "/partners", nil, nil)
		if home.status != 200 || !strings.Contains(home.body, `data-testid="portal-signin-form"`) {
			t.Fatalf("GET /partners: %d", home.status)
		}
		csrf := csrfOf(t, home.body)
		if r := b.do("POST", "/partners/login", url.Values{"email": {"ann@partners.example"}}, nil); r.status != 403 {
			t.Errorf("without the CSRF token: %d", r.status)
		}
		known := b.do("POST", "/partners/login", url.Values{"email": {"ann@partners.example"}, "_csrf": {csrf}}, nil)
		unknown := b.do("POST", "/partners/login", url.Values{"email": {"zed@partners.example"}, "_csrf": {csrf}}, nil)
		nonce := regexp.MustCompile(`nonce="[^"]*"`)
		same := func(body, name string) string {
			return nonce.ReplaceAllString(strings.ReplaceAll(body, name+"@", "x@"), "")
		}
		if known.status != 200 || unknown.status != 200 || same(known.body, "ann") != same(unknown.body, "zed") {
			t.Errorf("known and unknown addresses answer differently: %d %d\n%s\n%s", known.status, unknown.status, known.body, unknown.body)
		}
		msg := box.next(t)
		link := linkRe.FindString(msg.Text)
		if len(msg.To) != 1 || msg.To[0] != "ann@partners.example" || link == "" {
			t.Fatalf("mail: %+v", msg)
		}
		path := strings.TrimPrefix(link, link[:strings.Index(link, "/partners/")])

		confirm := b.do("GET", path, nil, nil)
		if confirm.status != 200 || !strings.Contains(confirm.body, `data-testid="portal-confirm-button"`) {
			t.Fatalf("GET link: %d", confirm.status)
		}
		in := b.do("POST", path, url.Values{"_csrf": {csrfOf(t, confirm.body)}}, nil)
		if in.status != 303 || in.header.Get("Location") != "/partners" {
			t.Fatalf("use link: %d %s", in.status, in.header.Get("Location"))
		}
		other := &browser{e: acme, cookies: map[string]string{}}
		again := other.do("GET", path, nil, nil)
		if again.status != 410 || other.do("POST", path, url.Values{"_csrf": {csrfOf(t, other.do("GET", "/partners", nil, nil).body)}}, nil).status != 410 {
			t.Errorf("a used link: %d, want 410", again.status)
		}

		list := b.do("GET", "/partners", nil, nil)
		d := doc(t, list.body)
		if n := d.Find(`[data-testid="portal-program"]`).Length(); n != 2 {
			t.Fatalf("programs listed: %d, want 2 (acme and globex)", n)
		}
		enrollments, _ := db.EnrollmentsByEmail(ctx, "ANN@partners.example")
		bobs, _ := db.EnrollmentsByEmail(ctx, "bob@partners.example")
		for _, en := range enrollments {
			portalProgram(t, b, en, map[string]string{"acme": "ann-acme", "globex": "ann-globex"}[strings.ToLower(strings.TrimPrefix(en.WorkspaceName, "Acme "))])
		}
		// Another partner's enrollment is not there, page or fragment.
		for _, p := range []string{"/partners/programs/" + bobs[0].EnrollmentID, "/partners/programs/" + bobs[0].EnrollmentID + "/fragments/overview", "/partners/programs/pge_nope"} {
			if r := b.do("GET", p, nil, map[string]string{"HX-Request": "true"}); r.status != 404 || strings.Contains(r.body, "bob-acme") {
				t.Errorf("GET %s: %d", p, r.status)
			}
		}

		portalLinkLimits(t, acme)
		for _, en := range enrollments {
			if strings.HasPrefix(en.WorkspaceName, "Acme acme") {
				partnerProfileAnalytics(t, b, en.ProgramID, annLink, bobLink)
			}
		}

		// Sign-out revokes the session: a copy of the cookie is signed out too.
		stolen := &browser{e: acme, cookies: map[string]string{}}
		for k, v := range b.cookies {
			stolen.cookies[k] = v
		}
		page := b.do("GET", "/partners/programs/"+enrollments[0].EnrollmentID, nil, nil)
		if r := b.do("POST", "/partners/logout", url.Values{"_csrf": {csrfOf(t, page.body)}}, nil); r.status != 303 {
			t.Fatalf("sign out: %d", r.status)
		}
		if r := stolen.do("GET", "/partners", nil, nil); !strings.Contains(r.body, "portal-signin-form") {
			t.Error("the old cookie is still signed in")
		}
		frag := stolen.do("GET", "/partners/programs/"+enrollments[0].EnrollmentID+"/fragments/overview", nil, map[string]string{"HX-Request": "true"})
		if frag.header.Get("HX-Redirect") != "/partners" {
			t.Errorf("fragment after sign-out: %d %q", frag.status, frag.header.Get("HX-Redirect"))
		}
	})
}

// portalProgram opens one enrollment's dashboard and its fragments.
func portalProgram(t *testing.T, b *browser, en models.PortalEnrollment, key string) {
	t.Helper()
	base := "/partners/programs/" + en.EnrollmentID
	page := b.do("GET", base, nil, nil)
	d := doc(t, page.body)
	if page.status != 200 || d.Find(`#embed-root [hx-get="`+base+`/fragments/overview"]`).Length() != 1 {
		t.Fatalf("%s: %d", base, page.status)
	}
	if d.Find(`[data-testid="portal-switch-program"]`).Length() != 2 || d.Find(`[aria-current="page"]`).Length() != 1 {
		t.Errorf("%s: the program switch", base)
	}
	if strings.Contains(page.body, "Authorization") {
		t.Errorf("%s: the portal page carries a token header", base)
	}
	csrf := csrfOf(t, page.body)
	hx := map[string]string{"HX-Request": "true", "X-CSRF-Token": csrf}
	ov := b.do("GET", base+"/fragments/overview", nil, hx)
	if ov.status != 200 || !strings.Contains(ov.body, "/"+key) || strings.Contains(ov.body, "bob-acme") {
		t.Errorf("%s overview: %d, want %s only", base, ov.status, key)
	}
	links := b.do("GET", base+"/fragments/links?form=new", nil, hx)
	if !strings.Contains(links.body, `hx-post="`+base+`/fragments/links"`) {
		t.Errorf("%s links form posts elsewhere", base)
	}
	form := url.Values{"domain": {"shop.example"}, "path": {"p-" + key}, "key": {key + "-2"}}
	if r := b.do("POST", base+"/fragments/links", form, map[string]string{"HX-Request": "true"}); r.status != 403 {
		t.Errorf("%s create without CSRF: %d", base, r.status)
	}
	if r := b.do("POST", base+"/fragments/links", form, hx); r.status != 200 || !strings.Contains(r.body, key+"-2") {
		t.Errorf("%s create: %d %s", base, r.status, r.body)
	}
	for _, f := range []string{"earnings", "leaderboard", "faq", "quickstart", "settings"} {
		if r := b.do("GET", base+"/fragments/"+f, nil, hx); r.status != 200 {
			t.Errorf("%s %s: %d", base, f, r.status)
		}
	}
}

// portalLinkLimits: links per address (known or not alike) and expiry.
func portalLinkLimits(t *testing.T, e *env) {
	t.Helper()
	b := &browser{e: e, cookies: map[string]string{}}
	csrf := csrfOf(t, b.do("GET", "/partners", nil, nil).body)
	for i := 1; i <= 6; i++ {
		r := b.do("POST", "/partners/login", url.Values{"email": {"carl@partners.example"}, "_csrf": {csrf}}, nil)
		if want := map[bool]int{true: 200, false: 429}[i <= 5]; r.status != want {
			t.Errorf("link %d for one address: %d, want %d", i, r.status, want)
		}
	}
	// A link made 16 minutes ago no longer works.
	now := time.Now()
	if err := e.db.CreatePartnerLoginToken(context.Background(), hashToken("old-token"), "ann@partners.example", now.Add(-16*time.Minute), now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if r := b.do("GET", "/partners/login/old-token", nil, nil); r.status != 410 || !strings.Contains(r.body, "portal-link-invalid") {
		t.Errorf("an expired link: %d", r.status)
	}
}

func hashToken(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// partnerProfileAnalytics: GET /partner-profile/programs/{programId}/analytics
// with the portal's cookie and with a partner token counts the partner's
// links only.
func partnerProfileAnalytics(t *testing.T, b *browser, programID, mine, other string) {
	t.Helper()
	path := "/partner-profile/programs/" + programID + "/analytics"
	cookie := map[string]string{"Cookie": "relink_partner=" + b.cookies["relink_partner"]}
	call := func(query string, hdr map[string]string) resp { return b.e.do(apiHost, "GET", path+query, "", hdr) }
	if r := call("?groupBy=count", cookie); r.status != 200 || !strings.Contains(r.body, `"clicks":3`) {
		t.Errorf("count with the cookie: %d %s, want the partner's 3 clicks", r.status, r.body)
	}
	if r := call("?groupBy=top_links", cookie); r.status != 200 || !strings.Contains(r.body, mine) || strings.Contains(r.body, other) {
		t.Errorf("top_links: %d %s", r.status, r.body)
	}
	for q, want := range map[string]int{"?linkId=" + other: 404, "?linkId=-" + mine: 400, "?domain=nope.example&key=x": 404, "?linkId=" + mine: 200} {
		if r := call(q, cookie); r.status != want {
			t.Errorf("%s: %d %s, want %d", q, r.status, r.body, want)
		}
	}
	if r := call("?linkId=-"+mine, cookie); !strings.Contains(r.body, "The 'is not' filter is not supported for partner analytics.") {
		t.Errorf("negated linkId: %s", r.body)
	}
	if r := b.e.do(apiHost, "GET", "/partner-profile/programs/prog_nope/analytics", "", cookie); r.status != 404 {
		t.Errorf("another program: %d", r.status)
	}
	if r := call("", nil); r.status != 401 {
		t.Errorf("without credentials: %d", r.status)
	}
	// A partner token made in the portal works until revoked.
	list := b.do("GET", "/partners", nil, nil)
	made := b.do("POST", "/partners/tokens", url.Values{"_csrf": {csrfOf(t, list.body)}}, nil)
	token := regexp.MustCompile(`value="(rlp_[^"]+)"`).FindStringSubmatch(made.body)
	if token == nil {
		t.Fatalf("no token shown: %d", made.status)
	}
	bearer := map[string]string{"Authorization": "Bearer " + token[1]}
	if r := call("?groupBy=count", bearer); r.status != 200 || !strings.Contains(r.body, `"clicks":3`) {
		t.Errorf("count with the token: %d %s", r.status, r.body)
	}
	if r := b.do("POST", "/partners/tokens/revoke", url.Values{"_csrf": {csrfOf(t, made.body)}}, nil); r.status != 303 {
		t.Errorf("revoke: %d", r.status)
	}
	if r := call("?groupBy=count", bearer); r.status != 401 {
		t.Errorf("a revoked token: %d", r.status)
	}
}

// clicks records n clicks on a link with their hourly aggregates, as the
// click pipeline writes them, so /analytics counts them.
func clicks(t *testing.T, e *env, linkID string, n int) {
	t.Helper()
	ctx := context.Background()
	l, err := e.db.LinkByID(ctx, e.ws.ID, linkID)
	if err != nil {
		t.Fatal(err)
	}
	var batch []models.Click
	for range n {
		batch = append(batch, models.Click{ClickID: ids.Nano(16), Timestamp: time.Now().Add(-time.Hour), WorkspaceID: e.ws.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key, Country: "US"})
	}
	if _, err := e.db.RecordClicks(ctx, batch, models.AggregateClicks); err != nil {
		t.Fatal(err)
	}
}
