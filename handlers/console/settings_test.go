package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestAPIKeys(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		w, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		other, _ := e.seedWorkspace("Other", "other", "owner@other.test")
		ctx := context.Background()
		otherKey, _, err := db.CreateAPIKey(ctx, other.ID, "theirs", nil)
		if err != nil {
			t.Fatal(err)
		}

		c := e.client()
		c.signIn("owner@acme.test")

		r := c.post("/console/settings/keys", url.Values{"name": {""}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if r.text(t, `[data-testid="field-error"]`) == "" {
			t.Error("empty name: no field error")
		}

		r = c.post("/console/settings/keys", url.Values{"name": {"Server"}})
		wantStatus(t, r, http.StatusCreated)
		token := r.text(t, `[data-testid="new-key-token"]`)
		if !strings.HasPrefix(token, "dub_") {
			t.Fatalf("token shown = %q", token)
		}
		// The token works on the API, and is shown only once.
		if _, ws, err := db.APIKeyByToken(ctx, token); err != nil || ws.ID != w.ID {
			t.Fatalf("token lookup: %v", err)
		}
		r = c.get("/console/settings/keys")
		if strings.Contains(string(r.body), token) {
			t.Fatal("the list shows the full token")
		}
		rows := r.doc(t).Find(`[data-testid="key-row"]`)
		if rows.Length() != 1 {
			t.Fatalf("%d rows, want 1 (other workspaces' keys must not show)", rows.Length())
		}
		if got := rows.Find(`[data-testid="key-partial"]`).Text(); got != models.PartialKey(token) {
			t.Errorf("partial %q, want %q", got, models.PartialKey(token))
		}
		id, _ := rows.Attr("data-key-id")

		// Another workspace's key cannot be revoked from here.
		r = c.htmx(http.MethodPost, "/console/settings/keys/"+otherKey.ID+"/revoke", nil)
		wantStatus(t, r, http.StatusNotFound)
		if _, _, err := db.APIKeyByToken(ctx, "x"); err == nil {
			t.Fatal("sanity")
		}

		r = c.htmx(http.MethodPost, "/console/settings/keys/"+id+"/revoke", nil)
		wantStatus(t, r, http.StatusOK)
		d := r.doc(t)
		if d.Find(`[data-testid="console-shell"]`).Length() != 0 {
			t.Error("htmx revoke returned the whole page, want the table fragment")
		}
		if got := strings.TrimSpace(d.Find(`[data-testid="key-status"]`).Text()); got != "Revoked" {
			t.Errorf("status after revoke %q", got)
		}
		if _, _, err := db.APIKeyByToken(ctx, token); !models.IsNotFound(err) {
			t.Errorf("revoked token still valid: %v", err)
		}
		ks, _ := db.ListAPIKeys(ctx, other.ID)
		if len(ks) != 1 || ks[0].RevokedAt != nil {
			t.Error("other workspace's key changed")
		}
	})
}

