package embed_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

const (
	appHost = "localhost:8080"
	apiHost = "localhost:8081"
)

// env is a server over a fresh database with one advanced workspace whose
// program pays 20% per sale and $5 per lead, and lets partners create links
// to shop.example.
type env struct {
	t   *testing.T
	db  *models.DB
	srv *handlers.Server
	key string
	ws  *models.Workspace
}

func newEnv(t *testing.T, db *models.DB, slug string) *env {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		if k == "RELINK_DATABASE_URL" {
			return "sqlite:unused.db"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db}
	e.srv = apptest.New(t, cfg, app.Options{DB: db, Limiter: ratelimit.NewMemory(time.Now), Now: time.Now})
	return e.another(slug)
}

// another is a second workspace like the first on the same server.
func (e0 *env) another(slug string) *env {
	t, db, ctx := e0.t, e0.db, context.Background()
	t.Helper()
	e := &env{t: t, db: db, srv: e0.srv}
	c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Acme " + slug, Slug: slug, Plan: models.PlanAdvanced, OwnerEmail: slug + "@example.com", OwnerPasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	e.key, e.ws = c.APIKey, c.Workspace
	prog, err := db.DefaultProgram(ctx, e.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	domain, dest := appHost, "https://shop.example/"
	prog.Domain, prog.URL = &domain, &dest
	prog.MinPayoutAmount = 5000
	if err := db.SaveProgram(ctx, prog); err != nil {
		t.Fatal(err)
	}
	g, err := db.GroupByIDOrSlug(ctx, e.ws.ID, prog.ID, models.DefaultGroupSlug)
	if err != nil {
		t.Fatal(err)
	}
	g.AdditionalLinks = models.Some([]models.AdditionalLink{{Domain: "shop.example", ValidationMode: "domain"}})
	g.MaxPartnerLinks = 3
	if err := db.SaveGroup(ctx, g); err != nil {
		t.Fatal(err)
	}
	pct, five := int64(2000), int64(500)
	if err := db.SetGroupReward(ctx, g, &models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: &pct}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetGroupReward(ctx, g, &models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: &five}); err != nil {
		t.Fatal(err)
	}
	return e
}

type resp struct {
	status int
	header http.Header
	body   string
}

func (e *env) do(host, method, path, body string, hdr map[string]string) resp {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = host
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := e.srv.Root.Test(req, -1)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, string(b)}
}

// api calls the JSON API with the workspace key and wants status.
func (e *env) api(status int, method, path, body string) map[string]any {
	e.t.Helper()
	r := e.do(apiHost, method, path, body, map[string]string{"Authorization": "Bearer " + e.key})
	if r.status != status {
		e.t.Fatalf("%s %s: %d %s, want %d", method, path, r.status, r.body, status)
	}
	var m map[string]any
	_ = json.Unmarshal([]byte(r.body), &m)
	return m
}

