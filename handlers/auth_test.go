package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

const (
	msgMissing     = "Missing Authorization header."
	msgMisconfig   = "Misconfigured authorization header. Did you forget to add 'Bearer '? Learn more: https://d.to/auth"
	msgPersonalKey = "Workspace ID not found. Did you forget to include a `workspaceId` query parameter? It looks like you might be using personal API keys, we also recommend refactoring to workspace API keys: https://d.to/keys"
	msgInvalidKey  = "Unauthorized: Invalid API key."
	msgExpired     = "Unauthorized: Access token expired."
)

// newKey adds a key to a workspace, optionally with scopes.
func newKey(t *testing.T, db *models.DB, ws *models.Workspace, scopes *string) (*models.APIKey, string) {
	t.Helper()
	ctx := context.Background()
	k, token, err := db.CreateAPIKey(ctx, ws.ID, "extra", nil)
	if err != nil {
		t.Fatal(err)
	}
	if scopes != nil {
		if err := db.Model(&models.APIKey{}).Where("id = ?", k.ID).Update("scopes", *scopes).Error; err != nil {
			t.Fatal(err)
		}
	}
	return k, token
}

// TestAuthGateOrder walks spec/links.md §1.3's failure table, in order.
func TestAuthGateOrder(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		now := time.Date(2030, 4, 16, 17, 0, 0, 0, time.UTC)
		ws, good := seed(t, db, "acme", models.PlanPro)
		revoked, revokedToken := newKey(t, db, ws, nil)
		if err := db.RevokeAPIKey(ctx, ws.ID, revoked.ID); err != nil {
			t.Fatal(err)
		}
		expired, expiredToken := newKey(t, db, ws, nil)
		past := now.Add(-time.Second)
		if err := db.Model(&models.APIKey{}).Where("id = ?", expired.ID).Update("expires_at", past).Error; err != nil {
			t.Fatal(err)
		}
		future, futureToken := newKey(t, db, ws, nil)
		later := now.Add(time.Hour)
		if err := db.Model(&models.APIKey{}).Where("id = ?", future.ID).Update("expires_at", later).Error; err != nil {
			t.Fatal(err)
		}
		s := newServer(t, db, env{now: func() time.Time { return now }})

		cases := []struct {
			name   string
			auth   string // Authorization header; "-" for none
			status int
			code   string
			msg    string
		}{
			{"no header", "-", 401, "unauthorized", msgMissing},
			{"not bearer", "Token x", 400, "bad_request", msgMisconfig},
			{"not bearer, valid key", "Basic " + good, 400, "bad_request", msgMisconfig},
			{"lower-case bearer", "bearer " + good, 400, "bad_request", msgMisconfig},
			{"personal (non dub_) token", "Bearer abc123", 404, "not_found", msgPersonalKey},
			{"unknown dub_ key", "Bearer dub_aaaaaaaaaaaaaaaaaaaaaaaa", 401, "unauthorized", msgInvalidKey},
			{"revoked key", "Bearer " + revokedToken, 401, "unauthorized", msgInvalidKey},
			{"expired key", "Bearer " + expiredToken, 401, "unauthorized", msgExpired},
			{"key expiring later", "Bearer " + futureToken, 200, "", ""},
			{"valid key", "Bearer " + good, 200, "", ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				h := map[string]string{}
				if c.auth != "-" {
					h["Authorization"] = c.auth
				}
				for _, target := range [][2]string{{apiHost, "/workspaces/acme"}, {appHost, "/api/workspaces/acme"}} {
					r := s.do(t, req{Host: target[0], Path: target[1], Header: h})
					if c.status == 200 {
						if r.Status != 200 || jsonOf(t, r)["id"] != ws.PublicID() {
							t.Fatalf("%s: %d %s", target[1], r.Status, r.Body)
						}
						continue
					}
					wantError(t, r, c.status, c.code, c.msg)
					// Credential failures come before the rate limiter.
					if r.Header.Get("X-RateLimit-Limit") != "" {
						t.Errorf("%s: rate-limit headers on a %d before the limiter", target[1], r.Status)
					}
				}
			})
		}
	})
}

