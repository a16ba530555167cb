package demo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/demo"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestBulkLoaderMatchesRecordClicks: loading a batch with BulkLoader (then
// folding the inserted clicks and adding aggregates and link counters once)
// leaves the same clicks, aggregates and link counters as RecordClicks with
// the aggregates hook, on a workspace that already has clicks, with click
// ids already stored and repeated within the batch.
// bulkLoad writes batch with the bulk loader, folds the inserted clicks in
// two parts (taking the finished days in between), adds the aggregates and
// the link counters, and returns how many clicks went in.
func bulkLoad(t *testing.T, db *models.DB, batch []models.Click) int {
	t.Helper()
	ctx := context.Background()
	l, err := demo.NewBulkLoader(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	inserted, err := l.Clicks(ctx, batch, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := models.NewAggregateFolder()
	counts := map[string]*demo.LinkClicks{}
	// Fold in two parts, taking finished days in between.
	f.AddClicks(inserted[:100])
	first := f.TakeBefore(inserted[99].Timestamp)
	if len(first) == 0 {
		t.Fatal("no finished day after the first part")
	}
	f.AddClicks(inserted[100:])
	if err := l.Aggregates(ctx, append(first, f.TakeAll()...)); err != nil {
		t.Fatal(err)
	}
	for _, c := range inserted {
		if counts[c.LinkID] == nil {
			counts[c.LinkID] = &demo.LinkClicks{}
		}
		counts[c.LinkID].AddLink(c.Timestamp)
	}
	if err := l.AddLinkClicks(ctx, counts); err != nil {
		t.Fatal(err)
	}
	return len(inserted)
}

func TestBulkLoaderMatchesRecordClicks(t *testing.T) {
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			t0 := time.Date(2026, 3, 1, 22, 30, 0, 0, time.UTC)
			mk := func(wsID string, links []string, i int, id string) models.Click {
				l := links[i%len(links)]
				return models.Click{ClickID: id, Timestamp: t0.Add(time.Duration(i) * 17 * time.Minute), WorkspaceID: wsID, LinkID: l,
					Domain: "acme.link", Key: l, URL: "https://example.com/" + l, Continent: "EU", Country: []string{"DE", "FR", "US"}[i%3],
					Region: "R" + fmt.Sprint(i%2), City: "C" + fmt.Sprint(i%4), Device: "Desktop", Browser: "Chrome", OS: "Linux",
					Trigger: "link", Referer: "(direct)", RefererURL: "(direct)", UA: "ua", Latitude: "1", Longitude: "2"}
			}
			type state struct {
				clicks   []string
				aggs     []models.EventAggregate
				counters []string
			}
			run := func(bulk bool) (state, int) {
				db := testdb.Open(t, dialect)
				w, err := db.CreateWorkspace(ctx, "acme", "acme", models.PlanPro)
				if err != nil {
					t.Fatal(err)
				}
				links := []string{"link_a", "link_b", "link_c"}
				for _, id := range links {
					if err := db.CreateLink(ctx, &models.Link{ID: id, WorkspaceID: w.ID, Domain: "acme.link", Key: id, URL: "https://example.com/" + id}); err != nil {
						t.Fatal(err)
					}
				}
				var existing, batch []models.Click
				for i := range 40 {
					existing = append(existing, mk(w.ID, links, i, fmt.Sprintf("old%03d", i)))
				}
				if _, err := db.RecordClicks(ctx, existing, models.AggregateClicks); err != nil {
					t.Fatal(err)
				}
				for i := range 300 {
					batch = append(batch, mk(w.ID, links, i+20, fmt.Sprintf("new%03d", i)))
				}
				batch[5].ClickID, batch[9].ClickID = "old001", "old039" // stored already
				batch[7].ClickID = batch[6].ClickID                     // repeated: the first one counts
				batch[7].Country = "JP"
				var n int
				if bulk {
					n = bulkLoad(t, db, batch)
				} else {
					var err error
					if n, err = db.RecordClicks(ctx, batch, models.AggregateClicks); err != nil {
						t.Fatal(err)
					}
				}
				var s state
				var cs []models.Click
				if err := db.Order("click_id").Find(&cs).Error; err != nil {
					t.Fatal(err)
				}
				for _, c := range cs {
					s.clicks = append(s.clicks, c.ClickID+" "+c.Country+" "+c.Timestamp.UTC().Format(time.RFC3339Nano))
				}
				// Revision rows count writes, not events: the bulk loader writes none.
				if err := db.Where("dim <> ?", models.DimRevision).Order("event, dim, hour, value").Find(&s.aggs).Error; err != nil {
					t.Fatal(err)
				}
				for i := range s.aggs {
					s.aggs[i].WorkspaceID = ""
					s.aggs[i].Hour = s.aggs[i].Hour.UTC()
				}
				var ls []models.Link
				if err := db.Order("id").Find(&ls).Error; err != nil {
					t.Fatal(err)
				}
				for _, l := range ls {
					s.counters = append(s.counters, fmt.Sprintf("%s %d %v", l.ID, l.Clicks, l.LastClicked.UTC()))
				}
				return s, n
			}
			want, wn := run(false)
			got, gn := run(true)
			if wn != 297 || gn != wn {
				t.Fatalf("inserted: RecordClicks %d, bulk %d, want 297", wn, gn)
			}
			if fmt.Sprint(got.clicks) != fmt.Sprint(want.clicks) {
				t.Fatalf("clicks differ:\nbulk %v\nwant %v", got.clicks, want.clicks)
			}
			if fmt.Sprint(got.counters) != fmt.Sprint(want.counters) {
				t.Fatalf("link counters: bulk %v, RecordClicks %v", got.counters, want.counters)
			}
			if len(got.aggs) != len(want.aggs) || len(want.aggs) < 100 {
				t.Fatalf("%d aggregate rows, RecordClicks %d", len(got.aggs), len(want.aggs))
			}
			for i := range want.aggs {
				if got.aggs[i] != want.aggs[i] {
					t.Fatalf("aggregate row %d: bulk %+v, RecordClicks %+v", i, got.aggs[i], want.aggs[i])
				}
			}
		})
	}
}

// TestBulkSQLiteNotBoundByDBTimeout: on SQLite a bulk transaction (here
// Analyze) has the bulk loader's own bound, not TxTimeoutFactor ×
// RELINK_DB_TIMEOUT, which ANALYZE of a 10M-click database outlasted on a
// busy machine. With a database timeout far too short for any
// transaction, Analyze still completes.
func TestBulkSQLiteNotBoundByDBTimeout(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	short := *db
	short.Timeout = time.Nanosecond
	ctx := context.Background()
	if err := short.Tx(ctx, func(*models.DB) error { return nil }); err == nil {
		t.Fatal("a plain transaction under a 1 ns database timeout succeeded: the test shows nothing")
	}
	l, err := demo.NewBulkLoader(ctx, &short)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Analyze(ctx); err != nil {
		t.Fatalf("bulk analyze under a 1 ns database timeout: %v", err)
	}
}
