package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ownpg"
	"github.com/relinkhq/relink/models"
)

// TestHungDatabase runs the server on a private PostgreSQL (never the shared
// cluster) and hangs it with SIGSTOP: API and console requests answer 503
// service_unavailable with Retry-After instead of waiting, /healthz stays
// 200 (liveness), /readyz turns 503 (readiness), and everything recovers
// when the database does.
func TestHungDatabase(t *testing.T) {
	if testing.Short() || !ownpg.Available() {
		t.Skip("needs initdb/postgres for a private server")
	}
	pg, err := ownpg.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	db, err := models.OpenTimeout(pg.URL(""), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts := newServer(t, db, env{vars: map[string]string{"RELINK_DB_TIMEOUT": "1s"}})
	_, key := seed(t, db, "acme", models.PlanPro)
	get := func(host, path string) resp {
		t.Helper()
		done := make(chan resp, 1)
		go func() { done <- ts.do(t, req{Host: host, Path: path, Key: key}) }()
		select {
		case r := <-done:
			return r
		case <-time.After(30 * time.Second):
			t.Fatalf("GET %s%s still waiting after 30s: no deadline", host, path)
		}
		return resp{}
	}
	if r := get(apiHost, "/links"); r.Status != http.StatusOK {
		t.Fatalf("before: %d %s", r.Status, r.Body)
	}
	if err := pg.Pause(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/links", "/tags", "/workspaces/acme"} {
		r := get(apiHost, p)
		wantError(t, r, http.StatusServiceUnavailable, "service_unavailable", "")
		if r.Header.Get("Retry-After") != "1" || r.Header.Get("retry-after-ms") != "1000" {
			t.Fatalf("%s: Retry-After %q retry-after-ms %q", p, r.Header.Get("Retry-After"), r.Header.Get("retry-after-ms"))
		}
	}
	if r := get(appHost, "/console/login"); r.Status != http.StatusOK && r.Status != http.StatusServiceUnavailable {
		t.Fatalf("console sign-in page while hung: %d", r.Status)
	}
	if r := get(apiHost, "/healthz"); r.Status != http.StatusOK {
		t.Fatalf("healthz while hung: %d", r.Status)
	}
	if r := get(apiHost, "/readyz"); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("readyz while hung: %d %s", r.Status, r.Body)
	}
	if err := pg.Resume(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := get(apiHost, "/links")
		if r.Status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after resume: %d %s", r.Status, r.Body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r := get(apiHost, "/readyz"); r.Status != http.StatusOK {
		t.Fatalf("readyz after resume: %d %s", r.Status, r.Body)
	}
}
