package demo_test

import (
	"context"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/demo"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestGenerate writes a small demo workspace and checks that every table
// and the analytics engine agree on what was written.
func TestGenerate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Demo", Slug: "demo", Plan: models.PlanEnterprise})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		st, err := demo.Generate(ctx, db, c.Workspace, demo.Options{Links: 50, Clicks: 20000, Leads: 1000, Sales: 300, Days: 30, Partners: 3, Seed: 1, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if st.Links != 50 || st.Clicks != 20000 || st.Leads < 900 || st.Leads > 1000 || st.Sales != 300 {
			t.Fatalf("stats %+v", st)
		}
		var n int64
		db.Raw("SELECT COUNT(*) FROM clicks WHERE workspace_id = ?", c.Workspace.ID).Scan(&n)
		if n != 20000 {
			t.Fatalf("%d clicks stored", n)
		}
		e := analytics.NewEngine(db, func() time.Time { return now })
		q, err := analytics.Parse(map[string][]string{"event": {"composite"}, "interval": {"all"}}, analytics.EndpointAnalytics, now)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Analytics(ctx, c.Workspace, q)
		if err != nil {
			t.Fatal(err)
		}
		got := res.(analytics.Counters)
		if got.Clicks != 20000 || got.Leads != int64(st.Leads) || got.Sales != 300 || got.SaleAmount != st.SaleAmount {
			t.Fatalf("analytics %+v, stats %+v", got, st)
		}
	})
}
