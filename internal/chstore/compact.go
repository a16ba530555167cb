package chstore

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"
)

// CompactPeriod is how often the "clickhouse rollup compaction" job runs.
const CompactPeriod = time.Hour

// compactTables are the rollup tables whose closed months are merged: the
// tables every analytics query reads (the raw tables are read only for
// filters the rollups do not hold, and ClickHouse's own merges are left to
// them).
var compactTables = []string{"event_aggregates", "url_aggregates"}

// Compaction is the job that merges each closed month of the rollup tables
// into one part (docs/clickhouse.md, "Closed months in one part"). Every
// insert writes a part of its own, and ClickHouse's background merges stop
// short of one part per month: 20M clicks loaded over a year left 92 parts
// in event_aggregates' 13 months. A query reads each part's index and
// marks (and a SummingMergeTree sums a key's rows only when their parts
// merge), so a year's rankings opened 5–8 parts per month where a merged
// month has one: at 20M clicks, merging the closed months took the 1y
// table from 15 to 5–6 of 108 queries over 150 ms p95 (bench/README.md).
// The current month, and the previous one for 28 days (week and four-week
// rows are kept at their block's first Monday), keep taking inserts and are
// left to the background merges; a closed month that takes a late event (a
// backfill, an import, a rebuild) is merged again at the next run.
type Compaction struct {
	CH  *Client
	Now func() time.Time
	Log *slog.Logger
	// Progress, when set, is called after each month merged with how many
	// of the run's months are done (`relink clickhouse compact`).
	Progress func(m Merged, done, total int)
}

// Merged is one month of one table that a run merged.
type Merged struct {
	Table string
	Month int // YYYYMM, the partition (toYYYYMM(hour), as the rebuild's months)
	Parts int // before the merge
	Took  time.Duration
}

// Run merges the closed months that are in more than one part.
func (c *Compaction) Run(ctx context.Context) error {
	_, err := c.Compact(ctx)
	return err
}

// Compact is Run with what it merged.
func (c *Compaction) Compact(ctx context.Context) ([]Merged, error) {
	todo, err := c.Pending(ctx)
	if err != nil {
		return nil, err
	}
	var done []Merged
	for _, m := range todo {
		start := time.Now()
		// FINAL merges the partition's parts into one whatever their
		// sizes; a month already in one part is never listed (FINAL would
		// rewrite it for nothing).
		if err := c.CH.Exec(ctx, fmt.Sprintf("OPTIMIZE TABLE %s PARTITION %d FINAL", m.Table, m.Month)); err != nil {
			return done, fmt.Errorf("rollup compaction: %s %d: %w", m.Table, m.Month, err)
		}
		m.Took = time.Since(start)
		done = append(done, m)
		c.Log.Info("clickhouse rollup compaction", "table", m.Table, "month", m.Month, "parts", m.Parts, "took", m.Took.Round(time.Millisecond))
		if c.Progress != nil {
			c.Progress(m, len(done), len(todo))
		}
	}
	return done, nil
}

// settle is how long after its end a month still takes rollup rows: a
// week's and a four-week block's rows are kept at the block's first hour
// (a Monday), so a click on the 27th day of a block that began on a
// month's last day adds to that month's partition.
const settle = 28 * 24 * time.Hour

// Pending lists the rollup tables' closed months that are in more than one
// active part, oldest first. A month is closed once the last four-week
// block beginning in it has ended (settle): merging it earlier would
// rewrite it again every hour for up to four weeks.
func (c *Compaction) Pending(ctx context.Context) ([]Merged, error) {
	closed := yyyymm(c.Now().UTC().Add(-settle)) // months before this one
	var out []Merged
	err := c.CH.Query(ctx, "SELECT table, partition, count() FROM system.parts WHERE database = currentDatabase() AND active AND table IN "+
		quoteList(compactTables)+" GROUP BY table, partition HAVING count() > 1 ORDER BY partition, table",
		func(cols []string) error {
			month, err1 := strconv.Atoi(cols[1])
			parts, err2 := strconv.Atoi(cols[2])
			if err1 != nil || err2 != nil {
				return fmt.Errorf("parts of %s: %v", cols[0], cols[1:])
			}
			if month < closed {
				out = append(out, Merged{Table: cols[0], Month: month, Parts: parts})
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("rollup compaction: parts: %w", err)
	}
	return out, nil
}
