package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func newWorkspace(t *testing.T, db *models.DB, slug string) *models.Workspace {
	t.Helper()
	w, err := db.CreateWorkspace(context.Background(), slug, slug, models.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestLinkModel(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		w := newWorkspace(t, db, "acme")
		other := newWorkspace(t, db, "other")
		exp := time.Date(2030, 4, 16, 17, 0, 0, 0, time.UTC)
		ext := "Order-1"
		l := &models.Link{WorkspaceID: w.ID, Domain: "Acme.Link", Key: "AbC", URL: "https://example.com/",
			Geo: models.Geo{"US": "https://us.example.com"}, ExpiresAt: &exp, ExternalID: &ext}
		if err := db.CreateLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"abc", "ABC", "AbC"} {
			got, err := db.LinkByDomainKey(ctx, "acme.link", key)
			if err != nil {
				t.Fatalf("lookup %q: %v", key, err)
			}
			if got.ID != l.ID || got.Key != "AbC" || got.Geo["US"] != "https://us.example.com" || !got.ExpiresAt.Equal(exp) {
				t.Fatalf("lookup %q: %+v", key, got)
			}
		}
		if _, err := db.LinkByDomainKey(ctx, "other.link", "abc"); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("other domain: %v", err)
		}
		if _, err := db.LinkByID(ctx, other.ID, l.ID); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("other workspace read its link: %v", err)
		}
		tests := []struct {
			name string
			link models.Link
			msg  string
		}{
			{"key differs only in case", models.Link{WorkspaceID: other.ID, Domain: "acme.link", Key: "abc"}, models.MsgDuplicateKey},
			{"externalId differs only in case", models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "x", ExternalID: ptr("order-1")}, models.MsgDuplicateExternalID},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := db.CreateLink(ctx, &tc.link)
				if ae := apierr.As(err); ae.Code != apierr.Conflict || ae.Message != tc.msg {
					t.Fatalf("got %v, want conflict %q", err, tc.msg)
				}
			})
		}
		// The same externalId in another workspace is fine.
		if err := db.CreateLink(ctx, &models.Link{WorkspaceID: other.ID, Domain: "acme.link", Key: "y", ExternalID: ptr("order-1")}); err != nil {
			t.Fatal(err)
		}
		// A link's domain is not a registered domain by itself.
		slugs, err := db.DomainSlugs(ctx)
		if err != nil || len(slugs) != 0 {
			t.Fatalf("registered domains %v err=%v, want none", slugs, err)
		}
	})
}

func ptr[T any](v T) *T { return &v }
