package chstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestBackfill: a backfill stopped after two batches resumes after the
// last batch copied, and ends with every SQL event in ClickHouse once
// (timestamps shared by several rows included).
func TestBackfill(t *testing.T) {
	// The cursor belongs to one SQL store: a ClickHouse database per store.
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		eachCH(t, func(t *testing.T, c *chstore.Client) {
			ctx := context.Background()
			var wsIDs []string
			for range 2 {
				ws, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "bf", Slug: "bf-" + ids.Nano(4), Plan: models.PlanPro})
				if err != nil {
					t.Fatal(err)
				}
				wsIDs = append(wsIDs, ws.Workspace.ID)
			}
			at := time.Date(2026, 10, 1, 8, 0, 0, 123456000, time.UTC)
			var leads []models.LeadEvent
			for i, ws := range wsIDs {
				batch := clicks(40, ws, at)
				for j := range batch {
					batch[j].Timestamp = at.Add(time.Duration(j/4) * time.Second) // four clicks per timestamp
				}
				if _, err := db.RecordClicks(ctx, batch); err != nil {
					t.Fatal(err)
				}
				for j := range 5 + i {
					leads = append(leads, models.LeadEvent{EventID: ids.Nano(16), Timestamp: at.Add(time.Duration(j) * time.Minute), WorkspaceID: ws,
						EventName: "Sign up", CustomerID: "cus", ClickAttrs: models.ClickAttrs{ClickID: batch[j].ClickID, LinkID: "link_x"}})
				}
			}
			if err := db.InsertLeadEvents(ctx, leads); err != nil {
				t.Fatal(err)
			}
			stop := errors.New("stopped")
			cctx, cancel := context.WithCancelCause(ctx)
			batches := 0
			b := &chstore.Backfill{SQL: db, CH: c, Batch: 7, Restart: true, Progress: func(p chstore.BackfillProgress) {
				if p.Done > 0 {
					batches++
				}
				if batches == 2 {
					cancel(stop)
				}
			}}
			if err := b.Run(cctx); err == nil {
				t.Fatal("the stopped backfill reported success")
			}
			var resumedAt int64 = -1
			b = &chstore.Backfill{SQL: db, CH: c, Batch: 7, Progress: func(p chstore.BackfillProgress) {
				if resumedAt < 0 && p.Table == "clicks" {
					resumedAt = p.Done
				}
			}}
			if err := b.Run(ctx); err != nil {
				t.Fatal(err)
			}
			if resumedAt != 14 {
				t.Fatalf("the second run started at row %d, want 14 (two batches of 7)", resumedAt)
			}
			for _, ws := range wsIDs {
				w := " WHERE workspace_id = " + chstore.Quote(ws)
				if n := count(t, c, "SELECT count() FROM clicks"+w); n != "40" {
					t.Fatalf("clicks (without FINAL: each row copied once) = %s, want 40", n)
				}
			}
			if n := count(t, c, "SELECT count() FROM lead_events FINAL WHERE workspace_id IN ("+chstore.Quote(wsIDs[0])+","+chstore.Quote(wsIDs[1])+")"); n != "11" {
				t.Fatalf("leads = %s, want 11", n)
			}
		})
	})
}
