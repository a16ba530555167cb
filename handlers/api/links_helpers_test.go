package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/models"
)

// linksAPIHost picks the API face in the default config.
const linksAPIHost = "localhost:8081"

// linkEnv is a server over a fresh database with workspaces and keys.
type linkEnv struct {
	t    *testing.T
	db   *models.DB
	srv  *handlers.Server
	keys map[string]string // name → token
	ws   map[string]*models.Workspace
}

func newLinkEnv(t *testing.T, db *models.DB) *linkEnv {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		if k == "RELINK_DATABASE_URL" {
			return "sqlite:unused.db"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &linkEnv{t: t, db: db, keys: map[string]string{}, ws: map[string]*models.Workspace{}}
	now := time.Now
	e.srv = apptest.New(t, cfg, app.Options{
		DB: db, Limiter: ratelimit.NewMemory(now), Now: now,
	})
	return e
}

// workspace creates a workspace on plan with a full-access key named name.
func (e *linkEnv) workspace(name string, plan models.Plan) *models.Workspace {
	e.t.Helper()
	c, err := e.db.CreateWorkspaceWithKey(context.Background(), models.NewWorkspace{Name: name, Slug: name, Plan: plan, OwnerEmail: name + "@example.com", OwnerPasswordHash: "x"})
	if err != nil {
		e.t.Fatal(err)
	}
	e.keys[name] = c.APIKey
	e.ws[name] = c.Workspace
	return c.Workspace
}

// scopedKey adds a key with the given scopes to workspace ws.
func (e *linkEnv) scopedKey(name, ws, scopes string) {
	e.t.Helper()
	k, token, err := e.db.CreateAPIKey(context.Background(), e.ws[ws].ID, name, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.Model(k).Update("scopes", scopes).Error; err != nil {
		e.t.Fatal(err)
	}
	e.keys[name] = token
}

// sub returns the env bound to a subtest's t.
func (e *linkEnv) sub(t *testing.T) *linkEnv {
	c := *e
	c.t = t
	return &c
}

type linkResp struct {
	status int
	header http.Header
	body   []byte
}

func (r linkResp) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	return m
}

func (r linkResp) list(t *testing.T) []map[string]any {
	t.Helper()
	var m []map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	return m
}

// errMsg returns error.code and error.message of an error body.
func (r linkResp) errMsg(t *testing.T) (string, string) {
	t.Helper()
	var b struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatalf("error body %s: %v", r.body, err)
	}
	return b.Error.Code, b.Error.Message
}

// do sends a request to the API face as key (a name in e.keys, or "" for none).
func (e *linkEnv) do(key, method, path, body string) linkResp {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Host = linksAPIHost
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+e.keys[key])
	}
	res, b := roundTrip(e.t, e.srv, req)
	return linkResp{status: res.StatusCode, header: res.Header, body: b}
}

// ok sends a request and fails unless the status is want.
func (e *linkEnv) ok(want int, key, method, path, body string) linkResp {
	e.t.Helper()
	r := e.do(key, method, path, body)
	if r.status != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.status, want, r.body)
	}
	return r
}

// expectErr checks an error status, code and exact message.
func (e *linkEnv) expectErr(r linkResp, status int, code, msg string) {
	e.t.Helper()
	if r.status != status {
		e.t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	gotCode, gotMsg := r.errMsg(e.t)
	if gotCode != code || gotMsg != msg {
		e.t.Fatalf("error %s %q, want %s %q", gotCode, gotMsg, code, msg)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		e.t.Fatalf("content type %q", ct)
	}
}

// cached reads (domain, key) through the server's own link cache, as the
// redirect does: the link's destination, or "none" (with the domain's
// notFoundUrl when it has one) when the cache holds no usable link. The cache
// keeps what it loaded until it is told of a change (RELINK_LINK_CACHE_TTL
// is 0), so a probe before a change and one after show whether the change
// reached the cache the redirect reads.
func (e *linkEnv) cached(domain, key string) string {
	e.t.Helper()
	r, found, err := e.srv.Services().LinkCache.Get(context.Background(), domain, shortlink.LookupKey(key))
	if err != nil {
		e.t.Fatalf("link cache %s/%s: %v", domain, key, err)
	}
	if !found {
		return strings.TrimSuffix("none "+r.DomainNotFoundURL, " ")
	}
	return r.Link.URL
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
