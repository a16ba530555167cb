package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// checkSignInSuccess: signing in replaces the session cookie and the CSRF token and shows the console.
func checkSignInSuccess(t *testing.T, e *env) {
	c := e.client()
	c.get("/console/login?next=/console/settings")
	before, csrfBefore := c.cookies["relink_session"], c.csrf
	r := c.post("/console/login", url.Values{"email": {"OWNER@acme.test"}, "password": {password}, "next": {"/console/settings"}})
	wantStatus(t, r, http.StatusSeeOther)
	if r.Header.Get("Location") != "/console/settings" {
		t.Errorf("Location %q", r.Header.Get("Location"))
	}
	if c.cookies["relink_session"] == before {
		t.Error("session cookie not replaced at sign-in")
	}
	r = c.get("/console")
	wantStatus(t, r, http.StatusOK)
	if c.csrf == csrfBefore {
		t.Error("CSRF token kept across sign-in")
	}
	if got := r.text(t, `[data-testid="user-email"]`); got != "owner@acme.test" {
		t.Errorf("user email %q", got)
	}
	hx, _ := r.doc(t).Find(`[data-testid="console-shell"]`).Attr("hx-headers")
	if !strings.Contains(hx, c.csrf) {
		t.Errorf("hx-headers %q lacks the CSRF token", hx)
	}
}

// checkLoginPage: the login page sets a hardened session cookie, a CSRF field and frame-ancestors 'none'.
func checkLoginPage(t *testing.T, e *env) {
	c := e.client()
	r := c.get("/console/login")
	wantStatus(t, r, http.StatusOK)
	sc := r.Header.Get("Set-Cookie")
	for _, want := range []string{"relink_session=", "HttpOnly", "SameSite=Lax", "path=/console"} {
		if !strings.Contains(strings.ToLower(sc), strings.ToLower(want)) {
			t.Errorf("Set-Cookie %q lacks %q", sc, want)
		}
	}
	if strings.Contains(sc, "secure") {
		t.Errorf("dev mode cookie is Secure: %q", sc)
	}
	if c.csrf == "" {
		t.Fatal("no _csrf field on the login form")
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q lacks frame-ancestors 'none'", csp)
	}
}

func TestSignIn(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")

		t.Run("console needs a session", func(t *testing.T) {
			c := e.client()
			r := c.get("/console/settings/keys")
			wantStatus(t, r, http.StatusSeeOther)
			if got := r.Header.Get("Location"); got != "/console/login?next=%2Fconsole%2Fsettings%2Fkeys" {
				t.Errorf("Location = %q", got)
			}
			r = c.htmx(http.MethodGet, "/console", nil)
			if r.Header.Get("HX-Redirect") != "/console/login" {
				t.Errorf("htmx: HX-Redirect = %q", r.Header.Get("HX-Redirect"))
			}
		})

		t.Run("root redirects to the console", func(t *testing.T) {
			r := e.client().get("/")
			if r.StatusCode != http.StatusFound || r.Header.Get("Location") != "/console" {
				t.Fatalf("status %d Location %q", r.StatusCode, r.Header.Get("Location"))
			}
		})

		t.Run("login page sets a hardened cookie and a CSRF field", func(t *testing.T) { checkLoginPage(t, e) })

		bad := []struct{ name, email, password string }{
			{"wrong password", "owner@acme.test", "not the password"},
			{"unknown email", "nobody@acme.test", password},
			{"empty", "", ""},
		}
		for _, tc := range bad {
			t.Run(tc.name, func(t *testing.T) {
				c := e.client()
				c.get("/console/login")
				r := c.post("/console/login", url.Values{"email": {tc.email}, "password": {tc.password}})
				wantStatus(t, r, http.StatusUnauthorized)
				if got := r.text(t, `[data-testid="alert-error"]`); got != "Incorrect email or password." {
					t.Errorf("message %q", got)
				}
				if v, _ := r.doc(t).Find(`input[name="email"]`).Attr("value"); v != tc.email {
					t.Errorf("email field kept %q, want %q", v, tc.email)
				}
			})
		}

		t.Run("success resets the session and shows the console", func(t *testing.T) { checkSignInSuccess(t, e) })

		t.Run("unknown console page is a 404 page", func(t *testing.T) {
			c := e.client()
			c.signIn("owner@acme.test")
			r := c.get("/console/no-such-page")
			wantStatus(t, r, http.StatusNotFound)
			if r.doc(t).Find(`[data-testid="error-page"]`).Length() != 1 {
				t.Errorf("not the error page: %.300s", r.body)
			}
		})

		t.Run("open redirects are refused", func(t *testing.T) {
			c := e.client()
			c.get("/console/login")
			r := c.post("/console/login", url.Values{"email": {"owner@acme.test"}, "password": {password}, "next": {"//evil.test/x"}})
			if r.Header.Get("Location") != "/console" {
				t.Errorf("Location %q", r.Header.Get("Location"))
			}
		})

		t.Run("unsafe methods need the CSRF token", func(t *testing.T) {
			c := e.client()
			c.signIn("owner@acme.test")
			for name, form := range map[string]url.Values{"missing": {}, "wrong": {"_csrf": {"nope"}}} {
				form.Set("workspace", "x")
				r := c.do(http.MethodPost, "/console/logout", strings.NewReader(form.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
				if r.StatusCode != http.StatusForbidden {
					t.Errorf("%s token: status %d, want 403", name, r.StatusCode)
				}
			}
			// The header form (htmx) is accepted, and the session still works.
			r := c.htmx(http.MethodPost, "/console/logout", nil)
			if r.Header.Get("HX-Redirect") != "/console/login" {
				t.Fatalf("htmx logout: status %d HX-Redirect %q", r.StatusCode, r.Header.Get("HX-Redirect"))
			}
			if r := c.get("/console"); r.StatusCode != http.StatusSeeOther {
				t.Errorf("after sign-out /console: status %d, want 303", r.StatusCode)
			}
		})

		t.Run("tampered and expired cookies are anonymous", func(t *testing.T) {
			c := e.client()
			c.signIn("owner@acme.test")
			good := c.cookies["relink_session"]
			c.cookies["relink_session"] = good[:len(good)-2] + "xx"
			if r := c.get("/console"); r.StatusCode != http.StatusSeeOther {
				t.Errorf("tampered: status %d", r.StatusCode)
			}
			c.cookies["relink_session"] = good
			e.skew += 15 * 24 * time.Hour
			defer func() { e.skew -= 15 * 24 * time.Hour }()
			if r := c.get("/console"); r.StatusCode != http.StatusSeeOther {
				t.Errorf("expired: status %d", r.StatusCode)
			}
		})
	})
}

