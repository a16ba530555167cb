package handlers_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// trackVisit posts a /track/visit body to the API face.
func (e *redirectEnv) trackVisit(body, ua string, header map[string]string) (int, http.Header, map[string]any) {
	e.t.Helper()
	h := map[string]string{"User-Agent": ua}
	for k, v := range header {
		h[k] = v
	}
	return e.post("/track/visit", body, h)
}

// TestTrackVisit: POST /track/visit (Dub's site-visit tracking) names the
// link by the site's domain and the page's path (_root for /), records a
// pageview click with the page's URL and referrer, answers the same id to
// the same visitor, answers a page off the allowed hostnames with an id it
// does not record (counted in /metrics), and carries CORS on every answer.
func TestTrackVisit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{})
		ctx := context.Background()
		root := e.link(models.Link{Domain: "site.example", Key: models.RootKey, URL: "https://site.example/"})
		pricing := e.link(models.Link{Domain: "site.example", Key: "pricing", URL: "https://site.example/pricing"})

		t.Run("errors, with CORS headers", func(t *testing.T) { trackVisitErrors(t, e) })

		t.Run("a pageview click, the same id for the same visitor", func(t *testing.T) {
			body := `{"domain":"site.example","url":"https://site.example/pricing?plan=pro","referrer":"https://news.example/post"}`
			status, h, m := e.trackVisit(body, chromeUA+" visit-a", nil)
			id, _ := m["clickId"].(string)
			if status != 200 || len(id) != 16 || len(m) != 1 || h.Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("%d %v %v", status, m, h)
			}
			if _, _, again := e.trackVisit(body, chromeUA+" visit-a", nil); again["clickId"] != id {
				t.Errorf("same visitor got %v, want %s", again["clickId"], id)
			}
			// /track/click on the same link shares the same-visitor answer.
			if _, _, c := e.trackClick(`{"domain":"site.example","key":"pricing"}`, chromeUA+" visit-a", nil); c["clickId"] != id {
				t.Errorf("/track/click for the same visitor and link got %v, want %s", c["clickId"], id)
			}
			if _, _, other := e.trackVisit(body, chromeUA+" visit-b", nil); other["clickId"] == id || other["clickId"] == nil {
				t.Errorf("another visitor got %v", other["clickId"])
			}
			clicks := e.clicksOf(pricing)
			if len(clicks) != 2 {
				t.Fatalf("%d clicks stored, want 2 (two visitors)", len(clicks))
			}
			var c *models.Click
			for i := range clicks {
				if clicks[i].ClickID == id {
					c = &clicks[i]
				}
			}
			if c == nil || c.Trigger != "pageview" || c.URL != "https://site.example/pricing?plan=pro" || c.Referer != "news.example" ||
				c.RefererURL != "https://news.example/post" || c.Domain != "site.example" || c.Key != "pricing" {
				t.Fatalf("stored click %+v", c)
			}
		})

		t.Run("dub-no-track: an id, no click", func(t *testing.T) {
			before := len(e.clicksOf(pricing))
			body := `{"domain":"site.example","url":"https://site.example/pricing"}`
			status, _, m := e.trackVisit(body, chromeUA+" no-track", map[string]string{"dub-no-track": "1"})
			if status != 200 || len(m["clickId"].(string)) != 16 {
				t.Fatalf("%d %v", status, m)
			}
			if n := len(e.clicksOf(pricing)); n != before {
				t.Errorf("%d clicks recorded for a dub-no-track visit", n-before)
			}
		})

		t.Run("the root page is the _root link", func(t *testing.T) {
			for i, page := range []string{"https://site.example", "https://site.example/", "https://site.example/?via=x#top"} {
				status, _, m := e.trackVisit(`{"domain":"SITE.example","url":"`+page+`"}`, chromeUA+" root-"+string(rune('a'+i)), nil)
				if status != 200 || m["clickId"] == nil {
					t.Fatalf("%s: %d %v", page, status, m)
				}
			}
			clicks := e.clicksOf(root)
			if len(clicks) != 3 || clicks[0].Trigger != "pageview" || clicks[0].Referer != "(direct)" {
				t.Fatalf("root clicks %+v", clicks)
			}
		})

		t.Run("allowed hostnames: answered, not recorded, counted", func(t *testing.T) {
			if err := e.ws.SetEmbedHostnames([]string{"site.example"}); err != nil {
				t.Fatal(err)
			}
			if err := db.UpdateWorkspace(ctx, e.ws); err != nil {
				t.Fatal(err)
			}
			before := len(e.clicksOf(pricing))
			body := `{"domain":"site.example","url":"https://site.example/pricing"}`
			status, _, m := e.trackVisit(body, chromeUA+" host-evil", map[string]string{"Referer": "https://evil.example/pricing"})
			if status != 200 || len(m["clickId"].(string)) != 16 {
				t.Fatalf("foreign page: %d %v, want 200 with a click id (Dub's answer)", status, m)
			}
			status, _, m = e.trackVisit(body, chromeUA+" host-ok", map[string]string{"Referer": "https://www.site.example/pricing"})
			if status != 200 || m["clickId"] == nil {
				t.Fatalf("allowed page: %d %v", status, m)
			}
			clicks := e.clicksOf(pricing)
			found := false
			for _, c := range clicks {
				found = found || c.ClickID == m["clickId"]
			}
			if len(clicks)-before != 1 || !found {
				t.Fatalf("%d new clicks (want only the allowed page's): %+v", len(clicks)-before, clicks)
			}
			resp := e.do(rreq{host: "localhost:8080", path: "/metrics"})
			b, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(b), "\nrelink_track_visits_refused_total 1\n") {
				t.Errorf("metrics do not count the refused visit:\n%s", b)
			}
		})
	})
}

