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

// TestFolderSharing: the console's folder pages follow spec/parity.md §13 — a
// member sees only reachable folders, cannot open, share or delete what
// their folder role does not allow, links in read-only folders have no
// form, and only a folder owner changes roles (never their own).
func TestFolderSharing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		w, owner := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		u, err := db.CreateUser(ctx, "member@acme.test", passwordHash)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.AddMember(ctx, w.ID, u.ID, models.RoleMember); err != nil {
			t.Fatal(err)
		}
		_, stranger := e.seedWorkspace("Other", "other", "stranger@other.test")
		now := time.Now().UTC()
		folder := func(name string, level *string) string {
			f := &models.Folder{WorkspaceID: w.ID, Name: name, Type: "default", AccessLevel: level, UserID: &owner.ID, CreatedAt: now, UpdatedAt: now}
			if err := db.InsertFolder(ctx, f); err != nil {
				t.Fatal(err)
			}
			return f.ID
		}
		read, write := "read", "write"
		open, ro, secret := folder("Open", &write), folder("Reading", &read), folder("Secret", nil)
		roLink := &models.Link{ID: "link_ro", WorkspaceID: w.ID, Domain: "localhost:8080", Key: "ro", URL: "https://example.com/ro", FolderID: &ro, CreatedAt: now, UpdatedAt: now}
		if err := db.InsertLink(ctx, roLink, nil, now); err != nil {
			t.Fatal(err)
		}

		m := e.client()
		m.signIn("member@acme.test")
		var names []string
		m.get("/console/folders").doc(t).Find(`[data-testid="library-link"]`).Each(func(_ int, sel *goquery.Selection) {
			names = append(names, strings.TrimSpace(sel.Text()))
		})
		if strings.Join(names, ",") != "Open,Reading" {
			t.Errorf("member sees %q", names)
		}
		wantStatus(t, m.get("/console/folders/"+secret), http.StatusForbidden)
		r := m.get("/console/links/" + roLink.ID)
		wantStatus(t, r, http.StatusOK)
		if d := r.doc(t); d.Find(`[data-testid="link-read-only"]`).Length() != 1 || d.Find(`[data-testid="link-edit"]`).Length() != 0 {
			t.Error("a read-only folder's link shows its edit form")
		}
		wantStatus(t, m.post("/console/links/"+roLink.ID+"/delete", nil), http.StatusForbidden)
		wantStatus(t, m.post("/console/links/"+roLink.ID, url.Values{"url": {"https://evil.example"}, "domain": {"localhost:8080"}, "key": {"ro"}}), http.StatusForbidden)
		if l, _ := db.LinkByID(ctx, w.ID, roLink.ID); l == nil || l.URL != "https://example.com/ro" {
			t.Errorf("read-only link changed: %+v", l)
		}
		// An editor (workspace access write) may not share or delete the folder.
		m.get("/console/folders/" + open)
		wantStatus(t, m.post("/console/folders/"+open+"/access", url.Values{"accessLevel": {""}}), http.StatusForbidden)
		wantStatus(t, m.post("/console/folders/"+open+"/members/"+owner.ID, url.Values{"role": {"none"}}), http.StatusForbidden)
		wantStatus(t, m.post("/console/folders/"+open+"/delete", nil), http.StatusForbidden)
		if f, _ := db.FolderByID(ctx, w.ID, open); f == nil || f.AccessLevel == nil || *f.AccessLevel != "write" {
			t.Errorf("folder changed by an editor: %+v", f)
		}

		o := e.client()
		o.signIn("owner@acme.test")
		o.get("/console/folders/" + secret)
		r = o.post("/console/folders/"+secret+"/members/"+u.ID, url.Values{"role": {"viewer"}})
		if r.StatusCode != http.StatusSeeOther && r.StatusCode != http.StatusFound {
			t.Fatalf("set role: %d %s", r.StatusCode, r.body)
		}
		wantStatus(t, m.get("/console/folders/"+secret), http.StatusOK)
		// Nobody changes their own role; a foreign user is not a member.
		wantStatus(t, o.post("/console/folders/"+secret+"/members/"+owner.ID, url.Values{"role": {"viewer"}}), http.StatusForbidden)
		o.get("/console/folders/" + secret)
		wantStatus(t, o.post("/console/folders/"+secret+"/members/"+stranger.ID, url.Values{"role": {"viewer"}}), http.StatusNotFound)
		// Another workspace's folder is not there.
		s := e.client()
		s.signIn("stranger@other.test")
		wantStatus(t, s.get("/console/folders/"+secret), http.StatusNotFound)
	})
}
