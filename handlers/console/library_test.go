package console_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestLibrary(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		e.seedWorkspace("Other", "other", "owner@other.test")
		ctx := context.Background()
		c := e.client()
		c.signIn("owner@acme.test")

		t.Run("tags", func(t *testing.T) {
			wantStatus(t, c.post("/console/tags", url.Values{"name": {"Launch"}, "color": {"blue"}}), http.StatusSeeOther)
			r := c.post("/console/tags", url.Values{"name": {"launch"}})
			wantStatus(t, r, http.StatusConflict)
			if r.text(t, `[data-testid="field-name"] [data-testid="field-error"]`) == "" {
				t.Error("duplicate tag: no field error")
			}
			wantStatus(t, c.post("/console/tags", url.Values{"name": {"x"}, "color": {"teal"}}), http.StatusUnprocessableEntity)
			r = c.get("/console/tags")
			rows := r.doc(t).Find(`[data-testid="library-row"]`)
			if rows.Length() != 1 {
				t.Fatalf("%d tags", rows.Length())
			}
			ts, _ := db.ListTags(ctx, mustWorkspace(t, db, "acme").ID, models.TagFilter{Limit: 10})
			wantStatus(t, c.post("/console/tags/"+ts[0].ID+"/delete", nil), http.StatusSeeOther)
			if ts, _ := db.ListTags(ctx, mustWorkspace(t, db, "acme").ID, models.TagFilter{Limit: 10}); len(ts) != 0 {
				t.Errorf("tag not deleted")
			}
		})

		t.Run("domains", func(t *testing.T) {
			r := c.post("/console/domains", url.Values{"slug": {"not a domain"}})
			if r.StatusCode != http.StatusUnprocessableEntity {
				t.Errorf("bad domain: status %d", r.StatusCode)
			}
			wantStatus(t, c.post("/console/domains", url.Values{"slug": {"go.acme.test"}}), http.StatusSeeOther)
			r = c.get("/console/domains")
			if r.doc(t).Find(`[data-testid="library-row"]`).Length() != 2 {
				t.Errorf("domains listed: %d, want default + 1", r.doc(t).Find(`[data-testid="library-row"]`).Length())
			}
			o := e.client()
			o.signIn("owner@other.test")
			if r := o.post("/console/domains/go.acme.test/delete", nil); r.StatusCode < 400 {
				t.Errorf("other workspace deleted the domain: %d", r.StatusCode)
			}
		})

		t.Run("folders are a Pro feature", func(t *testing.T) {
			wantStatus(t, c.post("/console/folders", url.Values{"name": {"Campaigns"}}), http.StatusSeeOther)
			w := mustWorkspace(t, db, "acme")
			w.Plan = models.PlanFree
			if err := db.UpdateWorkspace(ctx, w); err != nil {
				t.Fatal(err)
			}
			r := c.get("/console/folders")
			if r.doc(t).Find(`[data-testid="folders-form"]`).Length() != 0 {
				t.Error("free plan sees the folder form")
			}
			if r := c.post("/console/folders", url.Values{"name": {"More"}}); r.StatusCode != http.StatusForbidden {
				t.Errorf("free plan create: status %d", r.StatusCode)
			}
		})
	})
}

func mustWorkspace(t *testing.T, db *models.DB, slug string) *models.Workspace {
	t.Helper()
	w, err := db.WorkspaceBySlug(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
