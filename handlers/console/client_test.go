package console_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/crypto/bcrypt"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/models"
)

const appHost = "localhost:8080"

// env is a server on a test database, with a clock tests can move forward.
type env struct {
	t       *testing.T
	db      *models.DB
	srv     *handlers.Server
	clicks  *ingest.Pipeline
	skew    time.Duration // added to the real clock (expiry tests)
	appHost string
}

func newEnv(t *testing.T, db *models.DB) *env { return newEnvWith(t, db, nil) }

// newEnvWith builds the server with RELINK_* variables.
func newEnvWith(t *testing.T, db *models.DB, vars map[string]string) *env {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	e := &env{t: t, db: db, appHost: cfg.AppURL.Host}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e.srv = apptest.New(t, cfg, app.Options{
		DB: db, Now: func() time.Time { return time.Now().UTC().Add(e.skew) }, Logger: log,
	})
	e.clicks = e.srv.Services().Clicks
	return e
}

// passwordHash is the seeded users' hash, made at bcrypt's lowest cost so
// the many sign-ins of these tests stay fast (CheckPassword compares at the
// hash's own cost; production hashes use auth.HashPassword's cost 12).
var passwordHash = func() string {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		panic(err)
	}
	return string(h)
}()

const password = "correct horse battery"

// seedWorkspace makes a workspace with an owner (password above).
func (e *env) seedWorkspace(name, slug, ownerEmail string) (*models.Workspace, *models.User) {
	e.t.Helper()
	ctx := context.Background()
	w, err := e.db.CreateWorkspace(ctx, name, slug, models.PlanBusiness)
	if err != nil {
		e.t.Fatalf("workspace: %v", err)
	}
	u, err := e.db.UserByEmail(ctx, ownerEmail)
	if models.IsNotFound(err) {
		u, err = e.db.CreateUser(ctx, ownerEmail, passwordHash)
	}
	if err != nil {
		e.t.Fatalf("user: %v", err)
	}
	if err := e.db.AddMember(ctx, w.ID, u.ID, models.RoleOwner); err != nil {
		e.t.Fatalf("member: %v", err)
	}
	return w, u
}

// client is a browser: a cookie jar and the CSRF token of the last page.
type client struct {
	e       *env
	cookies map[string]string
	csrf    string
}

func (e *env) client() *client { return &client{e: e, cookies: map[string]string{}} }

type resp struct {
	*http.Response
	body []byte
}

func (r resp) doc(t *testing.T) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return d
}

func (r resp) text(t *testing.T, sel string) string {
	t.Helper()
	return strings.TrimSpace(r.doc(t).Find(sel).First().Text())
}

// do sends a request with the jar's cookies, keeps the cookies it sets and the
// CSRF token the page carries (a form's _csrf or the shell's hx-headers).
func (c *client) do(method, target string, body io.Reader, header map[string]string) resp {
	c.e.t.Helper()
	req := httptest.NewRequest(method, target, body)
	req.Host = c.e.host()
	for k, v := range header {
		req.Header.Set(k, v)
	}
	for k, v := range c.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	res, err := c.e.srv.Root.Test(req, -1)
	if err != nil {
		c.e.t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.e.t.Fatalf("read body: %v", err)
	}
	for _, ck := range res.Cookies() {
		if ck.MaxAge < 0 {
			delete(c.cookies, ck.Name)
		} else {
			c.cookies[ck.Name] = ck.Value
		}
	}
	r := resp{res, b}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		d := r.doc(c.e.t)
		if v, ok := d.Find(`input[name="_csrf"]`).First().Attr("value"); ok {
			c.csrf = v
		}
	}
	return r
}

func (c *client) get(target string) resp { return c.do(http.MethodGet, target, nil, nil) }

// post submits a form with the current CSRF token (unless form sets _csrf).
func (c *client) post(target string, form url.Values) resp {
	c.e.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["_csrf"]; !ok {
		form.Set("_csrf", c.csrf)
	}
	return c.do(http.MethodPost, target, strings.NewReader(form.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
}

// upload submits a multipart form with one file field and the CSRF token.
func (c *client) upload(target, field, filename string, content []byte) resp {
	c.e.t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.WriteField("_csrf", c.csrf); err != nil {
		c.e.t.Fatal(err)
	}
	fw, err := w.CreateFormFile(field, filename)
	if err != nil {
		c.e.t.Fatal(err)
	}
	fw.Write(content) //nolint:errcheck // a bytes.Buffer
	if err := w.Close(); err != nil {
		c.e.t.Fatal(err)
	}
	return c.do(http.MethodPost, target, &b, map[string]string{"Content-Type": w.FormDataContentType()})
}

// htmx sends an htmx request carrying the CSRF token as a header.
func (c *client) htmx(method, target string, form url.Values) resp {
	c.e.t.Helper()
	h := map[string]string{"HX-Request": "true", "X-CSRF-Token": c.csrf}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
		h["Content-Type"] = "application/x-www-form-urlencoded"
	}
	return c.do(method, target, body, h)
}

// signIn signs the client in through the form.
func (c *client) signIn(email string) {
	c.e.t.Helper()
	c.get("/console/login")
	r := c.post("/console/login", url.Values{"email": {email}, "password": {password}})
	if r.StatusCode != http.StatusSeeOther {
		c.e.t.Fatalf("sign in %s: status %d, body %s", email, r.StatusCode, r.body)
	}
	c.get("/console") // pick up the new session's CSRF token
}

func wantStatus(t *testing.T, r resp, want int) {
	t.Helper()
	if r.StatusCode != want {
		t.Fatalf("status %d, want %d; body: %s", r.StatusCode, want, r.body)
	}
}

// host is the app origin's host.
func (e *env) host() string { return e.appHost }
