package handlers_test

import (
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestOneLogLinePerRequest: every request, whatever its face or outcome,
// writes exactly one "request" line whose request_id is the X-Request-Id
// the client received.
func TestOneLogLinePerRequest(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	_, key := seed(t, db, "acme", models.PlanPro)
	s := newServer(t, db, env{})
	type want struct {
		method, host, path, face string
		status                   int
	}
	reqs := []struct {
		r req
		w want
	}{
		{req{Host: apiHost, Path: "/workspaces/acme", Key: key}, want{"GET", apiHost, "/workspaces/acme", "api", 200}},
		{req{Host: appHost, Path: "/api/workspaces/acme"}, want{"GET", appHost, "/api/workspaces/acme", "api", 401}},
		{req{Method: "PATCH", Host: apiHost, Path: "/workspaces/acme", Key: key, Body: "{"}, want{"PATCH", apiHost, "/workspaces/acme", "api", 400}},
		{req{Host: appHost, Path: "/nothing-here"}, want{"GET", appHost, "/nothing-here", "app", 404}},
		{req{Host: "go.example.com", Path: "/healthz"}, want{"GET", "go.example.com", "/healthz", "app", 200}},
	}
	seen := map[string]bool{}
	for _, c := range reqs {
		r := s.do(t, c.r)
		if r.Status != c.w.status {
			t.Fatalf("%s %s%s: status %d, want %d", c.w.method, c.w.host, c.w.path, r.Status, c.w.status)
		}
		id := r.Header.Get("X-Request-Id")
		if len(id) != 16 || seen[id] {
			t.Fatalf("X-Request-Id %q is missing, malformed or reused", id)
		}
		seen[id] = true
		var lines []map[string]any
		for _, l := range s.logs.Find(t, "request") {
			if l["request_id"] == id {
				lines = append(lines, l)
			}
		}
		if len(lines) != 1 {
			t.Fatalf("%d request lines for %s, want 1", len(lines), id)
		}
		l := lines[0]
		if l["method"] != c.w.method || l["host"] != c.w.host || l["path"] != c.w.path || l["face"] != c.w.face ||
			l["status"] != float64(c.w.status) || l["ip"] == nil || l["took"] == nil {
			t.Fatalf("log line %v, want %+v", l, c.w)
		}
		if l["level"] != "INFO" {
			t.Fatalf("level %v for a %d", l["level"], c.w.status)
		}
	}
	if n := len(s.logs.Find(t, "request")); n != len(reqs) {
		t.Fatalf("%d request lines for %d requests", n, len(reqs))
	}
}
