package domainset_test

import (
	"context"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/domainset"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"go.acme.test": "go.acme.test", "GO.Acme.TEST": "go.acme.test", "go.acme.test:8080": "go.acme.test",
		"go.acme.test.": "go.acme.test", "Go.Acme.Test.:443": "go.acme.test", "www.go.acme.test": "go.acme.test",
		"[::1]:8080": "", "": "",
	} {
		if got := domainset.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSet: loaded at start, and Changed reloads it after a domain row is
// added or deleted.
func TestSet(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ws, err := db.CreateWorkspace(ctx, "Acme", "acme", models.PlanPro)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		if err := db.InsertDomain(ctx, &models.Domain{ID: "dom_a", WorkspaceID: ws.ID, Slug: "go.acme.test", CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		s, err := domainset.New(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		for host, want := range map[string]bool{"go.acme.test": true, "GO.ACME.TEST:8080": true, "go.acme.test.": true,
			"acme.test": false, "x.go.acme.test": false, "": false} {
			if got := s.IsRegistered(host); got != want {
				t.Errorf("IsRegistered(%q) = %v", host, got)
			}
		}
		if err := db.InsertDomain(ctx, &models.Domain{ID: "dom_b", WorkspaceID: ws.ID, Slug: "b.acme.test", CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		if s.IsRegistered("b.acme.test") {
			t.Fatal("the set changed without being told (no database read on the check)")
		}
		s.Changed("b.acme.test")
		if !s.IsRegistered("b.acme.test") {
			t.Fatal("an added domain is not registered after Changed")
		}
		d, err := db.DomainByName(ctx, "go.acme.test")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.DeleteDomain(ctx, d); err != nil {
			t.Fatal(err)
		}
		s.Changed("go.acme.test")
		if s.IsRegistered("go.acme.test") || !s.IsRegistered("b.acme.test") {
			t.Fatal("a deleted domain is still registered")
		}
	})
}