// partner enrolls a partner with one link (key) and mints a token. The
// program has a domain and a destination, so enrolling makes the partner's
// default link; it gets key.
func (e *env) partner(tenant, key string) (token, linkID string) {
	e.t.Helper()
	p := e.api(201, "POST", "/partners", `{"email":"`+tenant+`@partners.example","name":"`+tenant+`","tenantId":"`+tenant+`"}`)
	ls, _ := p["links"].([]any)
	if len(ls) != 1 {
		e.t.Fatalf("partner %s has links %v, want its default link", tenant, p["links"])
	}
	l := ls[0].(map[string]any)
	if l["key"] != key {
		l = e.api(200, "PATCH", "/links/"+l["id"].(string), `{"key":"`+key+`"}`)
	}
	tok := e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"`+tenant+`"}`)
	return tok["publicToken"].(string), l["id"].(string)
}

// convert records n clicks on the link, a lead and a sale of amount for
// customer (email).
func (e *env) convert(linkID string, clicks int, customer, email string, amount int) {
	e.t.Helper()
	ctx := context.Background()
	l, err := e.db.LinkByID(ctx, e.ws.ID, linkID)
	if err != nil {
		e.t.Fatal(err)
	}
	var batch []models.Click
	for i := 0; i < clicks; i++ {
		batch = append(batch, models.Click{ClickID: ids.Nano(16), Timestamp: time.Now(), WorkspaceID: e.ws.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key, Country: "US"})
	}
	if _, err := e.db.RecordClicks(ctx, batch); err != nil {
		e.t.Fatal(err)
	}
	if customer == "" {
		return
	}
	e.api(200, "POST", "/track/lead", `{"clickId":"`+batch[0].ClickID+`","eventName":"Sign up","customerExternalId":"`+customer+`","customerEmail":"`+email+`"}`)
	if amount > 0 {
		e.api(200, "POST", "/track/sale", `{"customerExternalId":"`+customer+`","amount":`+itoa(amount)+`,"invoiceId":"inv_`+customer+`"}`)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

func doc(t *testing.T, body string) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func text(d *goquery.Document, sel string) string {
	return strings.TrimSpace(d.Find(sel).First().Text())
}

func TestEmbedPageAndFragments(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db, "acme")
		tokA, linkA := e.partner("alice", "alice")
		tokB, linkB := e.partner("bob", "bob")
		e.convert(linkA, 3, "cus1", "jane@gmail.com", 10000) // alice: 3 clicks, 1 lead, 1 sale
		e.convert(linkB, 5, "", "", 0)                       // bob: 5 clicks only

		pf := pageEnv{e: e, db: db, tokA: tokA, tokB: tokB, linkA: linkA, linkB: linkB}
		t.Run("page shell", func(t *testing.T) { embedPageShell(t, pf) })

		t.Run("themes fall back silently", func(t *testing.T) { embedThemesFallBackSilently(t, pf) })

		t.Run("token errors", func(t *testing.T) { embedTokenErrors(t, pf) })

		t.Run("overview is scoped to the token", func(t *testing.T) { embedOverviewIsScopedToTheToken(t, pf) })

		t.Run("earnings table masks customers", func(t *testing.T) { embedEarningsTableMasksCustomers(t, pf) })

		t.Run("analytics cover the partner's links only", func(t *testing.T) { embedAnalyticsCoverThePartnerSLinksOnly(t, pf) })

		t.Run("events of the partner's links, without IPs, customers masked", func(t *testing.T) { embedEventsOfThePartnerSLinksWithoutIPsCustom(t, pf) })

		t.Run("leaderboard is anonymised", func(t *testing.T) { embedLeaderboardIsAnonymised(t, pf) })

		t.Run("links within the rules and scoped", func(t *testing.T) { embedLinksWithinTheRulesAndScoped(t, pf) })

	})
}

// pageEnv is what TestEmbedPageAndFragments' steps share: alice (3 clicks,
// a lead and a sale) and bob (5 clicks).
type pageEnv struct {
	e            *env
	db           *models.DB
	tokA, tokB   string
	linkA, linkB string
}

// embedPageShell is TestEmbedPageAndFragments' "page shell" step.
func embedPageShell(t *testing.T, pf pageEnv) {
	e, tokA := pf.e, pf.tokA
	r := e.do(appHost, "GET", "/embed/referrals?token="+tokA+"&theme=dark&themeOptions="+url.QueryEscape(`{"backgroundColor":"#112233"}`)+"&dynamicHeight=true", "",
		map[string]string{"Cookie": "relink_session=whatever"})
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors *") {
		t.Errorf("CSP %q: want frame-ancestors * (no hostnames configured)", csp)
	}
	if xfo := r.header.Get("X-Frame-Options"); xfo != "" {
		t.Errorf("X-Frame-Options %q on the embed page", xfo)
	}
	if sc := r.header.Get("Set-Cookie"); sc != "" {
		t.Errorf("embed page sets a cookie: %q", sc)
	}
	d := doc(t, r.body)
	// framed: the root declares both colour schemes (issue 33 item 5).
	if cls, _ := d.Find("html").Attr("class"); cls != "dark framed" {
		t.Errorf("html class %q, want dark framed", cls)
	}
	root := d.Find("#embed-root")
	if st, _ := root.Attr("style"); !strings.Contains(st, "background-color: #112233") {
		t.Errorf("root style %q", st)
	}
	var hx map[string]string
	h, _ := root.Attr("hx-headers")
	if err := json.Unmarshal([]byte(h), &hx); err != nil || hx["Authorization"] != "Bearer "+tokA {
		t.Errorf("hx-headers %q", h)
	}
	if dh, _ := root.Attr("data-dynamic-height"); dh != "true" {
		t.Errorf("data-dynamic-height %q", dh)
	}
	for _, p := range []string{"/embed/referrals/fragments/overview", "/embed/referrals/fragments/earnings", "/embed/referrals/fragments/links", "/embed/referrals/fragments/leaderboard", "/embed/referrals/fragments/faq"} {
		if d.Find(`[hx-get="`+p+`"]`).Length() != 1 {
			t.Errorf("no section loads %s", p)
		}
	}
	if d.Find(`script[src^="/static/js/embed-page.js"]`).Length() != 1 {
		t.Error("page script missing")
	}
}

// embedThemesFallBackSilently is TestEmbedPageAndFragments' "themes fall back silently" step.
func embedThemesFallBackSilently(t *testing.T, pf pageEnv) {
	e, tokA := pf.e, pf.tokA
	for _, tc := range []struct{ query, class, style string }{
		{"&theme=light", "light", ""},
		{"&theme=system", "", ""},
		{"&theme=neon", "light", ""},
		{"&themeOptions=%7Bnot-json", "light", ""},
		{"&themeOptions=" + url.QueryEscape(`{"backgroundColor":"red;position:fixed"}`), "light", ""},
		{"&themeOptions=" + url.QueryEscape(`{"backgroundColor":"rgb(1, 2, 3)"}`), "light", "background-color: rgb(1, 2, 3)"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := e.do(appHost, "GET", "/embed/referrals?token="+tokA+tc.query, "", nil)
			if r.status != 200 {
				t.Fatalf("status %d", r.status)
			}
			d := doc(t, r.body)
			if cls, _ := d.Find("html").Attr("class"); cls != strings.TrimSpace(tc.class+" framed") {
				t.Errorf("html class %q, want %q", cls, tc.class)
			}
			st, _ := d.Find("#embed-root").Attr("style")
			if tc.style != "" && !strings.Contains(st, tc.style) || tc.style == "" && strings.Contains(st, "background-color") {
				t.Errorf("style %q, want %q", st, tc.style)
			}
		})
	}
}

// embedTokenErrors is TestEmbedPageAndFragments' "token errors" step.
func embedTokenErrors(t *testing.T, pf pageEnv) {
	e, db := pf.e, pf.db
	// An expired token: move its expiry into the past.
	tokOld := e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"alice"}`)["publicToken"].(string)
	sum := sha256.Sum256([]byte(tokOld))
	if err := db.Exec("UPDATE embed_tokens SET expires_at = ? WHERE token_hash = ?", time.Now().Add(-time.Minute).UTC(), hex.EncodeToString(sum[:])).Error; err != nil {
		t.Fatal(err)
	}
	// A well-formed token that was never minted.
	unknown := "dub_embed_" + strings.Repeat("0", 25)
	for _, tc := range []struct{ name, query, msg, title string }{
		{"missing", "", "Embed public token not found in the request.", "Missing access token"},
		{"malformed", "?token=%3Cscript%3E", "Invalid embed public token.", "Invalid dashboard link"},
		{"truncated", "?token=" + tokOld[:20], "Invalid embed public token.", "Invalid dashboard link"},
		{"unknown", "?token=" + unknown, "Invalid embed public token.", "Invalid dashboard link"},
		{"expired", "?token=" + tokOld, "Invalid embed public token.", "This dashboard link has expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(appHost, "GET", "/embed/referrals"+tc.query, "", nil)
			if r.status != 401 {
				t.Errorf("status %d, want 401", r.status)
			}
			d := doc(t, r.body)
			el := d.Find("[data-embed-error]")
			if code, _ := el.Attr("data-embed-error"); code != "unauthorized" {
				t.Errorf("error code %q", code)
			}
			if msg, _ := el.Attr("data-message"); msg != tc.msg {
				t.Errorf("message %q, want %q", msg, tc.msg)
			}
			// Only an expired token says "expired" on the page.
			title := strings.TrimSpace(d.Find(`[data-testid="embed-error-title"]`).Text())
			if title != tc.title || (tc.name != "expired" && strings.Contains(strings.ToLower(d.Find("body").Text()), "expired")) {
				t.Errorf("title %q, want %q; page says %q", title, tc.title, d.Find("body").Text())
			}
			if !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors *") || r.header.Get("X-Frame-Options") != "" {
				t.Errorf("error page frame headers: %v", r.header)
			}
			if d.Find(`script[src^="/static/js/embed-page.js"]`).Length() != 1 {
				t.Error("error page has no script to post the error")
			}
			// Fragments swap the error state over the dashboard.
			f := e.do(appHost, "GET", "/embed/referrals/fragments/overview", "", bearer(strings.TrimPrefix(tc.query, "?token=")))
			if tc.name == "missing" {
				f = e.do(appHost, "GET", "/embed/referrals/fragments/overview", "", nil)
			}
			if f.status != 200 || f.header.Get("HX-Retarget") != "#embed-root" || !strings.Contains(f.body, `data-embed-error="unauthorized"`) ||
				!strings.Contains(f.body, tc.title) {
				t.Errorf("fragment: %d %v %s", f.status, f.header, f.body)
			}
			// The data API answers the JSON envelope.
			j := e.do(appHost, "GET", "/api/embed/referrals/token", "", bearer(strings.TrimPrefix(tc.query, "?token=")))
			if tc.name == "missing" {
				j = e.do(appHost, "GET", "/api/embed/referrals/token", "", nil)
			}
			if j.status != 401 || !strings.Contains(j.body, `"code":"unauthorized"`) || !strings.Contains(j.body, tc.msg) {
				t.Errorf("data API: %d %s", j.status, j.body)
			}
		})
	}
}

