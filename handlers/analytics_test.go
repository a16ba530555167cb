package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions/convtest"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// analyticsEnv is a server over one database with workspaces holding
// events written through the real pipeline and conversion service.
type analyticsEnv struct {
	t     *testing.T
	db    *models.DB
	srv   *handlers.Server
	clock time.Time
	keys  map[string]string
	ws    map[string]*models.Workspace
	links map[string]*models.Link
	urls  map[string]string // a workspace's link destination ("" the default)
}

func newAnalyticsEnv(t *testing.T, db *models.DB) *analyticsEnv {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		if k == "RELINK_DATABASE_URL" {
			return "sqlite:unused.db"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &analyticsEnv{t: t, db: db, clock: time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC),
		keys: map[string]string{}, ws: map[string]*models.Workspace{}, links: map[string]*models.Link{}, urls: map[string]string{}}
	now := func() time.Time { return e.clock }
	e.srv = apptest.New(t, cfg, app.Options{DB: db, Limiter: ratelimit.NewMemory(now), Now: now})
	return e
}

// workspace creates a workspace with one link and, when events is set, a
// click, a lead and a sale on it (a day before the clock).
func (e *analyticsEnv) workspace(slug string, plan models.Plan, events bool) {
	t := e.t
	t.Helper()
	ctx := context.Background()
	c, err := e.db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: slug, Slug: slug, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	e.keys[slug], e.ws[slug] = c.APIKey, c.Workspace
	dest := e.urls[slug]
	if dest == "" {
		dest = "https://" + slug + ".example/?utm_source=x"
	}
	l := &models.Link{WorkspaceID: c.Workspace.ID, Domain: slug + ".link", Key: "go", URL: dest,
		TrackConversion: true, CreatedAt: e.clock, UpdatedAt: e.clock}
	if err := e.db.CreateLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	e.links[slug] = l
	if !events {
		return
	}
	at := e.clock.Add(-24 * time.Hour)
	pipe := ingest.New(e.db, ingest.Options{DedupWindow: -1, Hooks: []models.ClickHook{models.AggregateClicks}})
	clickID := ids.Nano(16)
	pipe.Enqueue(ingest.Hit{ClickID: clickID, LinkID: l.ID, WorkspaceID: l.WorkspaceID, Domain: l.Domain, Key: l.Key, URL: l.URL,
		Time: at, IP: "198.51.100.4", UA: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
		Referer: "https://www.google.com/", QR: true, Geo: geo.Hint{Country: "US", Region: "CA", City: "San Francisco"}})
	if err := pipe.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	svc := convtest.New(t, e.db, func() time.Time { return at.Add(time.Minute) })
	if _, err := svc.TrackLead(ctx, c.Workspace, conversions.LeadInput{ClickID: clickID, EventName: "Sign up", CustomerExternalID: "u_" + slug,
		Mode: "wait", EventQuantity: 1, Metadata: map[string]any{"plan": "pro"}}); err != nil {
		t.Fatal(err)
	}
	inv := "inv_" + slug
	if _, err := svc.TrackSale(ctx, c.Workspace, conversions.SaleInput{CustomerExternalID: "u_" + slug, Amount: 4200, Currency: "usd",
		EventName: "Purchase", PaymentProcessor: "stripe", InvoiceID: &inv}); err != nil {
		t.Fatal(err)
	}
}

// get sends an API request with slug's key; the clock moves a second so
// the per-second analytics rate limit never interferes.
func (e *analyticsEnv) get(slug, path string) (int, []byte) {
	e.t.Helper()
	e.clock = e.clock.Add(time.Second)
	req := httptest.NewRequest("GET", path, nil)
	req.Host = "localhost:8081"
	req.Header.Set("Authorization", "Bearer "+e.keys[slug])
	res, err := e.srv.Root.Test(req, -1)
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body
}

func analyticsErrorOf(t *testing.T, body []byte) (string, string, string) {
	t.Helper()
	var raw map[string]map[string]string
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	return raw["error"]["code"], raw["error"]["message"], raw["error"]["doc_url"]
}

