package console_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func readCSVBody(t *testing.T, r resp) [][]string {
	t.Helper()
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "application/csv" || !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("status %d, %q %q: %s", r.StatusCode, r.Header.Get("Content-Type"), r.Header.Get("Content-Disposition"), r.body)
	}
	rows, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v", err)
	}
	return rows
}

// The three downloads: buttons on the links page and the dashboard carry
// the page's filters, and download the API's files for the signed-in
// user's workspace only.
func TestConsoleExports(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/links", url.Values{"url": {"https://example.com/launch"}, "domain": {"localhost:8080"}, "key": {"launch"}}), http.StatusSeeOther)
		wantStatus(t, c.post("/console/links", url.Values{"url": {"https://example.com/other"}, "domain": {"localhost:8080"}, "key": {"other"}}), http.StatusSeeOther)
		e.follow(t, "launch", map[string]string{"User-Agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"})

		// Links: the form keeps the list's filters and offers the columns.
		d := c.get("/console/links?search=launch").doc(t)
		form := d.Find(`[data-testid="links-export-form"]`)
		if v, _ := form.Find(`input[type=hidden][name=search]`).Attr("value"); v != "launch" {
			t.Errorf("links export form keeps search=%q", v)
		}
		if n := form.Find(`input[name=columns]`).Length(); n != 11 {
			t.Errorf("%d link columns offered", n)
		}
		if n := form.Find(`input[name=columns][checked]`).Length(); n != 4 {
			t.Errorf("%d link columns checked by default, want upstream's 4", n)
		}
		rows := readCSVBody(t, c.get("/console/links/export?search=launch&columns=link&columns=clicks"))
		if len(rows) != 2 || strings.Join(rows[0], "|") != "Short link|Clicks" || !strings.HasSuffix(rows[1][0], "/launch") || rows[1][1] != "1" {
			t.Errorf("links export %q", rows)
		}
		if rows := readCSVBody(t, c.get("/console/links/export")); len(rows) != 3 || len(rows[0]) != 4 {
			t.Errorf("every link, default columns: %q", rows)
		}

		// Dashboard: both downloads keep the window.
		d = c.get("/console/analytics?interval=24h").doc(t)
		for _, id := range []string{"analytics-export-form", "events-export-form"} {
			if v, _ := d.Find(`[data-testid="` + id + `"] input[type=hidden][name=interval]`).Attr("value"); v != "24h" {
				t.Errorf("%s keeps interval=%q", id, v)
			}
		}
		r := c.get("/console/analytics/export?interval=24h&browser=Chrome")
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "application/zip" {
			t.Fatalf("analytics export: %d %s", r.StatusCode, r.body)
		}
		zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
		if err != nil {
			t.Fatal(err)
		}
		found := ""
		for _, f := range zr.File {
			if f.Name == "browsers.csv" {
				rc, _ := f.Open()
				b, _ := io.ReadAll(rc)
				rc.Close()
				found = string(b)
			}
		}
		if !strings.Contains(found, "Chrome,1,") {
			t.Errorf("browsers.csv %q", found)
		}
		rows = readCSVBody(t, c.get("/console/events/export?interval=24h&columns=timestamp&columns=browser&columns=link"))
		if len(rows) != 2 || strings.Join(rows[0], "|") != "Date|Browser|Link" || rows[1][1] != "Chrome" || !strings.HasSuffix(rows[1][2], "/launch") {
			t.Errorf("events export %q", rows)
		}

		// Another workspace's owner downloads only their own (empty) data.
		e.seedWorkspace("Beta", "beta", "owner@beta.test")
		b := e.client()
		b.signIn("owner@beta.test")
		if rows := readCSVBody(t, b.get("/console/links/export?columns=url")); len(rows) != 1 {
			t.Errorf("beta sees links %q", rows)
		}
		if rows := readCSVBody(t, b.get("/console/events/export?interval=24h")); len(rows) != 1 {
			t.Errorf("beta sees events %q", rows)
		}

		// Below Business the events download is explained, not offered.
		if err := db.Model(&models.Workspace{}).Where("slug = ?", "beta").Update("plan", models.PlanPro).Error; err != nil {
			t.Fatal(err)
		}
		d = b.get("/console/analytics?interval=24h").doc(t)
		if d.Find(`[data-testid="events-export-disabled"]`).Length() != 1 || d.Find(`[data-testid="analytics-export-form"]`).Length() != 1 {
			t.Error("pro plan: events download not explained or analytics download missing")
		}
		if r := b.get("/console/events/export?interval=24h"); r.StatusCode != http.StatusForbidden {
			t.Errorf("pro plan events export: %d", r.StatusCode)
		}
		// Signed out: no download.
		if r := e.client().get("/console/links/export"); r.StatusCode == http.StatusOK {
			t.Errorf("signed out: %d", r.StatusCode)
		}
	})
}
