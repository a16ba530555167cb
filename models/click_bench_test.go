package models_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// BenchmarkRecordClicks writes batches of 1000 clicks (per dialect).
func BenchmarkRecordClicks(b *testing.B) {
	for _, d := range testdb.Dialects() {
		b.Run(d, func(b *testing.B) {
			db := testdb.Open(b, d)
			ctx := context.Background()
			w, err := db.CreateWorkspace(ctx, "Acme", "acme", models.PlanPro)
			if err != nil {
				b.Fatal(err)
			}
			l := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "a", URL: "https://example.com/"}
			if err := db.CreateLink(ctx, l); err != nil {
				b.Fatal(err)
			}
			const size = 1000
			n := 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				batch := make([]models.Click, size)
				for i := range batch {
					n++
					batch[i] = models.Click{ClickID: fmt.Sprintf("%016d", n), Timestamp: time.Unix(int64(n), 0), WorkspaceID: w.ID, LinkID: l.ID,
						Domain: l.Domain, Key: l.Key, URL: l.URL, UA: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
						Country: "US", Device: "Desktop", Browser: "Chrome", OS: "Windows", Trigger: "link", Referer: "(direct)", RefererURL: "(direct)"}
				}
				if _, err := db.RecordClicks(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "clicks/s")
			// CPU per click is steadier than wall time on a shared machine.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N*size), "cpu-µs/click")
		})
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
