package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/binharness"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/models"
)

// appHost and apiHost (the default configuration's hosts) are declared in
// pages_test.go.

// loadConfig builds a Config the way main does, from a map instead of the
// process environment.
func loadConfig(t testing.TB, env map[string]string) *config.Config {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("config.Load(%v): %v", env, err)
	}
	return cfg
}

// logBuffer collects the server's JSON log lines; safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Lines decodes every log line.
func (b *logBuffer) Lines(t testing.TB) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line is not JSON: %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// Find returns the log lines whose msg is msg.
func (b *logBuffer) Find(t testing.TB, msg string) []map[string]any {
	var out []map[string]any
	for _, l := range b.Lines(t) {
		if l["msg"] == msg {
			out = append(out, l)
		}
	}
	return out
}

// env is a test server's options.
type env struct {
	vars    map[string]string
	now     func() time.Time
	limiter ratelimit.Limiter
	domains []string // registered (in a workspace of their own) before the server serves
}

// testServer is a server built like main builds it, with its log captured.
type testServer struct {
	*handlers.Server
	cfg  *config.Config
	db   *models.DB
	logs *logBuffer
}

func newServer(t testing.TB, db *models.DB, e env) *testServer {
	t.Helper()
	cfg := loadConfig(t, e.vars)
	logs := &logBuffer{}
	srv := apptest.New(t, cfg, app.Options{
		DB: db, Limiter: e.limiter, Now: e.now,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if len(e.domains) > 0 {
		owner, err := db.CreateWorkspace(context.Background(), "Domains", "domains-owner", models.PlanPro)
		if err != nil {
			t.Fatal(err)
		}
		apptest.RegisterDomains(t, srv, owner.ID, e.domains...)
	}
	return &testServer{Server: srv, cfg: cfg, db: db, logs: logs}
}

// seed creates a workspace and returns it with its first API key.
func seed(t testing.TB, db *models.DB, slug string, plan models.Plan) (*models.Workspace, string) {
	t.Helper()
	c, err := db.CreateWorkspaceWithKey(context.Background(), models.NewWorkspace{Name: "WS " + slug, Slug: slug, Plan: plan})
	if err != nil {
		t.Fatalf("seed workspace %s: %v", slug, err)
	}
	return c.Workspace, c.APIKey
}

// resp is a response read in full.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// req describes one request; empty fields take defaults.
type req struct {
	Method, Host, Path, Body string
	Key                      string            // Bearer key
	Header                   map[string]string // extra headers (Authorization here overrides Key)
}

// do drives the server's root handler in memory (no sockets).
func (s *testServer) do(t testing.TB, r req) resp {
	t.Helper()
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	hr := httptest.NewRequest(r.Method, "http://"+r.Host+r.Path, body)
	hr.Host = r.Host
	if r.Body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		hr.Header.Set("Authorization", "Bearer "+r.Key)
	}
	for k, v := range r.Header {
		hr.Header.Set(k, v)
	}
	res, err := s.Root.Test(hr, -1)
	if err != nil {
		t.Fatalf("%s %s%s: %v", r.Method, r.Host, r.Path, err)
	}
	return readResp(t, res)
}

func readResp(t testing.TB, res *http.Response) resp {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp{Status: res.StatusCode, Header: res.Header, Body: b}
}

// apiError is the decoded error envelope.
type apiError struct {
	Code, Message, DocURL string
}

// errorOf decodes an error body and fails unless it is exactly
// {"error":{"code","message","doc_url"}} with JSON content type.
func errorOf(t testing.TB, r resp) apiError {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("error Content-Type = %q, want application/json; body %s", ct, r.Body)
	}
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &outer); err != nil {
		t.Fatalf("error body is not a JSON object: %s", r.Body)
	}
	if len(outer) != 1 || outer["error"] == nil {
		t.Fatalf("error body must have exactly the key \"error\": %s", r.Body)
	}
	var inner map[string]any
	if err := json.Unmarshal(outer["error"], &inner); err != nil {
		t.Fatalf("error.error is not an object: %s", r.Body)
	}
	if len(inner) != 3 {
		t.Fatalf("error object must have exactly code, message, doc_url: %s", r.Body)
	}
	var e apiError
	var ok1, ok2, ok3 bool
	e.Code, ok1 = inner["code"].(string)
	e.Message, ok2 = inner["message"].(string)
	e.DocURL, ok3 = inner["doc_url"].(string)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("code, message and doc_url must be strings: %s", r.Body)
	}
	return e
}

// wantError checks status, code and (when msg != "") the exact message.
func wantError(t testing.TB, r resp, status int, code, msg string) apiError {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	e := errorOf(t, r)
	if e.Code != code {
		t.Fatalf("code = %q, want %q; body %s", e.Code, code, r.Body)
	}
	if msg != "" && e.Message != msg {
		t.Fatalf("message = %q,\n want %q", e.Message, msg)
	}
	return e
}

// jsonOf decodes a success body.
func jsonOf(t testing.TB, r resp) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object (status %d): %s", r.Status, r.Body)
	}
	return m
}

// freePorts returns n distinct TCP ports that were free a moment ago.
func freePorts(t testing.TB, n int) []string { return binharness.FreePorts(t, n) }

// live is a server serving real sockets.
type live struct {
	cancel context.CancelFunc
	done   chan error
}

// serveLive opens the planned listeners and serves until stop is called
// (also on cleanup). wrap may wrap each listener before serving.
func (s *testServer) serveLive(t testing.TB, wrap func(net.Listener) net.Listener) *live {
	t.Helper()
	plan, err := s.Listeners()
	if err != nil {
		t.Fatalf("Listeners: %v", err)
	}
	lns, err := handlers.Listen(plan)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	if wrap != nil {
		for i := range lns {
			lns[i] = wrap(lns[i])
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &live{cancel: cancel, done: make(chan error, 1)}
	go func() { l.done <- s.Serve(ctx, lns) }()
	t.Cleanup(func() { l.stop(t) })
	return l
}

// stop cancels serving and returns Serve's error (once).
func (l *live) stop(t testing.TB) error {
	t.Helper()
	l.cancel()
	select {
	case err, ok := <-l.done:
		if ok {
			close(l.done)
		}
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("server did not stop within 30s")
	}
	return nil
}

// httpGet sends a request over the network with an explicit Host header.
func httpDo(t testing.TB, c *http.Client, method, url, host string, hdr map[string]string, body string) resp {
	t.Helper()
	var rb io.Reader
	if body != "" {
		rb = strings.NewReader(body)
	}
	hr, err := http.NewRequest(method, url, rb)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		hr.Host = host
	}
	for k, v := range hdr {
		hr.Header.Set(k, v)
	}
	res, err := c.Do(hr)
	if err != nil {
		t.Fatalf("%s %s (Host %s): %v", method, url, host, err)
	}
	return readResp(t, res)
}

// noRedirect is a client that returns redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}
