package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestConsoleImportCSV(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.get("/console/import"), http.StatusOK)

		wantStatus(t, c.upload("/console/import", "file", "x.csv", []byte("")), http.StatusUnprocessableEntity)
		csv := "Short,Target,When,Labels\nhttps://go.acme.test/one,https://acme.test/1,2024-01-02,\"a,b\"\nhttps://go.acme.test/two,,2024-01-02,\n"
		r := c.upload("/console/import", "file", "links.csv", []byte(csv))
		wantStatus(t, r, http.StatusOK)
		doc := r.doc(t)
		upload, _ := doc.Find(`[data-testid="mapping-form"] input[name="upload"]`).Attr("value")
		// "Short" and "Labels" are guessed; "Target" is not a known name.
		if v, _ := doc.Find(`#map-link option[selected]`).Attr("value"); v != "Short" || upload == "" {
			t.Fatalf("link guess %q upload %q", v, upload)
		}
		if v, _ := doc.Find(`#map-tags option[selected]`).Attr("value"); v != "Labels" {
			t.Fatalf("tags guess %q", v)
		}
		form := url.Values{"upload": {upload}, "map_link": {"Short"}, "map_url": {"Nope"}}
		r = c.htmx(http.MethodPost, "/console/import/run", form)
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.text(t, `[data-testid="import-run-error"]`), `"Nope"`) {
			t.Fatalf("bad mapping: %d %s", r.StatusCode, r.body)
		}
		form = url.Values{"upload": {upload}, "map_link": {"Short"}, "map_url": {"Target"}, "map_createdAt": {"When"}, "map_tags": {"Labels"}}
		r = c.htmx(http.MethodPost, "/console/import/run", form)
		wantStatus(t, r, http.StatusAccepted)
		// Running it again is refused (409 while it runs, 422 once the
		// upload is used up).
		if r := c.htmx(http.MethodPost, "/console/import/run", form); r.StatusCode != http.StatusConflict && r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("second run: %d", r.StatusCode)
		}
		var state string
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			r = c.htmx(http.MethodGet, "/console/import/progress", nil)
			state, _ = r.doc(t).Find(`[data-testid="import-progress"]`).Attr("data-state")
			if state != "running" {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if state != "done" || !strings.Contains(r.text(t, `[data-testid="import-counts"]`), "2 of 2 rows · 1 created · 0 skipped · 1 failed") {
			t.Fatalf("state %q: %s", state, r.body)
		}
		if row := r.text(t, `[data-testid="import-row"]`); !strings.Contains(row, "go.acme.test/two") || !strings.Contains(row, "Missing required field: url") {
			t.Fatalf("report row %q", row)
		}
		l, err := db.LinkByDomainKey(context.Background(), "go.acme.test", "one")
		if err != nil || l.WorkspaceID != mustWorkspace(t, db, "acme").ID || l.CreatedAt.Year() != 2024 {
			t.Fatalf("link %+v err %v", l, err)
		}
		// Another workspace sees nothing of this run.
		e.seedWorkspace("Other", "other", "owner@other.test")
		o := e.client()
		o.signIn("owner@other.test")
		if r := o.htmx(http.MethodGet, "/console/import/progress", nil); strings.Contains(string(r.body), "created") {
			t.Fatalf("other workspace sees the run: %s", r.body)
		}
	})
}