// TestBrowserScriptServed: the app origin serves the browser script at its
// stable path, compressed, and loadable by other sites (CORS for
// crossorigin/integrity, CORP for sites under COEP).
func TestBrowserScriptServed(t *testing.T) {
	srv := newPagesServer(t)
	for _, enc := range []string{"", "gzip"} {
		req := httptest.NewRequest(http.MethodGet, "http://"+appHost+"/static/js/analytics.js", nil)
		req.Host = appHost
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		res, err := srv.Root.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
			res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Cross-Origin-Resource-Policy") != "cross-origin" ||
			res.Header.Get("Content-Encoding") != enc {
			t.Fatalf("Accept-Encoding %q: %d %v", enc, res.StatusCode, res.Header)
		}
		if enc == "" && !strings.Contains(string(body), "window.dubAnalytics") {
			t.Errorf("the body is not the browser script: %.200s", body)
		}
	}
}

// trackVisitErrors: every refused /track/visit body gets the spec's error
// format and the CORS headers; OPTIONS is a 204 preflight.
func trackVisitErrors(t *testing.T, e *redirectEnv) {
	for _, tc := range []struct {
		body   string
		status int
		msg    string
	}{
		{`{"url":"https://site.example/"}`, 400, "Missing domain or url"},
		{`{"domain":"site.example"}`, 400, "Missing domain or url"},
		{`{"domain":"","url":""}`, 400, "Missing domain or url"},
		{`{"domain":"site.example","url":null}`, 400, "Missing domain or url"},
		{`{"domain":"site.example","url":"/pricing"}`, 400, "Invalid url: expected an absolute URL such as https://example.com/pricing."},
		{`{"domain":"site.example","url":"https://site.example/nope"}`, 404, "Link not found for domain: site.example and key: nope."},
		{`{"domain":"other.example","url":"https://site.example/"}`, 404, "Link not found for domain: other.example and key: _root."},
		{`{"domain":7,"url":"https://site.example/"}`, 422, "invalid_type: domain: Invalid input: expected string, received number"},
		{`not json`, 400, "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
	} {
		status, h, m := e.trackVisit(tc.body, chromeUA, nil)
		msg, _ := m["error"].(map[string]any)["message"].(string)
		if status != tc.status || msg != tc.msg || h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d %q (CORS %q), want %d %q", tc.body, status, msg, h.Get("Access-Control-Allow-Origin"), tc.status, tc.msg)
		}
	}
	req := httptest.NewRequest(http.MethodOptions, "http://localhost:8081/track/visit", nil)
	req.Host = "localhost:8081"
	res, _ := e.srv.Root.Test(req, -1)
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Methods") != "POST, OPTIONS" {
		t.Errorf("OPTIONS %d %v", res.StatusCode, res.Header)
	}
}