// embedOverviewIsScopedToTheToken is TestEmbedPageAndFragments' "overview is scoped to the token" step.
func embedOverviewIsScopedToTheToken(t *testing.T, pf pageEnv) {
	e, tokA, tokB := pf.e, pf.tokA, pf.tokB
	for _, tc := range []struct {
		tok, clicks, leads, sales, earnings, link string
	}{
		{tokA, "3", "1", "1", "$25.00", "localhost:8080/alice"}, // 20% of $100 + $5 lead
		{tokB, "5", "0", "0", "$0.00", "localhost:8080/bob"},
	} {
		r := e.do(appHost, "GET", "/embed/referrals/fragments/overview", "", bearer(tc.tok))
		if r.status != 200 {
			t.Fatalf("status %d %s", r.status, r.body)
		}
		d := doc(t, r.body)
		got := []string{text(d, `[data-testid="stat-clicks"] [data-testid="stat-value"]`), text(d, `[data-testid="stat-leads"] [data-testid="stat-value"]`),
			text(d, `[data-testid="stat-sales"] [data-testid="stat-value"]`), text(d, `[data-testid="stat-earnings"] [data-testid="stat-value"]`)}
		want := []string{tc.clicks, tc.leads, tc.sales, tc.earnings}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("stats %v, want %v", got, want)
		}
		if v, _ := d.Find(`[data-testid="referral-link"]`).Attr("value"); v != tc.link {
			t.Errorf("referral link %q, want %q", v, tc.link)
		}
		// Dev serves the default short domain over plain HTTP.
		if cp, _ := d.Find(`[data-testid="copy-link"]`).Attr("data-copy"); cp != "http://"+tc.link {
			t.Errorf("copy value %q", cp)
		}
		if d.Find(`[data-testid="earnings-chart"] path`).Length() != 2 {
			t.Error("chart has no paths")
		}
	}
	r := e.do(appHost, "GET", "/embed/referrals/fragments/overview", "", bearer(tokA))
	d := doc(t, r.body)
	rewards := d.Find(`[data-testid="reward"]`).Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) })
	if strings.Join(rewards, "|") != "Earn 20% per sale for the customer's lifetime|Earn $5 per lead" {
		t.Errorf("rewards %q", rewards)
	}
	// Bullets are SVG icons, not font glyphs.
	if n := d.Find(`[data-testid="reward"] svg[data-icon="check-circle"]`).Length(); n != 2 {
		t.Errorf("%d reward icons, want 2", n)
	}
	if terms := text(d, `[data-testid="terms"]`); terms != "$50 minimum payout amount • 30-day holding period" {
		t.Errorf("terms %q", terms)
	}
}