// TestWorkspaceFromKeyAlone: a key only ever sees its own workspace,
// whatever the path names.
func TestWorkspaceFromKeyAlone(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		a, keyA := seed(t, db, "alpha", models.PlanPro)
		b, keyB := seed(t, db, "bravo", models.PlanPro)
		s := newServer(t, db, env{})

		for _, sel := range []string{"bravo", b.PublicID(), b.ID, "BRAVO"} {
			t.Run("get "+sel, func(t *testing.T) {
				r := s.do(t, req{Host: apiHost, Path: "/workspaces/" + sel, Key: keyA})
				wantError(t, r, 404, "not_found", "Workspace not found.")
				// The limiter ran: its headers are on the error.
				if r.Header.Get("X-RateLimit-Limit") != "600" {
					t.Errorf("X-RateLimit-Limit = %q on a post-limiter error", r.Header.Get("X-RateLimit-Limit"))
				}
			})
		}
		for _, sel := range []string{"alpha", "ALPHA", a.PublicID(), a.ID} {
			r := s.do(t, req{Host: apiHost, Path: "/workspaces/" + sel, Key: keyA})
			if r.Status != 200 || jsonOf(t, r)["id"] != a.PublicID() {
				t.Fatalf("own workspace by %q: %d %s", sel, r.Status, r.Body)
			}
		}
		t.Run("patch another workspace", func(t *testing.T) {
			r := s.do(t, req{Method: "PATCH", Host: apiHost, Path: "/workspaces/bravo", Key: keyA, Body: `{"name":"pwned"}`})
			wantError(t, r, 404, "not_found", "Workspace not found.")
			r = s.do(t, req{Host: apiHost, Path: "/workspaces/bravo", Key: keyB})
			if m := jsonOf(t, r); m["name"] != "WS bravo" {
				t.Fatalf("bravo changed through alpha's key: %v", m)
			}
		})
	})
}

// TestScopes: a key's scopes gate each route's permission (spec/links.md §1.3).
func TestScopes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ws, _ := seed(t, db, "acme", models.PlanPro)
		s := newServer(t, db, env{})
		str := func(s string) *string { return &s }
		cases := []struct {
			scopes         *string
			canGet, canSet bool
		}{
			{nil, true, true},
			{str("apis.all"), true, true},
			{str("apis.read"), true, false},
			{str("workspaces.write"), true, true},
			{str("workspaces.read"), true, false},
			{str("links.read links.write"), false, false},
			{str(""), false, false},
		}
		for _, c := range cases {
			name := "null"
			if c.scopes != nil {
				name = "'" + *c.scopes + "'"
			}
			t.Run(name, func(t *testing.T) {
				_, token := newKey(t, db, ws, c.scopes)
				check := func(method, body, perm string, allowed bool) {
					t.Helper()
					r := s.do(t, req{Method: method, Host: apiHost, Path: "/workspaces/acme", Key: token, Body: body})
					if allowed {
						if r.Status != http.StatusOK {
							t.Fatalf("%s: %d %s", method, r.Status, r.Body)
						}
						return
					}
					wantError(t, r, 403, "forbidden", "The provided key does not have the required permissions for this endpoint on the workspace '"+
						ws.PublicID()+"'. Having the '"+perm+"' permission would allow this request to continue.")
				}
				check("GET", "", "workspaces.read", c.canGet)
				check("PATCH", `{"name":"Acme"}`, "workspaces.write", c.canSet)
			})
		}
	})
}

// TestPlanGate: RequirePlan answers 403 forbidden below the plan.
func TestPlanGate(t *testing.T) {
	for _, c := range []struct {
		plan, min models.Plan
		ok        bool
	}{
		{models.PlanFree, models.PlanPro, false},
		{models.PlanPro, models.PlanPro, true},
		{models.PlanBusiness, models.PlanAdvanced, false},
		{models.PlanEnterprise, models.PlanBusiness, true},
		{models.Plan("gold"), models.PlanFree, false},
	} {
		t.Run(string(c.plan)+">="+string(c.min), func(t *testing.T) {
			err := (&models.Workspace{Plan: c.plan}).RequirePlan(c.min)
			if (err == nil) != c.ok {
				t.Fatalf("RequirePlan = %v", err)
			}
			if err != nil && err.Error() != "forbidden: Unauthorized: Need higher plan." {
				t.Fatalf("error = %v", err)
			}
		})
	}
}

// TestKeyLastUsedRecorded: an authenticated API request notes its key's
// use without writing it on the request path; the "api key use" job's
// flush writes it, and a revoked or unknown key records nothing.
func TestKeyLastUsedRecorded(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ws, token := seed(t, db, "acme", models.PlanPro)
		s := newServer(t, db, env{})
		used := func() *time.Time {
			ks, err := db.ListAPIKeys(ctx, ws.ID)
			if err != nil || len(ks) != 1 {
				t.Fatalf("keys %v %v", ks, err)
			}
			return ks[0].LastUsedAt
		}
		if r := s.do(t, req{Host: apiHost, Path: "/links", Key: token}); r.Status != 200 {
			t.Fatalf("GET /links: %d %s", r.Status, r.Body)
		}
		if got := used(); got != nil {
			t.Fatalf("the request wrote last_used_at itself (%v): it must not wait on the database", got)
		}
		before := time.Now().Add(-time.Second)
		if err := s.Services().KeyUse.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		got := used()
		if got == nil || got.Before(before) {
			t.Fatalf("last used = %v after the flush, want about now", got)
		}
		s.do(t, req{Host: apiHost, Path: "/links", Key: "dub_notakey"})
		if n := s.Services().KeyUse.Pending(); n != 0 {
			t.Fatalf("an invalid key noted %d uses", n)
		}
	})
}
