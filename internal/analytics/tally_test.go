package analytics_test

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// tallyByHand is the reference for Tally: every raw row of the links in
// the window, bucketed in Go (what partner analytics did before it asked
// the engine).
func tallyByHand(t *testing.T, w *world, q analytics.TallyQuery) map[string]analytics.Counters {
	t.Helper()
	out := map[string]analytics.Counters{}
	for _, table := range []string{"clicks", "lead_events", "sale_events"} {
		var rows []struct {
			LinkID    string
			Timestamp time.Time
			Amount    int64
		}
		amount := "0"
		if table == "sale_events" {
			amount = "amount"
		}
		if err := w.db.Raw("SELECT link_id, timestamp, "+amount+" AS amount FROM "+table+" WHERE workspace_id = ? AND link_id IN ? AND timestamp >= ? AND timestamp < ?",
			w.ws.ID, q.LinkIDs, q.From.UTC(), q.To.UTC()).Scan(&rows).Error; err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			key := ""
			switch q.By {
			case analytics.TallyLink:
				key = r.LinkID
			case analytics.TallyBucket:
				key = analytics.FloorLocal(r.Timestamp, q.Granularity, q.TZ).Format(time.RFC3339)
			}
			c := out[key]
			switch table {
			case "clicks":
				c.Clicks++
			case "lead_events":
				c.Leads++
			default:
				c.Sales++
				c.SaleAmount += r.Amount
			}
			out[key] = c
		}
	}
	return out
}

func tallyMap(ts []analytics.Tally, by analytics.TallyBy) map[string]analytics.Counters {
	out := map[string]analytics.Counters{}
	for _, x := range ts {
		key := ""
		switch by {
		case analytics.TallyLink:
			key = x.LinkID
		case analytics.TallyBucket:
			key = x.Start.Format(time.RFC3339)
		}
		out[key] = x.Counters
	}
	return out
}

// TestTallyEqualsRawRows: for random link sets, windows, zones (half-hour
// offsets and DST changes) and bucket sizes, every Engine's Tally (the SQL
// engine through its aggregates and through the raw tables, and any other
// implementation) equals the raw rows folded by hand.
func TestTallyEqualsRawRows(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		now := time.Date(2026, 3, 30, 9, 37, 12, 0, time.UTC)
		w := newWorld(t, db, "tally", now)
		rng := rand.New(rand.NewPCG(3, 5))
		w.randomEvents(rng, 300, now.AddDate(0, 0, -40), now.Add(time.Hour))
		agg, raw := w.engines()
		impls := w.implementations(agg)
		impls["raw"] = raw
		zones := []string{"UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham"}
		grains := []analytics.Granularity{analytics.Hour, analytics.Day, analytics.Month}
		var all []string
		for _, l := range w.links {
			all = append(all, l.ID)
		}
		nonEmpty := 0
		aggBefore, _ := agg.Reads()
		for i := 0; i < 60; i++ {
			tz, err := time.LoadLocation(zones[rng.IntN(len(zones))])
			if err != nil {
				t.Fatal(err)
			}
			perm := rng.Perm(len(all))
			var links []string
			for _, j := range perm[:1+rng.IntN(len(all))] {
				links = append(links, all[j])
			}
			from := now.AddDate(0, 0, -rng.IntN(45)).Add(-time.Duration(rng.IntN(86400)) * time.Second)
			q := analytics.TallyQuery{LinkIDs: links, From: from, To: from.Add(time.Duration(1+rng.IntN(30*86400)) * time.Second),
				By: analytics.TallyBy(rng.IntN(3)), Granularity: grains[rng.IntN(3)], TZ: tz}
			want := tallyByHand(t, w, q)
			if len(want) > 0 {
				nonEmpty++
			}
			for name, e := range impls {
				got, err := e.Tally(w.ctx, w.ws, q)
				if err != nil {
					t.Fatal(err)
				}
				if g := tallyMap(got, q.By); jsonOf(t, g) != jsonOf(t, want) {
					t.Fatalf("%s: %+v\ngot  %s\nwant %s", name, q, jsonOf(t, g), jsonOf(t, want))
				}
				if q.By == analytics.TallyBucket {
					for _, x := range got {
						if x.Start.Location() != tz {
							t.Fatalf("%s: bucket %v not in %v", name, x.Start, tz)
						}
					}
				}
			}
		}
		if nonEmpty < 30 {
			t.Fatalf("only %d of 60 windows had events", nonEmpty)
		}
		if after, _ := agg.Reads(); after-aggBefore < 60 {
			t.Fatalf("the aggregates answered only %d of 180 counts", after-aggBefore)
		}
		if a, _ := raw.Reads(); a != 0 {
			t.Fatalf("the raw engine read the aggregates %d times", a)
		}
		// No links, or an empty window: no rows.
		for _, q := range []analytics.TallyQuery{{From: now.AddDate(0, 0, -30), To: now}, {LinkIDs: all, From: now, To: now}} {
			got, err := agg.Tally(w.ctx, w.ws, q)
			if err != nil || len(got) != 0 {
				t.Fatalf("%+v: %v %v", q, got, err)
			}
		}
	})
}

// BenchmarkTally compares Tally (grouped in SQL) with loading every raw
// row and bucketing in Go, which is what partner analytics did before:
// 20,000 clicks with leads and sales over 30 days, monthly buckets in a
// zone. BENCH_DIALECT=postgres runs it on RELINK_TEST_DATABASE_URL.
func BenchmarkTally(b *testing.B) {
	dialect := "sqlite"
	if d := os.Getenv("BENCH_DIALECT"); d != "" {
		dialect = d
	}
	db := testdb.Open(b, dialect)
	now := time.Date(2026, 3, 30, 9, 37, 12, 0, time.UTC)
	w := newWorld(b, db, "btally", now)
	w.randomEvents(rand.New(rand.NewPCG(1, 1)), 20000, now.AddDate(0, 0, -30), now)
	agg, _ := w.engines()
	var all []string
	for _, l := range w.links {
		all = append(all, l.ID)
	}
	tz, _ := time.LoadLocation("Europe/Berlin")
	q := analytics.TallyQuery{LinkIDs: all, From: now.AddDate(-1, 0, 0), To: now.Add(time.Hour), By: analytics.TallyBucket, Granularity: analytics.Month, TZ: tz}
	b.Run("engine", func(b *testing.B) {
		for b.Loop() {
			if _, err := agg.Tally(w.ctx, w.ws, q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("all-rows", func(b *testing.B) {
		t := &testing.T{}
		for b.Loop() {
			tallyByHand(t, w, q)
		}
	})
}