// embedEarningsTableMasksCustomers is TestEmbedPageAndFragments' "earnings table masks customers" step.
func embedEarningsTableMasksCustomers(t *testing.T, pf pageEnv) {
	e, tokA, tokB := pf.e, pf.tokA, pf.tokB
	r := e.do(appHost, "GET", "/embed/referrals/fragments/earnings", "", bearer(tokA))
	d := doc(t, r.body)
	rows := d.Find(`[data-testid="earnings-row"]`)
	if rows.Length() != 2 {
		t.Fatalf("%d rows: %s", rows.Length(), r.body)
	}
	if c := text(d, `[data-testid="earnings-customer"]`); c != "j******@g****.com" {
		t.Errorf("customer %q", c)
	}
	if strings.Contains(r.body, "jane@gmail.com") {
		t.Error("the customer's email leaks")
	}
	rb := e.do(appHost, "GET", "/embed/referrals/fragments/earnings", "", bearer(tokB))
	if doc(t, rb.body).Find(`[data-testid="earnings-row"]`).Length() != 0 || !strings.Contains(rb.body, `data-testid="earnings-empty"`) {
		t.Errorf("bob sees earnings: %s", rb.body)
	}
	j := e.do(appHost, "GET", "/api/embed/referrals/earnings?withTotal=true", "", bearer(tokA))
	var page struct {
		Data []struct {
			Earnings int64 `json:"earnings"`
			Customer struct {
				Email string `json:"email"`
			} `json:"customer"`
			CreatedAt string `json:"createdAt"`
		} `json:"data"`
		Total int64 `json:"total"`
	}
	if err := json.Unmarshal([]byte(j.body), &page); err != nil || page.Total != 2 || len(page.Data) != 2 || page.Data[0].Customer.Email != "j******@g****.com" || !strings.HasSuffix(page.Data[0].CreatedAt, "Z") {
		t.Errorf("earnings JSON %d %s", j.status, j.body)
	}
	if j.header.Get("X-RateLimit-Limit") != "60" || j.header.Get("X-RateLimit-Remaining") == "" || j.header.Get("Retry-After") == "" {
		t.Errorf("rate limit headers %v", j.header)
	}
}