func TestAnalyticsGatesAndValidation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newAnalyticsEnv(t, db)
		e.workspace("freews", models.PlanFree, false)
		e.workspace("prows", models.PlanPro, false)
		e.workspace("bizws", models.PlanBusiness, false)
		// The pro workspace is two years old: interval=all exceeds its year.
		if err := db.Exec("UPDATE workspaces SET created_at = ? WHERE id = ?", e.clock.AddDate(-2, 0, 0), e.ws["prows"].ID).Error; err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name, slug, path string
			status           int
			code, msg        string
		}{
			{"free analytics", "freews", "/analytics", 403, "forbidden", "Analytics API is only available on paid plans."},
			{"pro events", "prows", "/events", 403, "forbidden", "Unauthorized: Need higher plan."},
			{"pro all-time", "prows", "/analytics?interval=all", 403, "forbidden", "You can only get analytics for up to 1 year on a Pro plan. Upgrade to Business to get analytics for longer periods."},
			{"bad event", "prows", "/analytics?event=foo", 422, "unprocessable_entity", "invalid_value: event: Invalid event type. Valid event types are: clicks, leads, sales"},
			{"bad groupBy", "bizws", "/analytics?groupBy=nope", 422, "unprocessable_entity", "invalid_value: groupBy: Invalid type value. Valid values are: count, timeseries, continents, regions, countries, cities, devices, browsers, os, triggers, referers, referer_urls, top_folders, top_link_tags, top_domains, top_links, top_urls, top_base_urls, top_partners, top_groups, top_partner_tags, utm_sources, utm_mediums, utm_campaigns, utm_terms, utm_contents."},
			{"composite events", "bizws", "/events?event=composite", 422, "unprocessable_entity", `invalid_value: event: Invalid option: expected one of "clicks"|"leads"|"sales"`},
			{"events limit", "bizws", "/events?limit=1001", 422, "unprocessable_entity", "too_big: limit: Max page size is 1000."},
			{"early start", "bizws", "/analytics?start=2020-01-01", 422, "unprocessable_entity", "custom: start: The start date cannot be earlier than September 22, 2022."},
			{"far start", "bizws", "/analytics?start=9999-12-31&groupBy=timeseries", 422, "unprocessable_entity", "custom: start: The start date cannot be later than December 31, 2099."},
			{"unknown link", "bizws", "/analytics?domain=bizws.link&key=nope", 404, "not_found", "Link not found."},
			{"externalId without prefix", "bizws", "/analytics?externalId=abc", 400, "bad_request", "Invalid externalId. Did you forget to prefix it with `ext_`?"},
			{"other workspace's link", "bizws", "/analytics?domain=prows.link&key=go", 401, "unauthorized", "Link does not belong to workspace " + e.ws["bizws"].PublicID() + "."},
			{"unknown folder", "bizws", "/analytics?folderId=fold_x", 404, "not_found", "Folder not found."},
			{"program of nobody", "bizws", "/analytics?programId=prog_x", 403, "forbidden", "Program prog_x does not belong to workspace " + e.ws["bizws"].PublicID() + "."},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, body := e.get(tt.slug, tt.path)
				if status != tt.status {
					t.Fatalf("status %d, want %d: %s", status, tt.status, body)
				}
				code, msg, doc := analyticsErrorOf(t, body)
				if code != tt.code || msg != tt.msg {
					t.Fatalf("got %s %q, want %s %q", code, msg, tt.code, tt.msg)
				}
				if doc == "" {
					t.Fatal("doc_url missing")
				}
			})
		}
	})
}

