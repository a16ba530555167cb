package handlers_test

import (
	"net/http"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestTrackOpen: POST /track/open (spec/parity.md §9). With deepLink it records
// a deeplink click (once per visitor), answers the link, honours
// dub-no-track; with only dubDomain it answers the click that sent this IP
// to the App Store through the redirect, else nulls.
func TestTrackOpen(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{})
		app := e.link(models.Link{Key: "promo", URL: "https://acme.example/product/1", IOS: ptr("https://apps.apple.com/app/acme")})
		root := e.link(models.Link{Key: models.RootKey, URL: "https://acme.example/"})
		ua := iphoneUA + " AcmeApp/1.0"

		t.Run("validation and unknown links, with CORS", func(t *testing.T) {
			for _, tc := range []struct {
				body   string
				status int
				msg    string
			}{
				{`{}`, 422, "custom: : You need to provide either `deepLink` or `dubDomain` for deferred deep linking."},
				{`{"deepLink":""}`, 422, "custom: deepLink: Invalid URL"},
				{`{"deepLink":"not a url"}`, 422, "custom: deepLink: Invalid URL"},
				{`{"deepLink":5}`, 422, "invalid_type: deepLink: Invalid input: expected string, received number"},
				{`{"deepLink":"https://acme.link/nope"}`, 404, "Deep link not found: https://acme.link/nope"},
				{`{"deepLink":"https://unknown.example/promo"}`, 404, "Deep link not found: https://unknown.example/promo"},
			} {
				status, h, m := e.post("/track/open", tc.body, map[string]string{"User-Agent": ua})
				msg, _ := m["error"].(map[string]any)["message"].(string)
				if status != tc.status || msg != tc.msg || h.Get("Access-Control-Allow-Origin") != "*" {
					t.Errorf("%s: %d %q, want %d %q", tc.body, status, msg, tc.status, tc.msg)
				}
			}
		})

		t.Run("deep link: a deeplink click, the same id for the same visitor", func(t *testing.T) {
			status, _, m := e.post("/track/open", `{"deepLink":"https://www.ACME.link/promo?utm_source=x"}`, map[string]string{"User-Agent": ua})
			id, _ := m["clickId"].(string)
			link, _ := m["link"].(map[string]any)
			if status != 200 || len(id) != 16 || link["id"] != app.ID || link["domain"] != "acme.link" || link["key"] != "promo" || link["url"] != app.URL {
				t.Fatalf("%d %v", status, m)
			}
			_, _, again := e.post("/track/open", `{"deepLink":"acme.link/promo"}`, map[string]string{"User-Agent": ua})
			if again["clickId"] != id {
				t.Errorf("same visitor: %v, want %s", again["clickId"], id)
			}
			clicks := e.clicksOf(app)
			if len(clicks) != 1 || clicks[0].ClickID != id || clicks[0].Trigger != "deeplink" {
				t.Fatalf("clicks %+v", clicks)
			}
			// The root link answers for a bare domain.
			_, _, r := e.post("/track/open", `{"deepLink":"https://acme.link"}`, map[string]string{"User-Agent": ua})
			if r["link"].(map[string]any)["id"] != root.ID {
				t.Errorf("root: %v", r)
			}
		})

		t.Run("dub-no-track records nothing", func(t *testing.T) {
			before := len(e.clicksOf(app))
			status, _, m := e.post("/track/open", `{"deepLink":"https://acme.link/promo"}`, map[string]string{"User-Agent": ua + " other", "dub-no-track": "1"})
			if c, ok := m["clickId"]; status != 200 || !ok || c != nil || m["link"] == nil {
				t.Fatalf("%d %v", status, m)
			}
			if n := len(e.clicksOf(app)); n != before {
				t.Errorf("%d clicks, want %d", n, before)
			}
		})

		t.Run("deferred: no click yet, then the App Store redirect's", func(t *testing.T) {
			status, _, m := e.post("/track/open", `{"dubDomain":"acme.link"}`, nil)
			if c, ok := m["clickId"]; status != 200 || !ok || c != nil || m["link"] != nil {
				t.Fatalf("before: %d %v", status, m)
			}
			if _, ok := m["link"]; !ok {
				t.Fatal("link key missing")
			}
			res := e.do(rreq{path: "/promo", ua: iphoneUA})
			if res.StatusCode != http.StatusTemporaryRedirect {
				t.Fatalf("redirect %d %s", res.StatusCode, res.Header.Get("Location"))
			}
			clicks := e.clicksOf(app)
			last := clicks[len(clicks)-1]
			_, _, m = e.post("/track/open", `{"dubDomain":"ACME.link"}`, nil)
			if m["clickId"] != last.ClickID || m["link"].(map[string]any)["id"] != app.ID || m["link"].(map[string]any)["url"] != app.URL {
				t.Fatalf("after: %v, want click %s", m, last.ClickID)
			}
			if _, _, other := e.post("/track/open", `{"dubDomain":"other.link"}`, nil); other["clickId"] != nil {
				t.Errorf("another domain: %v", other)
			}
		})
	})
}
