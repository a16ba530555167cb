package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// trackClick posts a /track/click body to the API face.
func (e *redirectEnv) trackClick(body, ua string, header map[string]string) (int, http.Header, map[string]any) {
	e.t.Helper()
	h := map[string]string{"User-Agent": ua}
	for k, v := range header {
		h[k] = v
	}
	return e.post("/track/click", body, h)
}

// post sends a JSON body to the API face.
func (e *redirectEnv) post(path, body string, header map[string]string) (int, http.Header, map[string]any) {
	e.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://localhost:8081"+path, strings.NewReader(body))
	req.Host = "localhost:8081"
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := e.srv.Root.Test(req, -1)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			e.t.Fatalf("body %s: %v", b, err)
		}
	}
	return res.StatusCode, res.Header, m
}

// TestTrackClick: POST /track/click (spec/partners-and-embed.md §1.4) records a
// click through the pipeline, answers the same id to the same visitor, names
// the partner of a partner link, refuses pages off the allowed hostnames and
// carries CORS headers on every answer.
// seedTrackPartner makes the workspace's default program and enrolls
// partner pn_track (tenant tenant_7) in its default group.
func seedTrackPartner(t *testing.T, db *models.DB, e *redirectEnv) (*models.Program, *models.Group, string) {
	t.Helper()
	ctx := context.Background()
	prog, grp, err := db.CreateDefaultProgram(ctx, e.ws)
	if err != nil {
		t.Fatal(err)
	}
	tenant := "tenant_7"
	if err := db.CreatePartner(ctx, &models.Partner{ID: "pn_track", WorkspaceID: e.ws.ID, Email: "p@example.com", Name: "Pat Partner", NetworkStatus: "approved"}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateEnrollment(ctx, &models.Enrollment{ID: "pge_track", WorkspaceID: e.ws.ID, ProgramID: prog.ID, PartnerID: "pn_track",
		TenantID: &tenant, GroupID: &grp.ID, Status: "approved", CreatedAt: e.now, UpdatedAt: e.now}); err != nil {
		t.Fatal(err)
	}
	return prog, grp, tenant
}

func TestTrackClick(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{})
		ctx := context.Background()
		plain := e.link(models.Link{Key: "Spring", URL: "https://acme.example/landing"})

		prog, grp, tenant := seedTrackPartner(t, db, e)
		partnerLink := e.link(models.Link{Key: "pat", URL: "https://acme.example/", ProgramID: &prog.ID, PartnerID: ptr("pn_track")})

		t.Run("errors, with CORS headers", func(t *testing.T) {
			for _, tc := range []struct {
				body   string
				status int
				msg    string
			}{
				{`{"key":"spring"}`, 422, "invalid_type: domain: domain is required."},
				{`{"domain":"acme.link"}`, 422, "invalid_type: key: key is required."},
				{`{"domain":"acme.link","key":"nope"}`, 404, "Link not found for domain: acme.link and key: nope."},
				{`{"domain":1,"key":"x"}`, 422, "invalid_type: domain: Invalid input: expected string, received number"},
			} {
				status, h, m := e.trackClick(tc.body, chromeUA, nil)
				msg, _ := m["error"].(map[string]any)["message"].(string)
				if status != tc.status || msg != tc.msg || h.Get("Access-Control-Allow-Origin") != "*" {
					t.Errorf("%s: %d %q (CORS %q), want %d %q", tc.body, status, msg, h.Get("Access-Control-Allow-Origin"), tc.status, tc.msg)
				}
			}
			req := httptest.NewRequest(http.MethodOptions, "http://localhost:8081/track/click", nil)
			req.Host = "localhost:8081"
			res, _ := e.srv.Root.Test(req, -1)
			if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Methods") != "POST, OPTIONS" || res.Header.Get("Access-Control-Allow-Headers") != "Content-Type, Authorization" {
				t.Errorf("OPTIONS %d %v", res.StatusCode, res.Header)
			}
		})

		t.Run("a click, the same id for the same visitor", func(t *testing.T) {
			before := len(e.clicksOf(plain))
			body := `{"domain":"www.ACME.link","key":"spring","url":"https://acme.example/landing?via=spring","referrer":"https://news.example/post"}`
			status, _, m := e.trackClick(body, chromeUA+" track-a", nil)
			id, _ := m["clickId"].(string)
			if status != 200 || len(id) != 16 {
				t.Fatalf("%d %v", status, m)
			}
			if _, ok := m["partner"]; ok {
				t.Errorf("a plain link's answer has a partner key: %v", m)
			}
			if _, _, again := e.trackClick(body, chromeUA+" track-a", nil); again["clickId"] != id {
				t.Errorf("same visitor got %v, want %s", again["clickId"], id)
			}
			_, _, other := e.trackClick(body, chromeUA+" track-b", nil)
			if other["clickId"] == id {
				t.Error("another visitor got the same click id")
			}
			clicks := e.clicksOf(plain)
			if len(clicks)-before != 2 {
				t.Fatalf("%d clicks stored, want 2 (two visitors)", len(clicks)-before)
			}
			var c *models.Click
			for i := range clicks {
				if clicks[i].ClickID == id {
					c = &clicks[i]
				}
			}
			if c == nil || c.URL != "https://acme.example/landing?via=spring" || c.Referer != "news.example" || c.RefererURL != "https://news.example/post" {
				t.Fatalf("stored click %+v", c)
			}
		})

		checkTrackClickPartners(t, db, e, prog, grp, tenant, partnerLink)

		t.Run("allowed hostnames", func(t *testing.T) {
			if err := e.ws.SetEmbedHostnames([]string{"acme.example", "*.shop.example"}); err != nil {
				t.Fatal(err)
			}
			if err := db.UpdateWorkspace(ctx, e.ws); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				header map[string]string
				status int
			}{
				{map[string]string{"Referer": "https://www.acme.example/pricing"}, 200},
				{map[string]string{"Origin": "https://eu.shop.example"}, 200},
				{map[string]string{"Referer": "https://shop.example/"}, 403}, // the wildcard wants a proper subdomain
				{map[string]string{"Referer": "https://evil.example/"}, 403},
				{nil, 403},
			} {
				e.n++
				status, _, m := e.trackClick(`{"domain":"acme.link","key":"spring"}`, chromeUA+" host-"+string(rune('a'+e.n)), tc.header)
				if status != tc.status {
					t.Errorf("%v: %d %v, want %d", tc.header, status, m, tc.status)
				}
				if tc.status == 403 {
					msg, _ := m["error"].(map[string]any)["message"].(string)
					if !strings.HasPrefix(msg, "Request origin '") || !strings.Contains(msg, "is not included in the allowed hostnames") {
						t.Errorf("403 message %q", msg)
					}
				}
			}
		})
	})
}