// embedAnalyticsCoverThePartnerSLinksOnly is TestEmbedPageAndFragments' "analytics cover the partner's links only" step.
func embedAnalyticsCoverThePartnerSLinksOnly(t *testing.T, pf pageEnv) {
	e, tokA, tokB := pf.e, pf.tokA, pf.tokB
	var count map[string]int64
	r := e.do(appHost, "GET", "/api/embed/referrals/analytics?event=composite", "", bearer(tokA))
	if err := json.Unmarshal([]byte(r.body), &count); err != nil || count["clicks"] != 3 || count["leads"] != 1 || count["sales"] != 1 || count["saleAmount"] != 10000 {
		t.Errorf("alice count: %d %s", r.status, r.body)
	}
	r = e.do(appHost, "GET", "/api/embed/referrals/analytics?event=composite", "", bearer(tokB))
	if err := json.Unmarshal([]byte(r.body), &count); err != nil || count["clicks"] != 5 || count["leads"] != 0 {
		t.Errorf("bob count: %d %s", r.status, r.body)
	}
	var series []map[string]any
	r = e.do(appHost, "GET", "/api/embed/referrals/analytics?event=composite&groupBy=timeseries&interval=7d", "", bearer(tokA))
	// spec/analytics.md §4: 7d starts now − 7 days, so 8 day buckets (the
	// first partial), as /analytics answers.
	if err := json.Unmarshal([]byte(r.body), &series); err != nil || len(series) != 8 {
		t.Fatalf("timeseries: %d %s", r.status, r.body)
	}
	var clicks float64
	for _, b := range series {
		clicks += b["clicks"].(float64)
	}
	if clicks != 3 {
		t.Errorf("timeseries clicks %v: %s", clicks, r.body)
	}
}

