package embed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestGroupBranding: the group's brandColor is the embed dashboard's --brand
// (Dub's group.brandColor || "#2563eb") and its logo is shown; a colour that
// is not #rgb/#rrggbb and a logo that is not an http(s) URL are refused
// (422 issues on brandColor / logo) and change nothing.
func TestGroupBranding(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newEnv(t, db, "acme")
		tok, _ := e.partner("ann", "ann-acme")
		page := func() (style, logo string) {
			r := e.do(appHost, "GET", "/embed/referrals?token="+tok, "", nil)
			if r.status != 200 {
				t.Fatalf("embed page: %d", r.status)
			}
			d := doc(t, r.body)
			style, _ = d.Find("#embed-root").Attr("style")
			logo, _ = d.Find(`[data-testid="program-logo"]`).Attr("src")
			return style, logo
		}
		if st, logo := page(); !strings.Contains(st, "--brand: #2563eb;") || logo != "" {
			t.Errorf("unbranded: style %q, logo %q", st, logo)
		}
		prog, err := db.DefaultProgram(ctx, e.ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		g, err := db.GroupByIDOrSlug(ctx, e.ws.ID, prog.ID, models.DefaultGroupSlug)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []struct{ color, logo, path string }{
			{"red; background-image: url(https://evil.example/)", "", "brandColor"},
			{"#12345", "", "brandColor"},
			{"#ff5500", "javascript:alert(1)", "logo"},
		} {
			b := *g
			b.BrandColor, b.Logo = &bad.color, &bad.logo
			err := e.srv.Services().Conversions.SaveGroup(ctx, &b)
			if ae := apierr.As(err); err == nil || ae.Status() != 422 || ae.Field != bad.path {
				t.Errorf("SaveGroup(%q, %q) = %v, want a 422 on %s", bad.color, bad.logo, err, bad.path)
			}
		}
		color, logo := "#ff5500", "https://cdn.acme.example/logo.png"
		g.BrandColor, g.Logo = &color, &logo
		if err := e.srv.Services().Conversions.SaveGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		if st, l := page(); !strings.Contains(st, "--brand: #ff5500;") || l != logo {
			t.Errorf("branded: style %q, logo %q", st, l)
		}
	})
}
