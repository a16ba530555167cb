package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/models"
)

const clickhouseHelp = `Usage: relink clickhouse backfill [--batch N] [--restart]

Copies the SQL database's clicks, leads and sales into the ClickHouse event
store (RELINK_CLICKHOUSE_URL), in batches of N rows (default 10000), with a
progress bar. Resumable: stopped for any reason, the next run continues after
the last batch copied (--restart copies everything again; copies are
harmless). Run it once after turning RELINK_CLICKHOUSE_URL on
(docs/clickhouse.md).
`

// clickhouseCmd is `relink clickhouse …`.
func clickhouseCmd(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "backfill" {
		fmt.Fprint(stdout, clickhouseHelp)
		if len(args) == 0 || args[0] == "help" || args[0] == "--help" || args[0] == "-h" {
			return nil
		}
		return usageError{fmt.Sprintf("unknown clickhouse command %q (want backfill)", args[0])}
	}
	fs := newFlags("clickhouse backfill")
	batch := fs.Int("batch", 10000, "rows per insert")
	restart := fs.Bool("restart", false, "ignore the saved cursor")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if *batch <= 0 {
		return usageError{"--batch must be positive"}
	}
	if cfg.ClickHouseURL == "" {
		return fmt.Errorf("RELINK_CLICKHOUSE_URL is not set (e.g. http://127.0.0.1:8123/relink)")
	}
	ch, err := chstore.Open(cfg.ClickHouseURL)
	if err != nil {
		return fmt.Errorf("RELINK_CLICKHOUSE_URL: %w", err)
	}
	db, err := models.Open(cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	if err := ch.Migrate(ctx, slog.Default()); err != nil {
		return fmt.Errorf("RELINK_CLICKHOUSE_URL %s: %w", ch, err)
	}
	// New leads and sales from now on go through the outbox, so nothing
	// falls between the backfill and a server started later.
	if err := (&chstore.Outbox{SQL: db, CH: ch}).Enable(ctx); err != nil {
		return err
	}
	bar := &backfillBar{w: stderr, start: time.Now()}
	err = (&chstore.Backfill{SQL: db, CH: ch, Batch: *batch, Restart: *restart, Progress: bar.update}).Run(ctx)
	bar.finish()
	if err != nil {
		return fmt.Errorf("%w (run the command again to resume)", err)
	}
	fmt.Fprintf(stdout, "backfill done: %s\n", strings.Join(bar.summary, ", "))
	return nil
}

// backfillBar draws "clicks [#####-----] done/total rows/s" on one line of
// w, at most every 100 ms, and a line per finished table.
type backfillBar struct {
	w       io.Writer
	start   time.Time
	last    time.Time
	p       chstore.BackfillProgress
	first   int64 // rows already done when the table started (resumed)
	began   time.Time
	summary []string
}

func (b *backfillBar) update(p chstore.BackfillProgress) {
	if p.Table != b.p.Table {
		if b.p.Table != "" {
			b.finish()
		}
		b.first, b.began = p.Done, time.Now()
	}
	b.p = p
	if time.Since(b.last) < 100*time.Millisecond && p.Done < p.Total {
		return
	}
	b.last = time.Now()
	b.draw()
}

func (b *backfillBar) draw() {
	p := b.p
	const width = 30
	n := width
	if p.Total > 0 {
		n = min(int(int64(width)*p.Done/p.Total), width)
	}
	rate := float64(p.Done-b.first) / max(time.Since(b.began).Seconds(), 0.001)
	fmt.Fprintf(b.w, "\r%-11s [%s%s] %d/%d  %.0f rows/s ", p.Table, strings.Repeat("#", n), strings.Repeat("-", width-n), p.Done, p.Total, rate)
}

func (b *backfillBar) finish() {
	if b.p.Table == "" {
		return
	}
	b.draw()
	fmt.Fprintln(b.w)
	b.summary = append(b.summary, fmt.Sprintf("%s %d", b.p.Table, b.p.Done))
	b.p = chstore.BackfillProgress{}
}