// checkAlphaEvent checks /events?event=ev of workspace alpha: one event
// with every key the SDK requires, its click, link and sale.
func checkAlphaEvent(t *testing.T, e *analyticsEnv, ev string) {
	status, body := e.get("alpha", "/events?event="+ev)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	var list []map[string]any
	if err := json.Unmarshal(body, &list); err != nil || len(list) != 1 {
		t.Fatalf("%s: %v", body, err)
	}
	got := list[0]
	required := []string{"event", "timestamp", "click", "link", "click_id", "link_id", "domain", "key", "url",
		"continent", "country", "city", "device", "browser", "os", "qr", "ip"}
	if ev != "clicks" {
		required = append(required, "eventId", "eventName", "customer")
	}
	if ev == "sales" {
		required = append(required, "sale", "saleAmount", "invoice_id", "payment_processor")
	}
	for _, k := range required {
		if _, ok := got[k]; !ok {
			t.Errorf("missing %s", k)
		}
	}
	if got["event"] != strings.TrimSuffix(ev, "s") || got["qr"] != float64(1) || got["click"].(map[string]any)["qr"] != true {
		t.Errorf("event %v qr %v click.qr %v", got["event"], got["qr"], got["click"].(map[string]any)["qr"])
	}
	click := got["click"].(map[string]any)
	if click["region"] != "US-CA" || click["referer"] != "google.com" || click["device"] != "Mobile" {
		t.Errorf("click %v", click)
	}
	link := got["link"].(map[string]any)
	for _, k := range []string{"testStartedAt", "testCompletedAt", "lastClicked", "expiresAt", "disabledAt", "tagId", "webhookIds", "qrCode", "projectId"} {
		if _, ok := link[k]; !ok {
			t.Errorf("link.%s missing", k)
		}
	}
	if link["workspaceId"] != e.ws["alpha"].PublicID() || link["id"] != e.links["alpha"].ID {
		t.Errorf("link %v", link)
	}
	if ev == "sales" {
		sale := got["sale"].(map[string]any)
		if sale["amount"] != float64(4200) || sale["currency"] != "usd" || sale["invoiceId"] != "inv_alpha" || sale["paymentProcessor"] != "stripe" {
			t.Errorf("sale %v", sale)
		}
	}
	if md, ok := got["metadata"].(map[string]any); ev == "leads" && (!ok || md["plan"] != "pro") {
		t.Errorf("metadata %v", got["metadata"])
	}
	if _, ok := got["metadata"]; ev == "sales" && ok {
		t.Errorf("a sale without metadata must omit the key: %v", got["metadata"])
	}
}

func TestAnalyticsIsolationAndEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newAnalyticsEnv(t, db)
		e.workspace("alpha", models.PlanEnterprise, true)
		e.workspace("beta", models.PlanEnterprise, true)
		e.workspace("empty", models.PlanEnterprise, false)

		t.Run("counts are per workspace", func(t *testing.T) {
			for slug, want := range map[string]string{
				"alpha": `{"clicks":1,"leads":1,"sales":1,"saleAmount":4200}`,
				"empty": `{"clicks":0,"leads":0,"sales":0,"saleAmount":0}`,
			} {
				status, body := e.get(slug, "/analytics?event=composite")
				if status != 200 || string(body) != want {
					t.Fatalf("%s: %d %s, want %s", slug, status, body, want)
				}
			}
		})
		t.Run("another workspace's linkId counts nothing", func(t *testing.T) {
			status, body := e.get("empty", "/analytics?event=composite&linkId="+e.links["alpha"].ID)
			if status != 200 || string(body) != `{"clicks":0,"leads":0,"sales":0,"saleAmount":0}` {
				t.Fatalf("%d %s", status, body)
			}
			_, body = e.get("empty", "/analytics?event=composite&groupBy=top_links&interval=all")
			if string(body) != "[]" {
				t.Fatalf("top_links leaks: %s", body)
			}
			_, body = e.get("empty", "/events?event=sales&interval=all")
			if string(body) != "[]" {
				t.Fatalf("events leak: %s", body)
			}
		})
		t.Run("countries composite", func(t *testing.T) {
			_, body := e.get("alpha", "/analytics?event=composite&groupBy=countries")
			want := `[{"city":"*","clicks":1,"country":"US","leads":1,"region":"*","saleAmount":4200,"sales":1}]`
			if string(body) != want {
				t.Fatalf("%s", body)
			}
		})
		for _, ev := range []string{"clicks", "leads", "sales"} {
			t.Run("events "+ev, func(t *testing.T) { checkAlphaEvent(t, e, ev) })
		}
		t.Run("legacy paths", func(t *testing.T) {
			for path, want := range map[string]string{
				"/analytics/clicks":            "1",
				"/analytics/leads/count":       "1",
				"/analytics/sales/clicks":      "1",
				"/analytics/count":             "1",
				"/analytics/composite/country": `[{"city":"*","clicks":1,"country":"US","leads":1,"region":"*","saleAmount":4200,"sales":1}]`,
				"/analytics/composite":         `{"clicks":1,"leads":1,"sales":1,"saleAmount":4200}`,
				"/analytics/clicks/device":     `[{"clicks":1,"device":"Mobile","leads":0,"saleAmount":0,"sales":0}]`,
			} {
				status, body := e.get("alpha", path)
				if status != 200 || string(body) != want {
					t.Errorf("%s: %d %s, want %s", path, status, body, want)
				}
			}
			if status, _ := e.get("alpha", "/analytics/nope"); status != 422 {
				t.Errorf("unknown legacy name: %d", status)
			}
		})
		t.Run("metadata query", func(t *testing.T) {
			for q, want := range map[string]string{"pro": `"leads":1`, "free": `"leads":0`} {
				_, body := e.get("alpha", "/analytics?event=leads&query=metadata%5B%27plan%27%5D%3A"+q)
				if !strings.Contains(string(body), want) {
					t.Fatalf("%s: %s", q, body)
				}
			}
		})
	})
}

