package console_test

import (
	"bytes"
	"context"
	"image"
	pngenc "image/png"
	"net/http"
	"net/url"
	"strings"
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

		t.Run("domain logo", func(t *testing.T) {
			img := image.NewNRGBA(image.Rect(0, 0, 6, 6))
			var png bytes.Buffer
			if err := pngenc.Encode(&png, img); err != nil {
				t.Fatal(err)
			}
			wantStatus(t, c.upload("/console/domains/go.acme.test/logo", "logo", "logo.png", png.Bytes()), http.StatusSeeOther)
			d, err := db.DomainByName(ctx, "go.acme.test")
			if err != nil || d.Logo == nil || !strings.HasPrefix(*d.Logo, "data:image/png;base64,") {
				t.Fatalf("logo not stored: %v %v", d, err)
			}
			r := c.get("/console/domains")
			if src, _ := r.doc(t).Find(`[data-testid="domain-logo"]`).Attr("src"); src != *d.Logo {
				t.Errorf("the page shows logo %.40q", src)
			}
			// Not an image, and too big: the page says why, nothing changes.
			r = c.upload("/console/domains/go.acme.test/logo", "logo", "logo.svg", []byte("<svg/>"))
			wantStatus(t, r, http.StatusUnprocessableEntity)
			if msg := r.text(t, `[data-testid="alert-error"]`) + r.text(t, `[data-testid="field-error"]`); !strings.Contains(msg, "not a PNG, JPEG or GIF") {
				t.Errorf("svg upload: message %q", msg)
			}
			r = c.upload("/console/domains/go.acme.test/logo", "logo", "big.png", make([]byte, 600<<10))
			if r.StatusCode != http.StatusUnprocessableEntity && r.StatusCode != http.StatusBadRequest {
				t.Errorf("big upload: status %d", r.StatusCode)
			}
			// Another workspace cannot touch it.
			o := e.client()
			o.signIn("owner@other.test")
			if r := o.upload("/console/domains/go.acme.test/logo", "logo", "logo.png", png.Bytes()); r.StatusCode < 400 {
				t.Errorf("other workspace set the logo: %d", r.StatusCode)
			}
			wantStatus(t, c.post("/console/domains/go.acme.test/logo/delete", nil), http.StatusSeeOther)
			if d, _ := db.DomainByName(ctx, "go.acme.test"); d.Logo != nil {
				t.Errorf("logo not removed: %.40s", *d.Logo)
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

		t.Run("free plan cannot set a domain logo", func(t *testing.T) { // acme is on free since the last subtest
			var png bytes.Buffer
			pngenc.Encode(&png, image.NewGray(image.Rect(0, 0, 4, 4))) //nolint:errcheck // a bytes.Buffer
			r := c.upload("/console/domains/go.acme.test/logo", "logo", "logo.png", png.Bytes())
			wantStatus(t, r, http.StatusForbidden)
			if msg := r.text(t, `[data-testid="alert-error"]`); msg == "" {
				t.Error("no message on the page")
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
