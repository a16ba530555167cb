package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// acceptAsNewUser opens the invite at invitePath as a new visitor, sets a
// password and checks the member's console: the role, a single-use link,
// and no right to invite.
func acceptAsNewUser(t *testing.T, e *env, invitePath string) {
	guest := e.client()
	r := guest.get(invitePath)
	wantStatus(t, r, http.StatusOK)
	if got := r.text(t, `h1`); got != "Join Acme" {
		t.Errorf("title %q", got)
	}
	r = guest.post(invitePath, url.Values{"password": {"short"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	r = guest.post(invitePath, url.Values{"password": {"a long enough password"}})
	wantStatus(t, r, http.StatusSeeOther)
	r = guest.get("/console")
	wantStatus(t, r, http.StatusOK)
	if got := r.text(t, `[data-testid="overview-workspace"] [data-testid="stat-hint"]`); !strings.HasSuffix(got, "· member") {
		t.Errorf("role %q", got)
	}
	// The link is single-use.
	if r := e.client().get(invitePath); r.StatusCode != http.StatusNotFound {
		t.Errorf("reused link: status %d", r.StatusCode)
	}
	// A member cannot invite.
	r = guest.post("/console/settings/members/invite", url.Values{"email": {"x@acme.test"}, "role": {"member"}})
	wantStatus(t, r, http.StatusForbidden)
}

// checkInviteGoneOnAPI: GET /invites/{token} on the API answers 410
// invite_expired.
func checkInviteGoneOnAPI(t *testing.T, e *env, token string) {
	req := httptest.NewRequest(http.MethodGet, "/invites/"+token, nil)
	req.Host = "localhost:8081"
	res, err := e.srv.Root.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	var got struct {
		Error struct{ Code string } `json:"error"`
	}
	if res.StatusCode != http.StatusGone || json.Unmarshal(body, &got) != nil || got.Error.Code != "invite_expired" {
		t.Errorf("API: status %d body %s", res.StatusCode, body)
	}
}

func TestInvites(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		w, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		other, _ := e.seedWorkspace("Other", "other", "owner@other.test")
		ctx := context.Background()

		owner := e.client()
		owner.signIn("owner@acme.test")

		invite := func(t *testing.T, email, role string) (resp, string) {
			t.Helper()
			r := owner.post("/console/settings/members/invite", url.Values{"email": {email}, "role": {role}})
			link := r.text(t, `[data-testid="invite-link"]`)
			return r, link
		}
		path := func(link string) string {
			u, err := url.Parse(link)
			if err != nil {
				t.Fatal(err)
			}
			return u.Path
		}

		t.Run("existing member is a conflict on the email field", func(t *testing.T) {
			r, _ := invite(t, "OWNER@acme.test", "member")
			wantStatus(t, r, http.StatusConflict)
			if got := r.text(t, `[data-testid="field-email"] [data-testid="field-error"]`); !strings.Contains(got, "already a member") {
				t.Errorf("error %q", got)
			}
		})
		t.Run("bad email and role", func(t *testing.T) {
			r, _ := invite(t, "not-an-email", "member")
			wantStatus(t, r, http.StatusUnprocessableEntity)
			r, _ = invite(t, "x@acme.test", "admin")
			wantStatus(t, r, http.StatusUnprocessableEntity)
		})

		t.Run("new user accepts and lands in the workspace", func(t *testing.T) {
			r, link := invite(t, "new@acme.test", "member")
			wantStatus(t, r, http.StatusCreated)
			if !strings.HasPrefix(link, "http://localhost:8080/console/invites/") {
				t.Fatalf("link %q", link)
			}
			r = owner.get("/console/settings/members")
			if got := r.text(t, `[data-testid="invite-email"]`); got != "new@acme.test" {
				t.Errorf("pending invite %q", got)
			}
			if strings.Contains(string(r.body), path(link)) {
				t.Error("the invite link is shown again on the list")
			}

			acceptAsNewUser(t, e, path(link))
		})

		t.Run("existing account needs its password", func(t *testing.T) {
			// owner@other.test has an account; invite them to Acme.
			_, link := invite(t, "owner@other.test", "owner")
			guest := e.client()
			r := guest.get(path(link))
			if r.doc(t).Find(`[data-testid="field-password"]`).Text() == "" {
				t.Fatal("no password field")
			}
			r = guest.post(path(link), url.Values{"password": {"wrong password!"}})
			wantStatus(t, r, http.StatusUnauthorized)
			r = guest.post(path(link), url.Values{"password": {password}})
			wantStatus(t, r, http.StatusSeeOther)
			ms, _ := db.UserWorkspaces(ctx, mustUser(t, db, "owner@other.test").ID)
			if len(ms) != 2 {
				t.Fatalf("memberships %d, want 2", len(ms))
			}
			if role, _ := db.MemberRole(ctx, w.ID, mustUser(t, db, "owner@other.test").ID); role != models.RoleOwner {
				t.Errorf("role %q", role)
			}
			_ = other
		})

		t.Run("expired invite is 410 in the console and on the API", func(t *testing.T) {
			_, link := invite(t, "late@acme.test", "member")
			e.skew += 8 * 24 * time.Hour
			defer func() { e.skew -= 8 * 24 * time.Hour }()
			guest := e.client()
			r := guest.get(path(link))
			wantStatus(t, r, http.StatusGone)
			if got := r.text(t, `[data-testid="error-title"]`); got != "Invite expired" {
				t.Errorf("title %q", got)
			}
			guest.get("/console/login") // a CSRF token for the post
			r = guest.post(path(link), url.Values{"password": {"a long enough password"}})
			wantStatus(t, r, http.StatusGone)
			if _, err := db.UserByEmail(ctx, "late@acme.test"); !models.IsNotFound(err) {
				t.Error("expired invite made an account")
			}

			checkInviteGoneOnAPI(t, e, path(link)[len("/console/invites/"):])
		})

		t.Run("last owner cannot be demoted; other workspace untouched", func(t *testing.T) {
			u := mustUser(t, db, "owner@other.test")
			// Acme now has two owners: demoting one works, then the other is the last.
			r := owner.post("/console/settings/members/"+u.ID+"/role", url.Values{"role": {"member"}})
			wantStatus(t, r, http.StatusSeeOther)
			if role, _ := db.MemberRole(ctx, other.ID, u.ID); role != models.RoleOwner {
				t.Errorf("role in the other workspace changed to %q", role)
			}
			self := mustUser(t, db, "owner@acme.test")
			r = owner.post("/console/settings/members/"+self.ID+"/role", url.Values{"role": {"member"}})
			wantStatus(t, r, http.StatusConflict)
			if role, _ := db.MemberRole(ctx, w.ID, self.ID); role != models.RoleOwner {
				t.Errorf("last owner demoted to %q", role)
			}
			// A user of another workspace is not found here.
			r = owner.post("/console/settings/members/"+mustUser(t, db, "nobody-here@x.test").ID+"/remove", nil)
			wantStatus(t, r, http.StatusNotFound)
		})
	})
}

func mustUser(t *testing.T, db *models.DB, email string) *models.User {
	t.Helper()
	u, err := db.UserByEmail(context.Background(), email)
	if models.IsNotFound(err) {
		u, err = db.CreateUser(context.Background(), email, passwordHash)
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}