func TestSettings(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		w, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		e.seedWorkspace("Taken", "taken", "owner@taken.test")
		ctx := context.Background()

		c := e.client()
		c.signIn("owner@acme.test")
		r := c.get("/console/settings")
		wantStatus(t, r, http.StatusOK)
		if v, _ := r.doc(t).Find(`input[name="slug"]`).Attr("value"); v != "acme" {
			t.Fatalf("slug field %q", v)
		}

		cases := []struct {
			name   string
			form   url.Values
			status int
			field  string // where the error shows
		}{
			{"taken slug", url.Values{"name": {"Acme"}, "slug": {"taken"}, "plan": {"pro"}}, http.StatusConflict, "slug"},
			{"bad slug", url.Values{"name": {"Acme"}, "slug": {"-x-"}, "plan": {"pro"}}, http.StatusUnprocessableEntity, "slug"},
			{"empty name", url.Values{"name": {""}, "slug": {"acme"}, "plan": {"pro"}}, http.StatusUnprocessableEntity, "name"},
			{"bad plan", url.Values{"name": {"Acme"}, "slug": {"acme"}, "plan": {"gold"}}, http.StatusUnprocessableEntity, "plan"},
			{"bad hostname", url.Values{"name": {"Acme"}, "slug": {"acme"}, "plan": {"pro"}, "embedAllowedHostnames": {"https://app.test/x"}}, http.StatusUnprocessableEntity, "embedAllowedHostnames"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := c.post("/console/settings", tc.form)
				wantStatus(t, r, tc.status)
				if got := r.text(t, `[data-testid="field-`+tc.field+`"] [data-testid="field-error"]`); got == "" {
					t.Errorf("no error on field %s; body %.400s", tc.field, r.body)
				}
				got, _ := db.WorkspaceByID(ctx, w.ID)
				if got.Slug != "acme" || got.Plan != models.PlanBusiness {
					t.Errorf("workspace changed: %+v", got)
				}
			})
		}

		r = c.post("/console/settings", url.Values{"name": {"Acme Inc"}, "slug": {"acme-inc"}, "plan": {"advanced"}, "embedAllowedHostnames": {"App.Acme.test\n*.acme.test\n\napp.acme.test"}})
		wantStatus(t, r, http.StatusSeeOther)
		got, _ := db.WorkspaceByID(ctx, w.ID)
		if got.Name != "Acme Inc" || got.Slug != "acme-inc" || got.Plan != models.PlanAdvanced {
			t.Errorf("saved %+v", got)
		}
		if h := got.EmbedHostnames(); len(h) != 2 || h[0] != "app.acme.test" || h[1] != "*.acme.test" {
			t.Errorf("hostnames %q", h)
		}
		r = c.get("/console/settings?saved=1")
		if r.doc(t).Find(`[data-testid="alert-success"]`).Length() != 1 {
			t.Error("no saved notice")
		}

		t.Run("members cannot change settings", func(t *testing.T) {
			u, _ := db.CreateUser(ctx, "member@acme.test", passwordHash)
			if err := db.AddMember(ctx, w.ID, u.ID, models.RoleMember); err != nil {
				t.Fatal(err)
			}
			m := e.client()
			m.signIn("member@acme.test")
			r := m.post("/console/settings", url.Values{"name": {"Hacked"}, "slug": {"acme-inc"}, "plan": {"free"}})
			wantStatus(t, r, http.StatusForbidden)
			if got, _ := db.WorkspaceByID(ctx, w.ID); got.Name != "Acme Inc" {
				t.Errorf("member changed the name to %q", got.Name)
			}
			if r := m.post("/console/settings/publishable-key", nil); r.StatusCode != http.StatusForbidden {
				t.Errorf("member generated a publishable key: %d", r.StatusCode)
			}
		})

		t.Run("publishable key: generate, show, replace", func(t *testing.T) {
			if n := c.get("/console/settings").doc(t).Find(`[data-testid="publishable-key-none"]`).Length(); n != 1 {
				t.Fatal("a new workspace shows a publishable key")
			}
			if doc := c.get("/console/settings").doc(t); doc.Find(`[data-testid="tracking-script-no-key"]`).Length() != 1 ||
				strings.Contains(doc.Find(`[data-testid="tracking-script-snippet"]`).Text(), "data-publishable-key") {
				t.Error("without a key the snippet has no data-publishable-key and the hint shows")
			}
			wantStatus(t, c.post("/console/settings/publishable-key", nil), http.StatusSeeOther)
			first := c.get("/console/settings").text(t, `[data-testid="publishable-key"]`)
			got, _ := db.WorkspaceByID(ctx, w.ID)
			if !strings.HasPrefix(first, "dub_pk_") || got.PublishableKey == nil || *got.PublishableKey != first {
				t.Fatalf("shown %q, stored %v", first, got.PublishableKey)
			}
			wantStatus(t, c.post("/console/settings/publishable-key", nil), http.StatusSeeOther)
			if second := c.get("/console/settings").text(t, `[data-testid="publishable-key"]`); second == first || second == "" {
				t.Errorf("replaced key %q (was %q)", second, first)
			}
			if _, err := db.WorkspaceByPublishableKey(ctx, first); err == nil {
				t.Error("the replaced key still resolves")
			}
			// The tracking-script card shows the tag to paste with the current key.
			doc := c.get("/console/settings").doc(t)
			snippet := doc.Find(`[data-testid="tracking-script-snippet"]`).Text()
			key := doc.Find(`[data-testid="publishable-key"]`).Text()
			for _, want := range []string{`<script defer src="http://localhost:8080/static/js/analytics.js"`, `data-publishable-key="` + key + `"`, `data-domains='{"refer":"`} {
				if key == "" || !strings.Contains(snippet, want) {
					t.Errorf("snippet %q lacks %q", snippet, want)
				}
			}
			if doc.Find(`[data-testid="tracking-script-no-key"]`).Length() != 0 {
				t.Error("the no-key hint shows although the workspace has a key")
			}
		})
	})
}