// embedEventsOfThePartnerSLinksWithoutIPsCustom is TestEmbedPageAndFragments' "events of the partner's links, without IPs, customers masked" step.
func embedEventsOfThePartnerSLinksWithoutIPsCustom(t *testing.T, pf pageEnv) {
	e, tokA, tokB := pf.e, pf.tokA, pf.tokB
	r := e.do(appHost, "GET", "/api/embed/referrals/events?event=leads&partnerId=ignored", "", bearer(tokA))
	var evs []map[string]any
	if err := json.Unmarshal([]byte(r.body), &evs); err != nil || r.status != 200 || len(evs) != 1 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if _, ok := evs[0]["ip"]; ok || strings.Contains(r.body, `"ip"`) {
		t.Errorf("IP fields leak: %s", r.body)
	}
	cu := evs[0]["customer"].(map[string]any)
	if cu["email"] != "j******@g****.com" || strings.Contains(r.body, "jane@gmail.com") {
		t.Errorf("customer %v", cu)
	}
	r = e.do(appHost, "GET", "/api/embed/referrals/events?event=clicks", "", bearer(tokB))
	if err := json.Unmarshal([]byte(r.body), &evs); err != nil || len(evs) != 5 || strings.Contains(r.body, "alice") {
		t.Errorf("bob's clicks: %d events %s", len(evs), r.body)
	}
}

// embedLeaderboardIsAnonymised is TestEmbedPageAndFragments' "leaderboard is anonymised" step.
func embedLeaderboardIsAnonymised(t *testing.T, pf pageEnv) {
	e, tokB := pf.e, pf.tokB
	r := e.do(appHost, "GET", "/api/embed/referrals/leaderboard", "", bearer(tokB))
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.body), &rows); err != nil || len(rows) != 20 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if id := rows[0]["id"].(string); !strings.HasPrefix(id, "pge_") || rows[0]["totalCommissions"].(float64) != 2500 {
		t.Errorf("first row %v", rows[0])
	}
	if rows[1]["totalCommissions"].(float64) != 0 || strings.HasPrefix(rows[1]["id"].(string), "pge_") {
		t.Errorf("filler row %v", rows[1])
	}
	f := e.do(appHost, "GET", "/embed/referrals/fragments/leaderboard", "", bearer(tokB))
	for _, leak := range []string{"alice", "bob", "partners.example"} {
		if strings.Contains(f.body, leak) {
			t.Errorf("leaderboard shows %q", leak)
		}
	}
}

