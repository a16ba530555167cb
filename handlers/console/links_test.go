package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// follow clicks a short link on the app host (the dev default domain) and
// writes the click synchronously.
func (e *env) follow(t *testing.T, key string, header map[string]string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/"+key, nil)
	req.Host = appHost
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := e.srv.Root.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode < 300 || res.StatusCode > 399 {
		t.Fatalf("follow /%s: status %d", key, res.StatusCode)
	}
	if err := e.clicks.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// checkClickOnCharts: a followed link's click shows on the link's page, the overview, the list and the analytics dashboard with its filters.
func checkClickOnCharts(t *testing.T, e *env, c *client, loc string) {
	e.follow(t, "launch", map[string]string{"User-Agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"})
	r := c.get(loc)
	d := r.doc(t)
	if got := strings.TrimSpace(d.Find(`[data-testid="total-clicks"] [data-testid="total-value"]`).Text()); got != "1" {
		t.Errorf("link clicks total %q", got)
	}
	if got, _ := d.Find(`[data-testid="series-Clicks"]`).Attr("data-total"); got != "1" {
		t.Errorf("chart series total %q", got)
	}
	if got := c.get("/console").text(t, `[data-testid="overview-clicks"] [data-testid="stat-value"]`); got != "1" {
		t.Errorf("overview clicks %q", got)
	}
	if got := c.get("/console/links?search=launch").text(t, `[data-testid="link-clicks"]`); got != "1 click" {
		t.Errorf("list clicks %q", got)
	}
	r = c.get("/console/analytics?interval=24h")
	d = r.doc(t)
	if got := strings.TrimSpace(d.Find(`[data-testid="total-clicks"] [data-testid="total-value"]`).Text()); got != "1" {
		t.Errorf("dashboard clicks %q", got)
	}
	if got := strings.TrimSpace(d.Find(`[data-testid="bars-browsers"] [data-testid="bar-label"]`).First().Text()); got != "Chrome" {
		t.Errorf("top browser %q", got)
	}
	if d.Find(`[data-testid="event-row"]`).Length() != 1 {
		t.Errorf("events rows %d", d.Find(`[data-testid="event-row"]`).Length())
	}
	if d.Find(`[data-testid="chart"] svg path`).Length() < 3 {
		t.Error("chart has no series paths")
	}
	for _, q := range []string{"interval=30d", "interval=24h&linkId=" + strings.TrimPrefix(loc, "/console/links/"), "interval=30d&linkId=" + strings.TrimPrefix(loc, "/console/links/")} {
		r = c.get("/console/analytics?" + q)
		if got := r.text(t, `[data-testid="total-clicks"] [data-testid="total-value"]`); got != "1" {
			t.Errorf("%s: clicks %q", q, got)
		}
	}
	for q, want := range map[string]string{"interval=24h&domain=localhost%3A8080": "1", "interval=24h&country=US": "0", "interval=24h&browser=Chrome": "1"} {
		r = c.get("/console/analytics?" + q)
		if got := r.text(t, `[data-testid="total-clicks"] [data-testid="total-value"]`); got != want {
			t.Errorf("%s: clicks %q, want %s", q, got, want)
		}
	}
	r = c.get("/console/analytics?interval=24h&country=US")
	if chip := r.text(t, `[data-testid="active-filters"]`); !strings.Contains(chip, "🇺🇸 United States") {
		t.Errorf("filter chip %q", chip)
	}
	if v, _ := r.doc(t).Find(`#af-country option[selected]`).Attr("value"); v != "US" {
		t.Errorf("country select %q", v)
	}
	r = c.get("/console/analytics?interval=nope")
	wantStatus(t, r, http.StatusOK)
	if r.text(t, `[data-testid="alert-error"]`) == "" {
		t.Error("bad interval: no error shown")
	}
	// Dates far in the future are refused with a message, on the dashboard
	// and a link's page; the widest range accepted answers.
	for _, page := range []string{"/console/analytics?", loc + "?"} {
		r = c.get(page + "start=9999-12-31")
		wantStatus(t, r, http.StatusOK)
		if msg := r.text(t, `[data-testid="alert-error"]`); !strings.Contains(msg, "cannot be later than December 31, 2099") {
			t.Errorf("%sstart=9999-12-31: message %q", page, msg)
		}
		wantStatus(t, c.get(page+"start=2099-12-31&end=2022-09-22"), http.StatusOK)
	}
}

// checkExpiryPasswordUTM: expiry, password and UTM fields round-trip, and a bad expiry keeps the advanced section open.
func checkExpiryPasswordUTM(t *testing.T, c *client) {
	r := c.post("/console/links", url.Values{"url": {"https://example.com/promo"}, "domain": {"localhost:8080"}, "key": {"promo-2026"},
		"expiresAt": {"2030-01-02T03:04"}, "password": {"s3cret"}, "utm_source": {"newsletter"}})
	wantStatus(t, r, http.StatusSeeOther)
	d := c.get(r.Header.Get("Location")).doc(t)
	for name, want := range map[string]string{"expiresAt": "2030-01-02T03:04", "password": "s3cret", "utm_source": "newsletter"} {
		if got, _ := d.Find(`[data-testid="link-edit"] input[name="` + name + `"]`).Attr("value"); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := strings.TrimSpace(d.Find(`[data-testid="link-url"]`).Text()); !strings.Contains(got, "utm_source=newsletter") {
		t.Errorf("destination %q lacks the UTM parameter", got)
	}
	r = c.post("/console/links", url.Values{"url": {"https://example.com/x"}, "domain": {"localhost:8080"}, "expiresAt": {"not a date"}})
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("bad expiry: status %d", r.StatusCode)
	}
	if d := r.doc(t); d.Find(`[data-testid="link-advanced"][open]`).Length() != 1 {
		t.Error("advanced section closed despite its error")
	}
}

// checkLinkSearch: search filters the list, and an htmx request gets only the list.
func checkLinkSearch(t *testing.T, c *client) {
	r := c.get("/console/links?search=guide-20")
	rows := r.doc(t).Find(`[data-testid="link-row"]`)
	if rows.Length() != 1 || !strings.Contains(rows.Text(), "localhost:8080/guide-2026") {
		t.Errorf("search rows %d: %q", rows.Length(), rows.Text())
	}
	r = c.do(http.MethodGet, "/console/links?search=news-2026", nil, map[string]string{"HX-Request": "true", "HX-Target": "links-list"})
	d := r.doc(t)
	if d.Find(`[data-testid="link-filters"]`).Length() != 0 || d.Find(`[data-testid="link-row"]`).Length() != 1 {
		t.Errorf("htmx list: %.300s", r.body)
	}
}

func TestLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		e.seedWorkspace("Other", "other", "owner@other.test")

		c := e.client()
		c.signIn("owner@acme.test")

		r := c.get("/console/links")
		wantStatus(t, r, http.StatusOK)
		if r.doc(t).Find(`[data-testid="links-list"] [data-testid="empty-state"]`).Length() != 1 {
			t.Fatal("no empty state on an empty list")
		}

		r = c.post("/console/links", url.Values{"url": {"not a url"}, "domain": {"localhost:8080"}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if r.text(t, `[data-testid="field-url"] [data-testid="field-error"]`)+r.text(t, `[data-testid="alert-error"]`) == "" {
			t.Errorf("bad url: no error shown; body %s", r.body)
		}

		r = c.post("/console/links", url.Values{"url": {"https://example.com/pricing"}, "domain": {"localhost:8080"}, "key": {"launch"}})
		wantStatus(t, r, http.StatusSeeOther)
		loc := r.Header.Get("Location")
		if !strings.HasPrefix(loc, "/console/links/link_") {
			t.Fatalf("Location %q", loc)
		}
		r = c.post("/console/links", url.Values{"url": {"https://example.com/other"}, "domain": {"localhost:8080"}, "key": {"launch"}})
		wantStatus(t, r, http.StatusConflict)
		if r.text(t, `[data-testid="field-key"] [data-testid="field-error"]`) == "" {
			t.Error("taken key: no field error")
		}
		for _, k := range []string{"guide-2026", "news-2026"} {
			r := c.post("/console/links", url.Values{"url": {"https://example.com/" + k}, "domain": {"localhost:8080"}, "key": {k}})
			wantStatus(t, r, http.StatusSeeOther)
		}

		r = c.get(loc)
		wantStatus(t, r, http.StatusOK)
		d := r.doc(t)
		if got := strings.TrimSpace(d.Find(`[data-testid="link-shortlink"]`).Text()); got != "http://localhost:8080/launch" {
			t.Errorf("short link %q", got)
		}
		if cp, _ := d.Find(`[data-testid="link-copy"]`).Attr("data-copy"); cp != "http://localhost:8080/launch" {
			t.Errorf("copy button copies %q", cp)
		}
		qr, _ := d.Find(`[data-testid="link-qr"] img`).Attr("src")
		if !strings.HasPrefix(qr, "/api/qr?") {
			t.Fatalf("QR src %q", qr)
		}
		if r := c.get(qr); r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "image/png" {
			t.Errorf("QR: status %d type %q", r.StatusCode, r.Header.Get("Content-Type"))
		}

		t.Run("expiry, password and UTM", func(t *testing.T) { checkExpiryPasswordUTM(t, c) })

		t.Run("search filters the list; htmx gets only the list", func(t *testing.T) { checkLinkSearch(t, c) })

		t.Run("follow, then the click shows on the link's chart", func(t *testing.T) { checkClickOnCharts(t, e, c, loc) })

		t.Run("edit, archive, delete", func(t *testing.T) {
			r := c.post(loc, url.Values{"url": {"https://example.com/pricing-2"}, "domain": {"localhost:8080"}, "key": {"launch"}})
			wantStatus(t, r, http.StatusSeeOther)
			if got := r.Header.Get("Location"); got != loc+"?saved=1" {
				t.Errorf("after saving: %q", got)
			}
			r = c.get(loc + "?saved=1")
			if got := r.text(t, `[data-testid="link-url"]`); !strings.Contains(got, "pricing-2") {
				t.Errorf("url after edit %q", got)
			}
			// "Link saved." at the top of the page, where the reload lands
			// (issue 33 item 6), not in the form far below.
			if first := r.doc(t).Find(`[data-testid="link-page"]`).Children().First(); first.AttrOr("data-testid", "") != "alert-success" || !strings.Contains(first.Text(), "Link saved.") {
				t.Errorf("the page starts with %q", first.Text())
			}
			r = c.post(loc+"/archive", url.Values{"archived": {"1"}})
			wantStatus(t, r, http.StatusSeeOther)
			r = c.get("/console/links")
			if strings.Contains(r.doc(t).Find(`[data-testid="links-list"]`).Text(), "/launch") {
				t.Error("archived link still listed by default")
			}
			r = c.get("/console/links?archived=1")
			if !strings.Contains(r.doc(t).Find(`[data-testid="links-list"]`).Text(), "/launch") {
				t.Error("archived link missing with archived=1")
			}
			r = c.post(loc+"/delete", nil)
			wantStatus(t, r, http.StatusSeeOther)
			if r := c.get(loc); r.StatusCode == http.StatusOK {
				t.Error("deleted link still has a page")
			}
		})

		t.Run("another workspace's link is out of reach", func(t *testing.T) {
			o := e.client()
			o.signIn("owner@other.test")
			r := c.get("/console/links?search=guide-2026")
			id, _ := r.doc(t).Find(`[data-testid="link-row"]`).Attr("data-link-id")
			if id == "" {
				t.Fatal("no link id")
			}
			for name, r := range map[string]resp{
				"GET":     o.get("/console/links/" + id),
				"edit":    o.post("/console/links/"+id, url.Values{"url": {"https://evil.test"}, "domain": {"localhost:8080"}, "key": {"x"}}),
				"archive": o.post("/console/links/"+id+"/archive", url.Values{"archived": {"1"}}),
				"delete":  o.post("/console/links/"+id+"/delete", nil),
			} {
				if r.StatusCode != http.StatusNotFound {
					t.Errorf("%s: status %d, want 404", name, r.StatusCode)
				}
			}
			if r := c.get("/console/links?search=guide-2026"); !strings.Contains(r.text(t, `[data-testid="link-url"]`), "example.com/guide-2026") {
				t.Error("the link changed")
			}
			if r := o.get("/console/links"); r.doc(t).Find(`[data-testid="link-row"]`).Length() != 0 {
				t.Error("other workspace sees links")
			}
		})
	})
}