// checkTrackClickPartners: /track/click's partner object and discount for
// partner links (spec/parity.md §8.7; TestTrackClick's partner steps).
func checkTrackClickPartners(t *testing.T, db *models.DB, e *redirectEnv, prog *models.Program, grp *models.Group, tenant string, partnerLink *models.Link) {
	t.Helper()
	ctx := context.Background()
	t.Run("a partner link names its partner; the discount is null", func(t *testing.T) {
		status, _, m := e.trackClick(`{"domain":"acme.link","key":"pat"}`, chromeUA+" track-p", nil)
		p, _ := m["partner"].(map[string]any)
		if status != 200 || p["id"] != "pn_track" || p["name"] != "Pat Partner" || p["groupId"] != grp.ID || p["tenantId"] != tenant {
			t.Fatalf("%d %v", status, m)
		}
		if d, ok := m["discount"]; !ok || d != nil {
			t.Errorf("discount %v (present %v), want null", d, ok)
		}
		if n := len(e.clicksOf(partnerLink)); n != 1 {
			t.Errorf("%d partner clicks", n)
		}
		// No image of its own: our avatar, which is served (spec/parity.md §8.7).
		if p["image"] != "http://localhost:8081/og/avatar/pn_track" {
			t.Fatalf("image %v", p["image"])
		}
		req := httptest.NewRequest(http.MethodGet, "http://localhost:8081/og/avatar/pn_track", nil)
		req.Host = "localhost:8081"
		res, err := e.srv.Root.Test(req, -1)
		if err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" {
			t.Fatalf("avatar: %v %v", res, err)
		}
	})

	t.Run("the enrollment's discount; none when its amount is 0", func(t *testing.T) {
		months := 12
		d := &models.Discount{ID: "disc_track", Amount: 20, Type: models.DiscountPercentage, MaxDuration: &months, CreatedAt: e.now, UpdatedAt: e.now}
		if err := db.SetGroupDiscount(ctx, grp, d); err != nil {
			t.Fatal(err)
		}
		_, _, m := e.trackClick(`{"domain":"acme.link","key":"pat"}`, chromeUA+" track-d", nil)
		got, _ := m["discount"].(map[string]any)
		if got["id"] != "disc_track" || got["amount"] != float64(20) || got["type"] != "percentage" || got["maxDuration"] != float64(12) {
			t.Fatalf("discount %v", m["discount"])
		}
		for _, k := range []string{"couponId", "couponTestId"} {
			if v, ok := got[k]; !ok || v != nil {
				t.Errorf("%s: %v (present %v)", k, v, ok)
			}
		}
		zero := &models.Discount{ID: "disc_zero", Amount: 0, Type: models.DiscountFlat, CreatedAt: e.now, UpdatedAt: e.now}
		if err := db.SetGroupDiscount(ctx, grp, zero); err != nil {
			t.Fatal(err)
		}
		if _, _, m := e.trackClick(`{"domain":"acme.link","key":"pat"}`, chromeUA+" track-z", nil); m["discount"] != nil {
			t.Errorf("a 0 discount: %v", m["discount"])
		}
	})

	t.Run("a partner's own image; null groupId and tenantId are left out", func(t *testing.T) {
		img := "https://cdn.example/pat2.png"
		if err := db.CreatePartner(ctx, &models.Partner{ID: "pn_img", WorkspaceID: e.ws.ID, Email: "p2@example.com", Name: "Pat Two", Image: &img, NetworkStatus: "approved"}); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateEnrollment(ctx, &models.Enrollment{ID: "pge_img", WorkspaceID: e.ws.ID, ProgramID: prog.ID, PartnerID: "pn_img",
			Status: "approved", CreatedAt: e.now, UpdatedAt: e.now}); err != nil {
			t.Fatal(err)
		}
		e.link(models.Link{Key: "pat2", URL: "https://acme.example/", ProgramID: &prog.ID, PartnerID: ptr("pn_img")})
		_, _, m := e.trackClick(`{"domain":"acme.link","key":"pat2"}`, chromeUA+" track-p2", nil)
		p, _ := m["partner"].(map[string]any)
		_, hasGroup := p["groupId"]
		_, hasTenant := p["tenantId"]
		if p["image"] != img || hasGroup || hasTenant {
			t.Fatalf("partner %v", p)
		}
	})
}

