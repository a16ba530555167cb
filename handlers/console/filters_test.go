package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// consoleFilters are the filter parameters of the analytics contract
// (spec/analytics.md §2.2) with a well-formed value each; lists: the
// parameter takes a comma list and a "-" exclusion.
var consoleFilters = []struct {
	param, value string
	lists        bool
}{
	{"domain", "localhost:8080", true}, {"linkId", "link_none", true}, {"tenantId", "tenant-1", true},
	{"tagId", "tag_none", true}, {"groupId", "grp_none", true}, {"partnerId", "pn_none", true},
	{"country", "US", true}, {"city", "Berlin", true}, {"continent", "EU", true}, {"device", "Desktop", true},
	{"browser", "Chrome", true}, {"os", "Mac OS", true}, {"trigger", "link", true}, {"referer", "google.com", true},
	{"refererUrl", "https://www.google.com/search", true}, {"url", "https://example.com/launch", true},
	{"utm_source", "news", true}, {"utm_medium", "email", true}, {"utm_campaign", "spring", true},
	{"utm_term", "shoes", true}, {"utm_content", "hero", true},
	{"key", "launch", false}, {"customerId", "cus_none", false}, {"region", "US-CA", false}, {"root", "false", false},
	{"saleType", "new", false}, {"query", "metadata['plan']:'pro'", false},
}

// TestConsoleEveryFilter: the dashboard, a link's page and both downloads
// answer every filter of the analytics contract (single value, comma list,
// exclusion; each event for the single value) without an error, on both dialects; the
// refererUrl and url filters (which answered 500, issue 37) count the
// click they match and not one they do not.
func TestConsoleEveryFilter(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/links", url.Values{"url": {"https://example.com/launch?utm_source=news"}, "domain": {"localhost:8080"}, "key": {"launch"}}), http.StatusSeeOther)
		e.follow(t, "launch", map[string]string{"Referer": "https://www.google.com/search?q=relink",
			"User-Agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"})
		var linkID string
		if err := db.Raw("SELECT id FROM links WHERE key = ?", "launch").Row().Scan(&linkID); err != nil {
			t.Fatal(err)
		}
		page := func(target string) resp {
			t.Helper()
			r := c.get(target)
			wantStatus(t, r, http.StatusOK)
			if msg := r.text(t, `[data-testid="alert-error"]`); msg != "" {
				t.Errorf("%s: %q", target, msg)
			}
			return r
		}
		for _, f := range consoleFilters {
			forms := []string{f.value}
			if f.lists {
				forms = append(forms, f.value+",other", "-"+f.value+",other")
			}
			for i, v := range forms {
				qs := "interval=30d&" + f.param + "=" + url.QueryEscape(v)
				page("/console/analytics?event=clicks&" + qs)
				if i > 0 {
					continue
				}
				page("/console/analytics?event=leads&" + qs)
				page("/console/analytics?event=sales&" + qs)
				page("/console/links/" + linkID + "?" + qs)
				for _, dl := range []string{"/console/analytics/export?", "/console/events/export?event=clicks&"} {
					if r := c.get(dl + qs); r.StatusCode != http.StatusOK {
						t.Errorf("%s%s: %d %.300s", dl, qs, r.StatusCode, r.body)
					}
				}
			}
		}
		for qs, want := range map[string]string{
			"refererUrl=https%3A%2F%2Fwww.google.com%2Fsearch": "1", "refererUrl=https%3A%2F%2Fnews.example%2F": "0",
			"refererUrl=-https%3A%2F%2Fwww.google.com%2Fsearch": "0", "url=https%3A%2F%2Fexample.com%2Flaunch": "1",
			"url=https%3A%2F%2Fexample.com%2Fother%2Chttps%3A%2F%2Fexample.com%2Flaunch": "1", "url=-https%3A%2F%2Fexample.com%2Fother": "1",
			"url=https%3A%2F%2Fexample.com%2Flaunch%3Futm_source%3Dnews": "0",
		} {
			for _, p := range []string{"/console/analytics?", "/console/links/" + linkID + "?"} {
				if got := page(p+"interval=30d&"+qs).text(t, `[data-testid="total-clicks"] [data-testid="total-value"]`); got != want {
					t.Errorf("%s%s: %s clicks, want %s", p, qs, got, want)
				}
			}
		}
		if !strings.HasPrefix(linkID, "link_") {
			t.Errorf("link id %q", linkID)
		}
	})
}

// TestConsoleRefusedRanges: the dashboard shows the API's refusal of a
// range, in the API's words, as a message above the charts (status 200): a
// date past 2099 and, on the Pro plan, a range over a year (Dub's
// validDateRangeForPlan); the widest range answers on Business.
func TestConsoleRefusedRanges(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		ws, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		message := func(target string) string {
			t.Helper()
			r := c.get(target)
			wantStatus(t, r, http.StatusOK)
			return r.text(t, `[data-testid="alert-error"]`)
		}
		if msg := message("/console/analytics?start=2022-09-22&end=2100-01-01"); msg != "custom: end: The end date cannot be later than December 31, 2099." {
			t.Errorf("far end: %q", msg)
		}
		if msg := message("/console/analytics?start=2022-09-22&end=2099-12-31"); msg != "" {
			t.Errorf("widest range on Business: %q", msg)
		}
		if err := db.Exec("UPDATE workspaces SET plan = ? WHERE id = ?", models.PlanPro, ws.ID).Error; err != nil {
			t.Fatal(err)
		}
		if msg := message("/console/analytics?start=2022-09-22&end=2099-12-31"); msg != "You can only get analytics for up to 1 year on a Pro plan. Upgrade to Business to get analytics for longer periods." {
			t.Errorf("widest range on Pro: %q", msg)
		}
	})
}
