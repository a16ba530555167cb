package chstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/privacy"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestRetentionInClickHouse: the retention job trims a workspace's raw
// clicks in the event store as in SQL (the attribution table's slim rows)
// — the old ones only, not another workspace's — while the rollups keep their totals; a second round while
// nothing is left (or the delete is still running) schedules no mutation.
func TestRetentionInClickHouse(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		testdb.Each(t, func(t *testing.T, db *models.DB) {
			ctx := context.Background()
			now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
			store := &chstore.ClickStore{SQL: db, CH: c}
			mk := func(slug string) string {
				ws, err := db.CreateWorkspace(ctx, slug, slug+"-"+ids.Nano(4), models.PlanPro)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range [][]models.Click{clicks(3, ws.ID, now.AddDate(0, 0, -200)), clicks(2, ws.ID, now.AddDate(0, 0, -1))} {
					if _, err := store.RecordClicks(ctx, b); err != nil {
						t.Fatal(err)
					}
				}
				return ws.ID
			}
			acme, other := mk("acme"), mk("other")
			raw := func(ws string) string {
				return count(t, c, "SELECT count() FROM clicks WHERE workspace_id = "+chstore.Quote(ws))
			}
			rolled := func(ws string) string {
				return count(t, c, "SELECT sum(count) FROM event_aggregates WHERE event = 'click' AND dim = 'total' AND workspace_id = "+chstore.Quote(ws))
			}
			if err := db.SetPrivacy(ctx, acme, false, 150); err != nil {
				t.Fatal(err)
			}
			r := &privacy.Retention{DB: db, Events: c, Now: func() time.Time { return now }, Logger: quiet}
			if _, err := r.Run(ctx); err != nil {
				t.Fatal(err)
			}
			// The SQL side's slim rows (the attribution table) go at once.
			slim := func(ws string) int64 {
				var n int64
				db.Raw("SELECT COUNT(*) FROM attribution_clicks WHERE workspace_id = ?", ws).Scan(&n)
				return n
			}
			if a, o := slim(acme), slim(other); a != 2 || o != 5 {
				t.Errorf("attribution table after retention: acme %d rows (want 2), other %d (want 5)", a, o)
			}
			// The mutation runs in the background.
			for deadline := time.Now().Add(30 * time.Second); raw(acme) != "2" && time.Now().Before(deadline); {
				time.Sleep(100 * time.Millisecond)
			}
			if got := raw(acme); got != "2" {
				t.Fatalf("acme holds %s raw clicks in ClickHouse after retention, want 2", got)
			}
			if got := rolled(acme); got != "5" {
				t.Errorf("acme's rollups count %s clicks, want 5 (unchanged)", got)
			}
			if got := raw(other); got != "5" {
				t.Errorf("the other workspace holds %s raw clicks, want 5", got)
			}
			mutations := func() string {
				return count(t, c, "SELECT count() FROM system.mutations WHERE database = currentDatabase() AND table = 'clicks'")
			}
			before := mutations()
			if n, err := c.DeleteClicksBefore(ctx, acme, now.AddDate(0, 0, -150)); err != nil || n != 0 {
				t.Errorf("a second round matched %d, %v; want 0", n, err)
			}
			if after := mutations(); after != before {
				t.Errorf("a round with nothing to delete scheduled a mutation (%s → %s)", before, after)
			}
		})
	})
}
