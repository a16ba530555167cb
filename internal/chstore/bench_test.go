package chstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
)

// BenchmarkInsertClicks: clicks per second into ClickHouse through the
// sink's HTTP insert (batches of 10,000, the backfill's size), then a
// workspace's 30-day count by country with FINAL over what was loaded
// (bench/README.md). go test -run - -bench InsertClicks ./internal/chstore/
func BenchmarkInsertClicks(b *testing.B) {
	c, err := chstore.Open(chtest.ServerURL(b, chtest.ClickHouse))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Migrate(ctx, quiet); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	batch := clicks(10000, "ws_bench", now)
	countries := []string{"US", "DE", "IN", "BR", "JP", "FR", "GB"}
	b.ResetTimer()
	for i := range b.N {
		for j := range batch {
			batch[j].ClickID = fmt.Sprintf("c%d_%d", i, j)
			batch[j].Timestamp = now.Add(-time.Duration((i*10000+j)%(60*86400)) * time.Second)
			batch[j].Country = countries[j%len(countries)]
		}
		if err := c.InsertClicks(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "clicks/s")
	q := fmt.Sprintf("SELECT country, count() FROM clicks FINAL WHERE workspace_id = 'ws_bench' AND time >= toDateTime(%d) GROUP BY country", now.AddDate(0, 0, -30).Unix())
	start := time.Now()
	if err := c.Query(ctx, q, func([]string) error { return nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms/30d-query")
}
