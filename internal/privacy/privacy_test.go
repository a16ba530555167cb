package privacy_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/privacy"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

const ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"

// Retention deletes the raw clicks of a workspace with a period once they
// are older than it, a chunk at a time, and nothing else: not the recent
// ones, not another workspace's, not the aggregates that analytics count.
func TestRetention(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		p := ingest.New(db, ingest.Options{DedupWindow: -1, Hooks: []models.ClickHook{models.AggregateClicks}})
		mk := func(slug string) (*models.Workspace, *models.Link) {
			ws, err := db.CreateWorkspace(ctx, slug, slug, models.PlanPro)
			if err != nil {
				t.Fatal(err)
			}
			l := &models.Link{WorkspaceID: ws.ID, Domain: slug + ".link", Key: "k", URL: "https://example.com/"}
			if err := db.CreateLink(ctx, l); err != nil {
				t.Fatal(err)
			}
			// 3 clicks 200 days ago, 2 clicks 100 days ago, 1 yesterday.
			for i, age := range []int{200, 200, 200, 100, 100, 1} {
				p.Enqueue(ingest.Hit{ClickID: fmt.Sprintf("%s%012d", slug, i), LinkID: l.ID, WorkspaceID: ws.ID, Domain: l.Domain, Key: "k",
					URL: l.URL, UA: ua, IP: fmt.Sprintf("10.0.0.%d", i), Time: now.AddDate(0, 0, -age)})
			}
			return ws, l
		}
		acme, _ := mk("acme")
		other, _ := mk("other")
		if err := p.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		total := func(ws string) (raw, agg int64) {
			db.Model(&models.Click{}).Where("workspace_id = ?", ws).Count(&raw)
			db.Model(&models.EventAggregate{}).Where("workspace_id = ? AND dim = ? AND event = ?", ws, models.DimTotal, models.AggClick).
				Select("COALESCE(SUM(count), 0)").Scan(&agg)
			return
		}
		aggBefore := func() int64 { _, a := total(acme.ID); return a }()

		r := &privacy.Retention{DB: db, Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if n, err := r.Run(ctx); err != nil || n != 0 {
			t.Fatalf("no policy: deleted %d, %v", n, err)
		}
		if err := db.SetPrivacy(ctx, acme.ID, false, 150); err != nil {
			t.Fatal(err)
		}
		n, err := r.Run(ctx)
		if err != nil || n != 3 {
			t.Fatalf("150 days: deleted %d, %v; want 3", n, err)
		}
		if raw, agg := total(acme.ID); raw != 3 || agg != aggBefore || agg < 6 {
			t.Errorf("acme: %d raw clicks (want 3), aggregate total %d (want %d, unchanged)", raw, agg, aggBefore)
		}
		if raw, _ := total(other.ID); raw != 6 {
			t.Errorf("the other workspace lost clicks: %d left", raw)
		}
		if err := db.SetPrivacy(ctx, acme.ID, false, 90); err != nil {
			t.Fatal(err)
		}
		if n, err := r.Run(ctx); err != nil || n != 2 {
			t.Errorf("90 days: deleted %d, %v; want 2", n, err)
		}
	})
}

// The keep-IP set follows the workspaces' settings after a reload.
func TestKeepingIPs(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ws, err := db.CreateWorkspace(ctx, "Acme", "acme", models.PlanPro)
		if err != nil {
			t.Fatal(err)
		}
		set, err := privacy.KeepingIPs(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if set.Has(ws.ID) {
			t.Fatal("a new workspace keeps IP addresses")
		}
		if err := db.SetPrivacy(ctx, ws.ID, true, 0); err != nil {
			t.Fatal(err)
		}
		set.Invalidate(ws.ID)
		if !set.Has(ws.ID) || set.Has("someone-else") {
			t.Error("the set did not follow the setting")
		}
	})
}