// embedLinksWithinTheRulesAndScoped is TestEmbedPageAndFragments' "links within the rules and scoped" step.
func embedLinksWithinTheRulesAndScoped(t *testing.T, pf pageEnv) {
	e, tokA, tokB, linkA := pf.e, pf.tokA, pf.tokB, pf.linkA
	// Bob cannot edit Alice's link: same answer as a missing link.
	r := e.do(appHost, "PATCH", "/api/embed/referrals/links/"+linkA, `{"key":"stolen"}`, bearer(tokB))
	if r.status != 404 || !strings.Contains(r.body, "Link not found.") {
		t.Errorf("cross-partner patch: %d %s", r.status, r.body)
	}
	r = e.do(appHost, "POST", "/api/embed/referrals/links", `{"url":"https://evil.example/x","key":"b2"}`, bearer(tokB))
	if r.status != 400 || !strings.Contains(r.body, "does not match the program's link domains") {
		t.Errorf("foreign destination: %d %s", r.status, r.body)
	}
	r = e.do(appHost, "POST", "/api/embed/referrals/links", `{"url":"https://shop.example/pricing","key":"bob-pricing"}`, bearer(tokB))
	if r.status != 201 || !strings.Contains(r.body, `"key":"bob-pricing"`) {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var created map[string]any
	_ = json.Unmarshal([]byte(r.body), &created)
	r = e.do(appHost, "PATCH", "/api/embed/referrals/links/"+created["id"].(string), `{"key":"bob-plans","url":"https://shop.example/plans"}`, bearer(tokB))
	if r.status != 200 || !strings.Contains(r.body, `"key":"bob-plans"`) || !strings.Contains(r.body, "shop.example/plans") {
		t.Errorf("update: %d %s", r.status, r.body)
	}
	e.do(appHost, "POST", "/api/embed/referrals/links", `{"key":"bob-3"}`, bearer(tokB))
	r = e.do(appHost, "POST", "/api/embed/referrals/links", `{"key":"bob-4"}`, bearer(tokB))
	if r.status != 400 || !strings.Contains(r.body, "You have reached the limit of 3 program links.") {
		t.Errorf("limit: %d %s", r.status, r.body)
	}
	// The HTMX form shows the error under the key.
	f := e.do(appHost, "POST", "/embed/referrals/fragments/links", "", map[string]string{"Authorization": "Bearer " + tokA, "Content-Type": "application/x-www-form-urlencoded"})
	if !strings.Contains(f.body, `data-testid="link-error"`) {
		t.Errorf("empty form: %s", f.body)
	}
	list := e.do(appHost, "GET", "/api/embed/referrals/links", "", bearer(tokA))
	if strings.Contains(list.body, "bob") || !strings.Contains(list.body, `"key":"alice"`) {
		t.Errorf("alice's links: %s", list.body)
	}
}

// TestEmbedRateLimitResetUnit: the embed's X-RateLimit-Reset is the Unix
// epoch in milliseconds, as the API's (one unit, spec/links.md §1.6; upstream
// sends Upstash's millisecond reset on the embed routes too), within the
// coming minute.
func TestEmbedRateLimitResetUnit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db, "rlunit")
		tok, _ := e.partner("rl-unit", "rl-unit")
		before := time.Now()
		r := e.do(appHost, "GET", "/api/embed/referrals/token", "", bearer(tok))
		if r.status != 200 {
			t.Fatalf("token probe: %d %s", r.status, r.body)
		}
		reset, err := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil {
			t.Fatalf("X-RateLimit-Reset %q: %v", r.header.Get("X-RateLimit-Reset"), err)
		}
		if at := time.UnixMilli(reset); at.Before(before) || at.After(before.Add(61*time.Second)) {
			t.Fatalf("X-RateLimit-Reset %d is %v, not a millisecond epoch within the minute after %v", reset, at, before)
		}
	})
}