func TestWorkspaceSwitcher(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		a, _ := e.seedWorkspace("Alpha", "alpha", "multi@x.test")
		b, _ := e.seedWorkspace("Beta", "beta", "multi@x.test")
		other, _ := e.seedWorkspace("Other", "other", "someone@else.test")

		c := e.client()
		c.signIn("multi@x.test")
		r := c.get("/console")
		opts := r.doc(t).Find(`[data-testid="workspace-select"] option`)
		if opts.Length() != 2 {
			t.Fatalf("switcher has %d options, want 2", opts.Length())
		}
		if got := r.text(t, `[data-testid="overview-workspace"] [data-testid="stat-value"]`); got != a.Name {
			t.Fatalf("current workspace %q, want %q", got, a.Name)
		}
		r = c.post("/console/workspace", url.Values{"workspace": {b.ID}})
		wantStatus(t, r, http.StatusSeeOther)
		r = c.get("/console")
		if got := r.text(t, `[data-testid="overview-workspace"] [data-testid="stat-value"]`); got != b.Name {
			t.Fatalf("after switch: workspace %q, want %q", got, b.Name)
		}
		// A workspace the user is not in cannot be switched to.
		r = c.post("/console/workspace", url.Values{"workspace": {other.ID}})
		wantStatus(t, r, http.StatusNotFound)
		r = c.get("/console")
		if got := r.text(t, `[data-testid="overview-workspace"] [data-testid="stat-value"]`); got != b.Name {
			t.Fatalf("after refused switch: workspace %q, want %q", got, b.Name)
		}
	})
}

func TestSessionCookieOutsideDev(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	hex32 := strings.Repeat("ab", 32)
	e := newEnvWith(t, db, map[string]string{
		"RELINK_APP_URL": "https://app.relink.test", "RELINK_API_URL": "https://api.relink.test",
		"RELINK_DEV": "false", "RELINK_SESSION_KEYS": hex32 + ":" + hex32,
		"RELINK_TRUSTED_PROXIES": "0.0.0.0/0,::/0",
	})
	c := e.client()
	r := c.do(http.MethodGet, "/console/login", nil, map[string]string{"X-Forwarded-Proto": "https"})
	wantStatus(t, r, http.StatusOK)
	sc := strings.ToLower(r.Header.Get("Set-Cookie"))
	for _, want := range []string{"secure", "httponly", "samesite=lax"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %q", sc, want)
		}
	}
	// Plain HTTP is sent to HTTPS before any cookie is set.
	r = e.client().get("/console/login")
	if r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Set-Cookie") != "" {
		t.Errorf("plain HTTP: status %d, Set-Cookie %q", r.StatusCode, r.Header.Get("Set-Cookie"))
	}
}

func TestSignInThrottle(t *testing.T) {
	e := newEnv(t, testdb.Open(t, "sqlite"))
	c := e.client()
	c.get("/console/login")
	for i := 0; i < 10; i++ {
		r := c.post("/console/login", url.Values{"email": {"x@y.test"}, "password": {"wrong password"}})
		wantStatus(t, r, http.StatusUnauthorized)
	}
	r := c.post("/console/login", url.Values{"email": {"x@y.test"}, "password": {"wrong password"}})
	wantStatus(t, r, http.StatusTooManyRequests)
	if r.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
}
