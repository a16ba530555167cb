package api_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestLeadRightAfterClick: a visitor clicks, lands and signs up at once. The
// click is accepted but still queued in the pipeline (the flush interval is
// an hour here, so it certainly is); tracking the lead must still find it.
func TestLeadRightAfterClick(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		cfg, err := config.Load(func(k string) string {
			return map[string]string{
				"RELINK_DATABASE_URL":         "sqlite:unused.db",
				"RELINK_CLICK_FLUSH_INTERVAL": "1h",
				"RELINK_CLICK_DEDUP_WINDOW":   "0",
			}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		srv := apptest.New(t, cfg, app.Options{DB: db, Limiter: ratelimit.NewMemory(nil)})
		t.Cleanup(func() { _ = srv.Shutdown() })
		ctx := context.Background()
		c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Shop", Slug: "shop", Plan: models.PlanBusiness})
		if err != nil {
			t.Fatal(err)
		}
		call := func(method, host, path, body string, auth bool) (int, []byte, string) {
			t.Helper()
			req := httptest.NewRequest(method, path, strings.NewReader(body))
			req.Host = host
			req.Header.Set("User-Agent", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36")
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if auth {
				req.Header.Set("Authorization", "Bearer "+c.APIKey)
			}
			res, b := roundTrip(t, srv, req)
			return res.StatusCode, b, res.Header.Get("Location")
		}
		st, body, _ := call("POST", linksAPIHost, "/links", `{"url":"https://shop.example/","key":"spring","trackConversion":true}`, true)
		if st != 200 {
			t.Fatalf("create link: %d %s", st, body)
		}
		st, _, loc := call("GET", "localhost:8080", "/spring", "", false)
		if st != 302 {
			t.Fatalf("redirect: %d", st)
		}
		u, err := url.Parse(loc)
		if err != nil || u.Query().Get("dub_id") == "" {
			t.Fatalf("redirect Location %q carries no dub_id", loc)
		}
		clickID := u.Query().Get("dub_id")
		var stored int64
		db.Model(&models.Click{}).Where("click_id = ?", clickID).Count(&stored)
		if stored != 0 {
			t.Fatal("the click was written before the lead; the test would not exercise the queued case")
		}
		st, body, _ = call("POST", linksAPIHost, "/track/lead",
			`{"clickId":"`+clickID+`","eventName":"Sign up","customerExternalId":"u1","mode":"wait"}`, true)
		if st != 200 {
			t.Fatalf("track lead right after the click: %d %s", st, body)
		}
		var lead struct {
			Click struct{ ID string } `json:"click"`
		}
		if err := json.Unmarshal(body, &lead); err != nil || lead.Click.ID != clickID {
			t.Fatalf("lead response %s (err %v), want click %s", body, err, clickID)
		}
		var leads int64
		db.Model(&models.LeadEvent{}).Where("click_id = ?", clickID).Count(&leads)
		if leads != 1 {
			t.Fatalf("%d lead events for the click, want 1", leads)
		}
	})
}
