package chstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
)

// TestCompaction: the job merges each closed month of the rollup tables
// that is in more than one part into one, with its sums unchanged, and
// leaves the current month and, for 28 days, the previous one (both still
// taking inserts) to ClickHouse's own merges; a second run finds nothing to
// do.
func TestCompaction(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		ctx := context.Background()
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		job := &chstore.Compaction{CH: c, Now: func() time.Time { return now }, Log: quiet}
		// Merges stopped while the parts are written, so ClickHouse's own
		// merges cannot do the job's work first.
		for _, tbl := range []string{"event_aggregates", "url_aggregates"} {
			exec(t, c, "SYSTEM STOP MERGES "+tbl)
		}
		for i, h := range []string{"2026-09-03 10:00:00", "2026-09-20 11:00:00", "2026-09-20 11:00:00", "2026-10-31 23:00:00", "2026-10-01 00:00:00", "2026-11-01 00:00:00", "2026-11-29 09:00:00"} {
			exec(t, c, "INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) VALUES ('ws', 'click', 'link', toDateTime('"+h+"', 'UTC'), 'l1', "+string(rune('1'+i))+", 0)")
		}
		exec(t, c, "INSERT INTO url_aggregates (workspace_id, event, dim, hour, value_hash, count, amount) VALUES ('ws', 'sale', 'url', toDateTime('2026-08-05 00:00:00', 'UTC'), 7, 1, 100)")
		exec(t, c, "INSERT INTO url_aggregates (workspace_id, event, dim, hour, value_hash, count, amount) VALUES ('ws', 'sale', 'url', toDateTime('2026-08-05 00:00:00', 'UTC'), 7, 2, 250)")
		pending, err := job.Pending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []chstore.Merged{{Table: "url_aggregates", Month: 202608, Parts: 2}, {Table: "event_aggregates", Month: 202609, Parts: 3}, {Table: "event_aggregates", Month: 202610, Parts: 2}}
		if len(pending) != len(want) {
			t.Fatalf("pending %+v, want %+v (November is the current month)", pending, want)
		}
		for i := range want {
			if pending[i] != want[i] {
				t.Fatalf("pending %+v, want %+v", pending, want)
			}
		}
		// On November 20 October still takes four-week rows (a block that
		// began on Monday October 26 runs to November 22): not listed.
		early := &chstore.Compaction{CH: c, Now: func() time.Time { return time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC) }, Log: quiet}
		if got, err := early.Pending(ctx); err != nil || len(got) != 2 || got[1].Month != 202609 {
			t.Fatalf("pending on November 20: %+v %v, want August's and September's only", got, err)
		}
		for _, tbl := range []string{"event_aggregates", "url_aggregates"} {
			exec(t, c, "SYSTEM START MERGES "+tbl)
		}
		merged, err := job.Compact(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(merged) != 3 {
			t.Fatalf("merged %+v, want the three closed months", merged)
		}
		for _, q := range []struct{ sql, want string }{
			{"SELECT count() FROM system.parts WHERE database = currentDatabase() AND active AND table = 'event_aggregates' AND partition = '202609'", "1"},
			{"SELECT count() FROM system.parts WHERE database = currentDatabase() AND active AND table = 'event_aggregates' AND partition = '202610'", "1"},
			{"SELECT count() FROM system.parts WHERE database = currentDatabase() AND active AND table = 'url_aggregates' AND partition = '202608'", "1"},
			// September's two rows of one key are summed into one: 2 + 3.
			{"SELECT count() FROM event_aggregates WHERE toYYYYMM(hour) = 202609", "2"},
			{"SELECT sum(count) FROM event_aggregates WHERE toYYYYMM(hour) = 202609 AND hour = toDateTime('2026-09-20 11:00:00', 'UTC')", "5"},
			{"SELECT sum(count) FROM event_aggregates", "28"},
			{"SELECT concat(toString(sum(count)), '/', toString(sum(amount))) FROM url_aggregates", "3/350"},
		} {
			if got := count(t, c, q.sql); got != q.want {
				t.Errorf("%s = %s, want %s", q.sql, got, q.want)
			}
		}
		if again, err := job.Compact(ctx); err != nil || len(again) != 0 {
			t.Fatalf("second run: %+v %v, want nothing to merge", again, err)
		}
	})
}

func exec(t *testing.T, c *chstore.Client, q string) {
	t.Helper()
	if err := c.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
