package console_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestSessionsEndWhenAsked (issue 15 item 6): sign-out revokes the session
// on the server, so a copy of the old cookie is signed out too; "sign out
// everywhere" and a password change end every other session of the user
// and keep the current one.
func TestSessionsEndWhenAsked(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@example.com")
		signedIn := func(c *client) bool {
			t.Helper()
			r := c.get("/console/links")
			return r.StatusCode == http.StatusOK
		}
		copyOf := func(c *client) *client {
			d := e.client()
			for k, v := range c.cookies {
				d.cookies[k] = v
			}
			d.csrf = c.csrf
			return d
		}

		// Sign-out: the old cookie, replayed, is signed out.
		a := e.client()
		a.signIn("owner@example.com")
		stolen := copyOf(a)
		if !signedIn(stolen) {
			t.Fatal("a copy of a live cookie should be signed in")
		}
		wantStatus(t, a.post("/console/logout", nil), http.StatusSeeOther)
		if signedIn(stolen) {
			t.Fatal("the old cookie still signs in after sign-out")
		}
		if r := stolen.post("/console/links", url.Values{"url": {"https://example.com"}}); r.StatusCode < 300 || r.StatusCode == http.StatusOK {
			t.Fatalf("a form posted with the old cookie: %d", r.StatusCode)
		}

		// Sign out everywhere: the other sessions end, this one stays.
		b, other := e.client(), e.client()
		b.signIn("owner@example.com")
		other.signIn("owner@example.com")
		wantStatus(t, b.post("/console/logout/everywhere", nil), http.StatusSeeOther)
		if !signedIn(b) || signedIn(other) {
			t.Fatalf("after sign out everywhere: this session %v (want true), the other %v (want false)", signedIn(b), signedIn(other))
		}

		// A password change: the other sessions end, the new password works.
		other.signIn("owner@example.com")
		if r := b.post("/console/settings/password", url.Values{"current_password": {"wrong"}, "new_password": {"a new long password"}}); r.StatusCode != http.StatusForbidden {
			t.Fatalf("wrong current password: %d", r.StatusCode)
		}
		wantStatus(t, b.post("/console/settings/password", url.Values{"current_password": {password}, "new_password": {"a new long password"}}), http.StatusSeeOther)
		if !signedIn(b) || signedIn(other) {
			t.Fatalf("after a password change: this session %v (want true), the other %v (want false)", signedIn(b), signedIn(other))
		}
		c := e.client()
		c.get("/console/login")
		if r := c.post("/console/login", url.Values{"email": {"owner@example.com"}, "password": {"a new long password"}}); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign in with the new password: %d", r.StatusCode)
		}
	})
}
