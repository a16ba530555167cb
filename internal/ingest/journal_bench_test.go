package ingest_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/models"
)

type nullStore struct{}

func (nullStore) RecordClicks(_ context.Context, batch []models.Click, _ ...models.ClickHook) (int, error) {
	return len(batch), nil
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkClickPath: the process CPU per click from Enqueue to the store
// (a null store, so the database is not in it), with the journal (append,
// group commit with fsync, read back, decode, trim) and without. The
// difference is the journal's cost per click (issue 15: at most 5 µs).
func BenchmarkClickPath(b *testing.B) {
	for _, journal := range []bool{false, true} {
		b.Run(fmt.Sprintf("journal=%v", journal), func(b *testing.B) {
			opt := ingest.Options{QueueSize: 50000, BatchSize: 1000, DedupWindow: -1}
			if journal {
				opt.Journal = &ingest.JournalOptions{Dir: b.TempDir(), MaxBytes: 1 << 40, Window: 5 * time.Millisecond, FsyncCommit: true}
			}
			p, err := ingest.Open(nullStore{}, opt)
			if err != nil {
				b.Fatal(err)
			}
			h := ingest.Hit{LinkID: "link_1", WorkspaceID: "ws_1", Domain: "acme.link", Key: "promo",
				URL: "https://example.com/landing?utm_source=news", UA: chromeUA, Referer: "https://news.example.com/a"}
			b.ResetTimer()
			c0 := cpuNow()
			for i := range b.N {
				h.ClickID = fmt.Sprintf("c%015d", i)
				h.IP = fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
				h.Time = time.Unix(1_700_000_000, int64(i))
				for !p.Enqueue(h) {
					time.Sleep(time.Millisecond)
				}
			}
			if err := p.Drain(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(cpuNow()-c0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/click")
		})
	}
}