func TestPrivacySettings(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		w, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		other, _ := e.seedWorkspace("Other", "other", "owner@other.test")
		ctx := context.Background()
		c := e.client()
		c.signIn("owner@acme.test")

		doc := c.get("/console/settings").doc(t)
		if _, on := doc.Find(`[data-testid="privacy-keep-ips"]`).Attr("checked"); on {
			t.Error("a new workspace keeps IP addresses")
		}
		if v, _ := doc.Find(`[data-testid="privacy-retention"]`).Attr("value"); v != "0" {
			t.Errorf("retention shown as %q, want 0", v)
		}

		r := c.post("/console/settings/privacy", url.Values{"keepIPs": {"true"}, "retentionDays": {"30"}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if msg := r.text(t, `[data-testid="alert-error"]`); !strings.Contains(msg, "90 to 3650 days") {
			t.Errorf("error %q", msg)
		}
		if got, _ := db.WorkspaceByID(ctx, w.ID); got.KeepIPs || got.EventRetentionDays != 0 {
			t.Error("an invalid form was saved")
		}

		r = c.post("/console/settings/privacy", url.Values{"keepIPs": {"true"}, "retentionDays": {"120"}})
		wantStatus(t, r, http.StatusSeeOther)
		if got, _ := db.WorkspaceByID(ctx, w.ID); !got.KeepIPs || got.EventRetentionDays != 120 {
			t.Errorf("saved keepIPs=%v days=%d", got.KeepIPs, got.EventRetentionDays)
		}
		if got, _ := db.WorkspaceByID(ctx, other.ID); got.KeepIPs || got.EventRetentionDays != 0 {
			t.Error("another workspace's settings changed")
		}
		doc = c.get("/console/settings?privacy=saved").doc(t)
		if _, on := doc.Find(`[data-testid="privacy-keep-ips"]`).Attr("checked"); !on {
			t.Error("the saved setting is not shown")
		}
		// Unchecked means off again.
		wantStatus(t, c.post("/console/settings/privacy", url.Values{"retentionDays": {"0"}}), http.StatusSeeOther)
		if got, _ := db.WorkspaceByID(ctx, w.ID); got.KeepIPs || got.EventRetentionDays != 0 {
			t.Errorf("saved keepIPs=%v days=%d", got.KeepIPs, got.EventRetentionDays)
		}

		u, _ := db.CreateUser(ctx, "member@acme.test", passwordHash)
		if err := db.AddMember(ctx, w.ID, u.ID, models.RoleMember); err != nil {
			t.Fatal(err)
		}
		m := e.client()
		m.signIn("member@acme.test")
		wantStatus(t, m.post("/console/settings/privacy", url.Values{"keepIPs": {"true"}}), http.StatusForbidden)
		if got, _ := db.WorkspaceByID(ctx, w.ID); got.KeepIPs {
			t.Error("a member turned IP keeping on")
		}
	})
}
