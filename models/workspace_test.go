package models_test

import (
	"context"
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestCreateWorkspaceWithKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Acme", Slug: "acme", Plan: models.PlanAdvanced, OwnerEmail: "Owner@Example.com", OwnerPasswordHash: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.APIKey) != 28 || c.APIKey[:4] != "dub_" {
			t.Fatalf("api key %q is not dub_ + 24 chars", c.APIKey)
		}
		if c.Owner == nil || c.Owner.Email != "owner@example.com" {
			t.Fatalf("owner = %+v", c.Owner)
		}
		k, w, err := db.APIKeyByToken(ctx, c.APIKey)
		if err != nil {
			t.Fatal(err)
		}
		if w.ID != c.Workspace.ID || k.HashedKey == c.APIKey || k.PartialKey != c.APIKey[:3]+"..."+c.APIKey[24:] {
			t.Fatalf("key %+v workspace %+v", k, w)
		}
		// The plaintext is nowhere in the table.
		var n int64
		db.Model(&models.APIKey{}).Where("hashed_key = ? OR partial_key = ?", c.APIKey, c.APIKey).Count(&n)
		if n != 0 {
			t.Fatal("plaintext key stored")
		}
		// A taken slug is a conflict, and nothing of the failed workspace remains.
		_, err = db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Other", Slug: "acme", Plan: models.PlanFree})
		if !apierr.Is(err, apierr.Conflict) {
			t.Fatalf("duplicate slug: got %v, want conflict", err)
		}
		var count int64
		db.Model(&models.Workspace{}).Count(&count)
		if count != 1 {
			t.Fatalf("%d workspaces after failed create, want 1", count)
		}
		if err := db.RevokeAPIKey(ctx, w.ID, k.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.APIKeyByToken(ctx, c.APIKey); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("revoked key still found: %v", err)
		}
		if err := db.RevokeAPIKey(ctx, "other-workspace", k.ID); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("revoking through another workspace: %v", err)
		}
	})
}

func TestWorkspaceValidation(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	for _, tc := range []struct{ name, slug, want string }{
		{"", "ok", "too_small: name: Name is required."},
		{"A", "Bad Slug!", "invalid_format: slug:"},
		{"A", "-x", "invalid_format: slug:"},
	} {
		_, err := db.CreateWorkspace(context.Background(), tc.name, tc.slug, models.PlanFree)
		e, ok := err.(*apierr.Error)
		if !ok || e.Code != apierr.Unprocessable || len(e.Message) < len(tc.want) || e.Message[:len(tc.want)] != tc.want {
			t.Errorf("CreateWorkspace(%q,%q) = %v, want %q…", tc.name, tc.slug, err, tc.want)
		}
	}
}

func TestPlans(t *testing.T) {
	if !models.PlanEnterprise.AtLeast(models.PlanAdvanced) || models.PlanPro.AtLeast(models.PlanBusiness) || models.Plan("x").AtLeast(models.PlanFree) {
		t.Fatal("plan ordering wrong")
	}
	if _, err := models.ParsePlan("gold"); err == nil {
		t.Fatal("unknown plan accepted")
	}
	w := &models.Workspace{Plan: models.PlanPro}
	if err := w.RequirePlan(models.PlanBusiness); !apierr.Is(err, apierr.Forbidden) {
		t.Fatalf("plan gate: %v", err)
	}
}
