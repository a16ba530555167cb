package models_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// BenchmarkRecordClicks writes batches of clicks the way the pipeline does
// (per dialect and batch size): click ids from ids.Click, 20 links, varied
// countries and referers, and the analytics aggregate hook in the same
// transaction. CPU per click (the process's, not the database server's) is
// the steadier figure on a shared machine.
func BenchmarkRecordClicks(b *testing.B) {
	countries := []string{"US", "DE", "FR", "GB", "IN", "BR", "JP", "CA"}
	referers := []string{"(direct)", "google.com", "twitter.com", "news.ycombinator.com"}
	for _, d := range testdb.Dialects() {
		for _, size := range []int{1000, 5000} {
			b.Run(fmt.Sprintf("%s/batch=%d", d, size), func(b *testing.B) {
				db, w, links := benchLinks(b, d)
				ctx := context.Background()
				n := 0
				start := time.Now()
				cpu0 := cpuTime()
				b.ResetTimer()
				for range b.N {
					batch := make([]models.Click, size)
					for i := range batch {
						n++
						l := links[n%len(links)]
						batch[i] = models.Click{ClickID: ids.Click(), Timestamp: start.Add(time.Duration(n) * time.Millisecond), WorkspaceID: w.ID, LinkID: l.ID,
							Domain: l.Domain, Key: l.Key, URL: l.URL, UA: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
							IP: fmt.Sprintf("10.0.%d.%d", n/256%256, n%256), IdentityHash: fmt.Sprintf("%064x", n),
							Country: countries[n%len(countries)], Device: "Desktop", Browser: "Chrome", OS: "Windows", Trigger: "link",
							Referer: referers[n%len(referers)], RefererURL: "(direct)"}
					}
					if _, err := db.RecordClicks(ctx, batch, models.AggregateClicks); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "clicks/s")
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N*size), "cpu-µs/click")
			})
		}
	}
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSlimClicks is the SQL side of the ClickHouse event store's click
// writes, per dialect: the slim rows (no identity hash, no aggregate hook)
// into clicks, as before migration 01980, against RecordAttributionClicks
// into the attribution table. Random click ids (ids.Click), 20 links,
// batches of 5,000; run with a large -benchtime (e.g. 200x) to see the
// tables grow past the cache. attribution-probe is the attribution table
// with every click in the first hours of a UTC day whose previous day has
// rows: RecordAttributionClicks then looks each id up under the previous
// day (a repeat across midnight), as it does for about 1 click in 12 of a
// steady day.
func BenchmarkSlimClicks(b *testing.B) {
	for _, d := range testdb.Dialects() {
		for _, table := range []string{"clicks", "attribution", "attribution-probe"} {
			b.Run(d+"/"+table, func(b *testing.B) {
				db, w, links := benchLinks(b, d)
				ctx := context.Background()
				record := db.RecordClicks
				if table != "clicks" {
					record = db.RecordAttributionClicks
				}
				const size = 5000
				n := 0
				start := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
				if table == "attribution-probe" {
					start = start.Add(-12 * time.Hour)
					yesterday := []models.Click{{ClickID: ids.Click(), Timestamp: start.Add(-time.Hour), WorkspaceID: w.ID, LinkID: links[0].ID, Domain: "acme.link", Key: "k0"}}
					if _, err := record(ctx, yesterday); err != nil {
						b.Fatal(err)
					}
				}
				cpu0 := cpuTime()
				b.ResetTimer()
				for range b.N {
					batch := make([]models.Click, size)
					for i := range batch {
						n++
						l := links[n%len(links)]
						batch[i] = models.Click{ClickID: ids.Click(), Timestamp: start.Add(time.Duration(n) * 10 * time.Microsecond), WorkspaceID: w.ID, LinkID: l.ID,
							Domain: l.Domain, Key: l.Key, URL: l.URL, UA: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
							IP: fmt.Sprintf("10.0.%d.%d", n/256%256, n%256), Country: "US", Device: "Desktop", Browser: "Chrome", OS: "Windows",
							Trigger: "link", Referer: "google.com", RefererURL: "(direct)"}
					}
					if _, err := record(ctx, batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "clicks/s")
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N*size), "cpu-µs/click")
			})
		}
	}
}

// benchLinks opens a database of dialect d with workspace "acme" and 20
// links on acme.link.
func benchLinks(b *testing.B, d string) (*models.DB, *models.Workspace, []*models.Link) {
	db := testdb.Open(b, d)
	ctx := context.Background()
	w, err := db.CreateWorkspace(ctx, "Acme", "acme", models.PlanPro)
	if err != nil {
		b.Fatal(err)
	}
	var links []*models.Link
	for i := range 20 {
		l := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: fmt.Sprintf("k%d", i), URL: fmt.Sprintf("https://example.com/%d", i)}
		if err := db.CreateLink(ctx, l); err != nil {
			b.Fatal(err)
		}
		links = append(links, l)
	}
	return db, w, links
}