// TestURLFiltersAndNosniff: the refererUrl and url filters (compared cut at
// the first '?') answer on every analytics route that takes them, over
// HTTP, and every answer (JSON, CSV, zip, errors) carries nosniff.
func TestURLFiltersAndNosniff(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newAnalyticsEnv(t, db)
		e.workspace("alpha", models.PlanEnterprise, true)
		send := func(path string) (int, string) {
			t.Helper()
			e.clock = e.clock.Add(time.Second)
			req := httptest.NewRequest("GET", path, nil)
			req.Host = "localhost:8081"
			req.Header.Set("Authorization", "Bearer "+e.keys["alpha"])
			res, err := e.srv.Root.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			if h := res.Header.Get("X-Content-Type-Options"); h != "nosniff" {
				t.Errorf("%s: X-Content-Type-Options %q", path, h)
			}
			return res.StatusCode, string(body)
		}
		ref, dest := "refererUrl=https%3A%2F%2Fwww.google.com%2F", "url=https%3A%2F%2Falpha.example%2F"
		for q, want := range map[string]string{
			ref:              `{"clicks":1,"leads":1,"sales":1,"saleAmount":4200}`,
			dest:             `{"clicks":1,"leads":1,"sales":1,"saleAmount":4200}`,
			ref + "%3Fq%3D1": `{"clicks":0,"leads":0,"sales":0,"saleAmount":0}`,
			"url=https%3A%2F%2Falpha.example%2F%3Futm_source%3Dx": `{"clicks":0,"leads":0,"sales":0,"saleAmount":0}`,
			"refererUrl=-https%3A%2F%2Fwww.google.com%2F":         `{"clicks":0,"leads":0,"sales":0,"saleAmount":0}`,
		} {
			if status, body := send("/analytics?event=composite&" + q); status != 200 || body != want {
				t.Errorf("%s: %d %s, want %s", q, status, body, want)
			}
		}
		for _, path := range []string{"/events?event=clicks&" + ref, "/events?event=sales&" + dest,
			"/analytics?groupBy=referer_urls&" + ref, "/analytics?groupBy=top_base_urls&" + dest} {
			if status, body := send(path); status != 200 || !strings.Contains(body, `"clicks":1`) && !strings.Contains(body, `"click":{`) {
				t.Errorf("%s: %d %.300s", path, status, body)
			}
		}
		for _, path := range []string{"/analytics/export?" + ref, "/events/export?event=clicks&" + dest, "/analytics?event=nope", "/links/nope"} {
			if status, body := send(path); status >= 500 {
				t.Errorf("%s: %d %.300s", path, status, body)
			}
		}
	})
}
