package handlers_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// clicksAt stores n clicks on a new link of ws at t, through the batch
// writer and its aggregate hook (what the pipeline does).
func clicksAt(t *testing.T, db *models.DB, ws *models.Workspace, n int, at time.Time) {
	t.Helper()
	ctx := context.Background()
	l := &models.Link{WorkspaceID: ws.ID, Domain: "acme.link", Key: "k" + strings.ToLower(ids.Nano(8)), URL: "https://example.com/"}
	if err := db.CreateLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	batch := make([]models.Click, n)
	for i := range batch {
		batch[i] = models.Click{ClickID: ids.Click(), Timestamp: at.Add(time.Duration(i) * time.Second), WorkspaceID: ws.ID, LinkID: l.ID,
			Domain: l.Domain, Key: l.Key, URL: l.URL, Country: "US", Device: "Desktop", Trigger: "link", Referer: "(direct)", RefererURL: "(direct)"}
	}
	// In the pipeline's batch sizes: one 50,000-click transaction can outlast
	// the transaction deadline (6x RELINK_DB_TIMEOUT) under -race.
	for start := 0; start < len(batch); start += 5000 {
		if _, err := db.RecordClicks(ctx, batch[start:min(start+5000, len(batch))], models.AggregateClicks); err != nil {
			t.Fatal(err)
		}
	}
}

// With RELINK_USAGE_LIMITS=plan, a workspace over its plan's monthly events
// reads no analytics (403 forbidden, upstream's message); last month's
// events do not count; other workspaces and the default (off) are not
// affected.
func TestEventUsageLimit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		// A clock that moves a second per reading keeps the per-second
		// analytics rate limit out of the way, inside November.
		var ticks atomic.Int64
		now := func() time.Time {
			return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).Add(time.Duration(ticks.Add(1)) * time.Second)
		}
		on := newServer(t, db, env{vars: map[string]string{"RELINK_USAGE_LIMITS": "plan"}, now: now, limiter: ratelimit.NewMemory(now)})
		off := newServer(t, db, env{now: now, limiter: ratelimit.NewMemory(now)})
		full, fullKey := seed(t, db, "full", models.PlanPro)
		old, oldKey := seed(t, db, "old", models.PlanPro)

		clicksAt(t, db, full, 50_000, time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC))
		clicksAt(t, db, old, 50_001, time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)) // October
		get := func(s *testServer, key string) resp {
			return s.do(t, req{Host: apiHost, Path: "/analytics?event=clicks&groupBy=count&interval=all", Key: key})
		}
		if r := get(on, fullKey); r.Status != 200 {
			t.Fatalf("at exactly the limit (50000 of 50000): status %d %s", r.Status, r.Body)
		}
		clicksAt(t, db, full, 1, time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
		r := get(on, fullKey)
		wantError(t, r, 403, "forbidden", "You've reached your monthly limit of 50000 clicks on the Pro plan. Ask your Relink administrator to move the workspace to a higher plan for higher limits.")
		if r := on.do(t, req{Host: apiHost, Path: "/analytics/clicks", Key: fullKey}); r.Status != 403 {
			t.Errorf("legacy analytics path over the limit: status %d, want 403", r.Status)
		}
		if r := get(on, oldKey); r.Status != 200 {
			t.Errorf("last month's 50001 clicks counted against this month: status %d %s", r.Status, r.Body)
		}
		if r := get(off, fullKey); r.Status != 200 {
			t.Errorf("limits off (the default) still gated: status %d %s", r.Status, r.Body)
		}
		// The plan gates come first: /events needs business, and a free
		// workspace gets the paid-plan message, whatever its usage.
		wantError(t, on.do(t, req{Host: apiHost, Path: "/events", Key: fullKey}), 403, "forbidden", "")
		free, freeKey := seed(t, db, "free", models.PlanFree)
		clicksAt(t, db, free, 1001, time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC))
		wantError(t, get(on, freeKey), 403, "forbidden", "Analytics API is only available on paid plans.")
	})
}

// POST /links stops at the plan's monthly links; the bulk endpoint also
// refuses a body that would go over, naming how many are left.
func TestLinksUsageLimit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		on := newServer(t, db, env{vars: map[string]string{"RELINK_USAGE_LIMITS": "plan"}})
		ws, key := seed(t, db, "acme", models.PlanFree)
		_, otherKey := seed(t, db, "other", models.PlanFree)
		for i := range 20 {
			if err := db.CreateLink(ctx, &models.Link{WorkspaceID: ws.ID, Domain: "acme.link", Key: fmt.Sprintf("l%d", i), URL: "https://example.com/"}); err != nil {
				t.Fatal(err)
			}
		}
		bulk := func(n int) string {
			items := make([]string, n)
			for i := range items {
				items[i] = fmt.Sprintf(`{"url":"https://example.com/%d"}`, i)
			}
			return "[" + strings.Join(items, ",") + "]"
		}
		wantError(t, on.do(t, req{Method: "POST", Host: apiHost, Path: "/links/bulk", Key: key, Body: bulk(6)}), 403, "forbidden",
			"You can create 5 more links this month on the Free plan, and this request has 6. Ask your Relink administrator to move the workspace to a higher plan for higher limits.")
		if r := on.do(t, req{Method: "POST", Host: apiHost, Path: "/links/bulk", Key: key, Body: bulk(4)}); r.Status != 200 {
			t.Fatalf("bulk of 4 with 5 left: status %d %s", r.Status, r.Body)
		}
		if r := on.do(t, req{Method: "POST", Host: apiHost, Path: "/links", Key: key, Body: `{"url":"https://example.com/25th"}`}); r.Status != 200 {
			t.Fatalf("the 25th link: status %d %s", r.Status, r.Body)
		}
		wantError(t, on.do(t, req{Method: "POST", Host: apiHost, Path: "/links", Key: key, Body: `{"url":"https://example.com/26th"}`}), 403, "forbidden",
			"You've reached your monthly limit of 25 links on the Free plan. Ask your Relink administrator to move the workspace to a higher plan for higher limits.")
		if n, _ := db.LinksUsage(ctx, ws.ID, models.UsagePeriodStart(time.Now())); n != 25 {
			t.Errorf("links usage %d after the refusals, want 25 (nothing created)", n)
		}
		if r := on.do(t, req{Method: "POST", Host: apiHost, Path: "/links", Key: otherKey, Body: `{"url":"https://example.com/"}`}); r.Status != 200 {
			t.Errorf("another workspace was limited by acme's usage: status %d %s", r.Status, r.Body)
		}
	})
}
