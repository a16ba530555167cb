package api_test

import (
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestWorkspaceSchema: GET /workspaces/{idOrSlug} answers Dub's
// WorkspaceSchema (counts, usage, limits, domains, the key's role, allowed
// hostnames; neutral values for billing); PATCH applies allowedHostnames
// and refuses publishableKey (issue 36 item 6).
func TestWorkspaceSchema(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		e.ok(200, "acme", "POST", "/links", `{"url":"https://example.com/a","key":"a"}`)
		w := e.ok(200, "acme", "GET", "/workspaces/acme", "").json(t)
		for k, want := range map[string]any{"slug": "acme", "plan": "business", "totalLinks": 1.0, "linksUsage": 1.0,
			"linksLimit": 10000.0, "usageLimit": 250000.0, "conversionEnabled": false, "inviteCode": nil, "stripeId": nil,
			"logo": nil, "allowedHostnames": nil, "planTier": 1.0} {
			if got, ok := w[k]; !ok || got != want {
				t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
			}
		}
		if us, _ := w["users"].([]any); len(us) != 1 || us[0].(map[string]any)["role"] != "owner" {
			t.Errorf("users %v", w["users"])
		}
		if _, ok := w["domains"].([]any); !ok {
			t.Errorf("domains %v", w["domains"])
		}
		p := e.ok(200, "acme", "PATCH", "/workspaces/acme", `{"allowedHostnames":["app.acme.example","*.acme.example"]}`).json(t)
		if hs, _ := p["allowedHostnames"].([]any); len(hs) != 2 || hs[0] != "app.acme.example" {
			t.Errorf("allowedHostnames after PATCH: %v", p["allowedHostnames"])
		}
		if g := e.ok(200, "acme", "GET", "/workspaces/acme", "").json(t); len(g["allowedHostnames"].([]any)) != 2 {
			t.Errorf("allowedHostnames not kept: %v", g["allowedHostnames"])
		}
		e.ok(422, "acme", "PATCH", "/workspaces/acme", `{"publishableKey":"dub_pk_x"}`)
	})
}