// clientTrack posts to a client-side conversion endpoint (§1.5).
func (e *redirectEnv) clientTrack(path, body, auth string, header map[string]string) (int, http.Header, map[string]any) {
	e.t.Helper()
	h := map[string]string{}
	if auth != "" {
		h["Authorization"] = auth
	}
	for k, v := range header {
		h[k] = v
	}
	return e.post(path, body, h)
}

// TestClientConversions: /track/lead/client and /track/sale/client take the
// workspace's publishable key, in the spec's gate order, with CORS.
func TestClientConversions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newRedirectEnv(t, db, map[string]string{})
		ctx := context.Background()
		e.ws.Plan = models.PlanBusiness
		if err := db.UpdateWorkspace(ctx, e.ws); err != nil {
			t.Fatal(err)
		}
		pk, err := db.RotatePublishableKey(ctx, e.ws)
		if err != nil || !strings.HasPrefix(pk, "dub_pk_") {
			t.Fatalf("%q %v", pk, err)
		}
		l := e.link(models.Link{Key: "signup", URL: "https://acme.example/signup"})
		_, _, m := e.trackClick(`{"domain":"acme.link","key":"signup"}`, chromeUA+" conv", nil)
		clickID, _ := m["clickId"].(string)
		e.flush()
		lead := `{"clickId":"` + clickID + `","eventName":"Sign up","customerExternalId":"user_42"}`

		for _, tc := range []struct {
			name, auth string
			status     int
			msg        string
		}{
			{"missing key", "", 401, "Missing publishable key."},
			{"malformed", "Bearer dub_live_x", 400, "Invalid or missing publishable key."},
			{"no Bearer", pk, 400, "Invalid or missing publishable key."},
			{"unknown", "Bearer dub_pk_unknown", 401, "Invalid publishable key."},
		} {
			status, h, m := e.clientTrack("/track/lead/client", lead, tc.auth, nil)
			msg, _ := m["error"].(map[string]any)["message"].(string)
			if status != tc.status || msg != tc.msg || h.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("%s: %d %q, want %d %q", tc.name, status, msg, tc.status, tc.msg)
			}
		}

		status, h, m := e.clientTrack("/track/lead/client", lead, "Bearer "+pk, nil)
		if status != 200 || m["customer"].(map[string]any)["externalId"] != "user_42" || h.Get("X-RateLimit-Limit") != "600" {
			t.Fatalf("lead: %d %v (limit %q)", status, m, h.Get("X-RateLimit-Limit"))
		}
		if got, err := db.LinkByID(ctx, e.ws.ID, l.ID); err != nil || got.Leads != 1 {
			t.Fatalf("link leads %v %v", got, err)
		}
		sale := `{"customerExternalId":"user_42","amount":1999,"paymentProcessor":"stripe","eventName":"Purchase"}`
		if status, _, m := e.clientTrack("/track/sale/client", sale, "Bearer "+pk, nil); status != 200 || m["sale"].(map[string]any)["amount"] != float64(1999) {
			t.Fatalf("sale: %d %v", status, m)
		}

		// Allowed hostnames apply; a rotated key retires the old one; the plan gate.
		if err := e.ws.SetEmbedHostnames([]string{"acme.example"}); err != nil {
			t.Fatal(err)
		}
		if err := db.UpdateWorkspace(ctx, e.ws); err != nil {
			t.Fatal(err)
		}
		if status, _, _ := e.clientTrack("/track/lead/client", lead, "Bearer "+pk, map[string]string{"Origin": "https://evil.example"}); status != 403 {
			t.Errorf("foreign origin: %d", status)
		}
		if status, _, _ := e.clientTrack("/track/lead/client", lead, "Bearer "+pk, map[string]string{"Origin": "https://acme.example"}); status != 200 {
			t.Errorf("allowed origin: %d", status)
		}
		pk2, _ := db.RotatePublishableKey(ctx, e.ws)
		if status, _, _ := e.clientTrack("/track/lead/client", lead, "Bearer "+pk, map[string]string{"Origin": "https://acme.example"}); status != 401 {
			t.Errorf("old key after rotation: %d", status)
		}
		e.ws.Plan = models.PlanPro
		if err := db.UpdateWorkspace(ctx, e.ws); err != nil {
			t.Fatal(err)
		}
		if status, _, _ := e.clientTrack("/track/lead/client", lead, "Bearer "+pk2, map[string]string{"Origin": "https://acme.example"}); status != 403 {
			t.Errorf("pro plan: %d", status)
		}
	})
}
