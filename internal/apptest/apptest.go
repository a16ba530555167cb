// Package apptest builds a Relink server for tests and benchmarks the way
// `relink serve` does: internal/app's Build, then handlers.New. The options
// replace only what a test controls (its database, clock, limiter, log).
package apptest

import (
	"context"
	"testing"
	"time"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// New builds the services over cfg and o and mounts the routes. At cleanup
// the click pipeline is drained (before the test's database closes, which
// testdb.Open registered earlier) and the services are closed.
func New(t testing.TB, cfg *config.Config, o app.Options) *handlers.Server {
	t.Helper()
	svc, err := app.Build(context.Background(), cfg, o)
	if err != nil {
		t.Fatalf("app.Build: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := svc.Clicks.Drain(ctx); err != nil {
			t.Logf("drain clicks at cleanup: %v", err)
		}
		if err := svc.Close(); err != nil {
			t.Errorf("close services: %v", err)
		}
	})
	return handlers.New(svc)
}

// Config loads a configuration from env the way main does from the process
// environment.
func Config(t testing.TB, env map[string]string) *config.Config {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("config.Load(%v): %v", env, err)
	}
	return cfg
}

// RegisterDomains adds domains to the workspace as bare rows (no root link,
// unlike POST /domains) and reloads the server's set of registered domains,
// so the server serves them as production does. Tests that need the API's
// rules register through POST /domains instead.
func RegisterDomains(t testing.TB, srv *handlers.Server, workspaceID string, slugs ...string) {
	t.Helper()
	svc := srv.Services()
	ctx := context.Background()
	now := svc.Now()
	for _, slug := range slugs {
		d := &models.Domain{ID: ids.New(ids.Domain), WorkspaceID: workspaceID, Slug: slug, CreatedAt: now, UpdatedAt: now}
		if err := svc.DB.WithContext(ctx).Create(d).Error; err != nil {
			t.Fatalf("register domain %s: %v", slug, err)
		}
	}
	if err := svc.Domains.Reload(ctx); err != nil {
		t.Fatal(err)
	}
}
