package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestNoEmptyURLParams: a GET with empty parameters (a filter form sent
// without the console's script) is sent on to the same URL without them,
// and the links the pages make carry none.
func TestNoEmptyURLParams(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		for from, to := range map[string]string{
			"/console/analytics?domain=&tagId=&country=&device=Desktop&interval=7d": "/console/analytics?device=Desktop&interval=7d",
			"/console/analytics?country=":                                           "/console/analytics",
			"/console/links?search=&domain=&tag=&folder=&sort=createdAt":            "/console/links?sort=createdAt",
		} {
			r := c.get(from)
			wantStatus(t, r, http.StatusFound)
			if got := r.Header.Get("Location"); got != to {
				t.Errorf("%s → %q, want %q", from, got, to)
			}
		}
		// htmx requests are answered as they are (the script drops empties).
		r := c.htmx(http.MethodGet, "/console/links?search=&domain=", nil)
		wantStatus(t, r, http.StatusOK)

		r = c.get("/console/analytics?interval=7d&device=Desktop")
		wantStatus(t, r, http.StatusOK)
		r.doc(t).Find("a[href^='/console/analytics']").Each(func(_ int, s *goquery.Selection) {
			href, _ := s.Attr("href")
			u, err := url.Parse(href)
			if err != nil {
				t.Fatal(err)
			}
			for k, vs := range u.Query() {
				for _, v := range vs {
					if v == "" {
						t.Errorf("link %q has the empty parameter %s", href, k)
					}
				}
			}
		})
	})
}

// TestNewLinkDefaultsToPrimaryDomain: the create form starts on the
// workspace's primary domain, as the API's default does.
func TestNewLinkDefaultsToPrimaryDomain(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		selected := func() string {
			r := c.get("/console/links")
			wantStatus(t, r, http.StatusOK)
			v, _ := r.doc(t).Find(`[data-testid="link-create"] select[name="domain"] option[selected]`).Attr("value")
			return v
		}
		if got := selected(); got != "" {
			t.Fatalf("without a domain the form preselects %q (the default domain comes first)", got)
		}
		for _, slug := range []string{"go.acme.test", "links.acme.test"} {
			wantStatus(t, c.post("/console/domains", url.Values{"slug": {slug}}), http.StatusSeeOther)
		}
		if got := selected(); got != "go.acme.test" {
			t.Fatalf("preselected domain %q, want the primary go.acme.test", got)
		}
		d, err := db.DomainByName(context.Background(), "links.acme.test")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetPrimaryDomain(context.Background(), d, time.Now()); err != nil {
			t.Fatal(err)
		}
		if got := selected(); got != "links.acme.test" {
			t.Fatalf("preselected domain %q after the primary changed", got)
		}
	})
}

// TestLinkListShowsWhatLinksAre: tag colours, the folder, a domain's root
// link as the domain root, and QR file names without ':'.
func TestLinkListShowsWhatLinksAre(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/tags", url.Values{"name": {"Spring"}, "color": {"green"}}), http.StatusSeeOther)
		wantStatus(t, c.post("/console/folders", url.Values{"name": {"Campaigns"}}), http.StatusSeeOther)
		wantStatus(t, c.post("/console/domains", url.Values{"slug": {"go.acme.test"}}), http.StatusSeeOther)
		r := c.get("/console/tags")
		if col, _ := r.doc(t).Find(`[data-testid="tag-chip"]`).Attr("data-color"); col != "green" {
			t.Fatalf("tag chip colour %q", col)
		}
		if cls, _ := r.doc(t).Find(`[data-testid="tag-chip"]`).Attr("class"); !strings.Contains(cls, "bg-green-100") {
			t.Fatalf("tag chip class %q", cls)
		}
		r = c.get("/console/links")
		d := r.doc(t)
		tagID, _ := d.Find(`[data-testid="link-create"] input[name="tagIds"]`).Attr("value")
		folderID, _ := d.Find(`[data-testid="link-create"] select[name="folderId"] option:contains("Campaigns")`).Attr("value")
		if tagID == "" || folderID == "" {
			t.Fatalf("tag %q folder %q", tagID, folderID)
		}
		r = c.post("/console/links", url.Values{"url": {"https://example.com/spring"}, "domain": {e.appHost}, "key": {"spring"},
			"tagIds": {tagID}, "folderId": {folderID}})
		wantStatus(t, r, http.StatusSeeOther)
		page := c.get(r.Header.Get("Location"))
		if name, _ := page.doc(t).Find(`[data-testid="qr-download"]`).Attr("download"); name != "qr-localhost-8080-spring.png" {
			t.Errorf("QR file name %q", name)
		}

		d = c.get("/console/links").doc(t)
		row := d.Find(`[data-testid="link-row"]:contains("spring")`)
		if got := strings.TrimSpace(row.Find(`[data-testid="link-folder"]`).Text()); got != "Campaigns" {
			t.Errorf("folder %q", got)
		}
		if col, _ := row.Find(`[data-testid="link-tag"]`).Attr("data-color"); col != "green" {
			t.Errorf("tag colour %q", col)
		}
		root := d.Find(`[data-testid="link-row"]:has([data-testid="link-root"])`)
		if root.Length() != 1 || strings.TrimSpace(root.Find(`[data-testid="link-short"]`).Text()) != "go.acme.test" {
			t.Fatalf("root rows %d", root.Length())
		}
		if got := root.Find(`[data-testid="link-url"]`).Text(); !strings.Contains(got, "no destination set") {
			t.Errorf("root link destination %q", got)
		}
	})
}

// TestOverviewChecklist: the getting-started list ticks its steps off and
// disappears when all four are done; the overview shows the 30-day charts.
func TestOverviewChecklist(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		done := func() map[string]string {
			r := c.get("/console")
			wantStatus(t, r, http.StatusOK)
			out := map[string]string{}
			for _, k := range []string{"domain", "link", "key", "program"} {
				if v, ok := r.doc(t).Find(`[data-testid="check-` + k + `"]`).Attr("data-done"); ok {
					out[k] = v
				}
			}
			if r.doc(t).Find(`[data-testid="chart"] [data-testid="series-Clicks"]`).Length() != 1 ||
				r.doc(t).Find(`[data-testid="chart-conversions"] [data-testid="series-Sales"]`).Length() != 1 {
				t.Fatal("the overview has no 30-day charts")
			}
			return out
		}
		want := func(got map[string]string, exp string) {
			t.Helper()
			var s []string
			for _, k := range []string{"domain", "link", "key", "program"} {
				s = append(s, k+"="+got[k])
			}
			if strings.Join(s, " ") != exp {
				t.Fatalf("checklist %s, want %s", strings.Join(s, " "), exp)
			}
		}
		want(done(), "domain=false link=false key=false program=false")
		wantStatus(t, c.post("/console/domains", url.Values{"slug": {"go.acme.test"}}), http.StatusSeeOther)
		want(done(), "domain=true link=false key=false program=false") // the domain's root link is not a first link
		wantStatus(t, c.post("/console/links", url.Values{"url": {"https://example.com/"}, "domain": {"go.acme.test"}}), http.StatusSeeOther)
		wantStatus(t, c.post("/console/settings/keys", url.Values{"name": {"CI"}}), http.StatusCreated)
		want(done(), "domain=true link=true key=true program=false")
		wantStatus(t, c.post("/console/program", url.Values{}), http.StatusSeeOther)
		want(done(), "domain= link= key= program=")
	})
}
