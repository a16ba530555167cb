package main

import (
	"context"
	"errors"
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
       relink clickhouse rebuild-rollups [--from YYYY-MM] [--restart]
       relink clickhouse compact
       relink clickhouse status

backfill copies the SQL database's clicks, leads and sales into the
ClickHouse event store (RELINK_CLICKHOUSE_URL), in batches of N rows
(default 10000), with a progress bar. Resumable: stopped for any reason, the
next run continues after the last batch copied (--restart copies everything
again; copies are harmless). Run it once after turning RELINK_CLICKHOUSE_URL
on (docs/clickhouse.md).

rebuild-rollups recomputes the rollups (event_aggregates) from the raw event
tables, a month at a time from --from (default: the oldest month), each
month swapped in whole. Resumable: stopped, the next run with the same
--from continues after the last month done (--restart starts over). The
rollups of clicks a workspace's retention deleted are kept.

compact merges each closed month of the rollup tables into one part now,
with a line per month, as the server's hourly job does (docs/clickhouse.md,
"Closed months in one part"): after a backfill, an import or a rebuild,
instead of waiting for the job. Stopped, it loses nothing (a month's merge
is one statement; the next run or the job merges what is left). It needs
only RELINK_CLICKHOUSE_URL: the SQL database is not opened.

status prints the server version, the migrations, the tables' sizes, the
outbox backlog and the backfill and rebuild positions.
`

// clickhouseCmd is `relink clickhouse …`.
func clickhouseCmd(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) error {
	cmds := map[string]func(context.Context, *config.Config, []string, io.Writer, io.Writer) error{
		"backfill": clickhouseBackfill, "rebuild-rollups": clickhouseRebuild, "status": clickhouseStatus,
		"compact": clickhouseCompact,
	}
	if len(args) == 0 || cmds[args[0]] == nil {
		fmt.Fprint(stdout, clickhouseHelp)
		if len(args) == 0 || args[0] == "help" || args[0] == "--help" || args[0] == "-h" {
			return nil
		}
		return usageError{fmt.Sprintf("unknown clickhouse command %q (want backfill, rebuild-rollups, compact or status)", args[0])}
	}
	return cmds[args[0]](ctx, cfg, args[1:], stdout, stderr)
}

// openClickHouse opens and migrates the event store.
func openClickHouse(ctx context.Context, cfg *config.Config) (*chstore.Client, error) {
	if cfg.ClickHouseURL == "" {
		return nil, errNoClickHouse
	}
	ch, err := chstore.Open(cfg.ClickHouseURL)
	if err != nil {
		return nil, fmt.Errorf("RELINK_CLICKHOUSE_URL: %w", err)
	}
	if err := ch.Migrate(ctx, slog.Default()); err != nil {
		return nil, fmt.Errorf("RELINK_CLICKHOUSE_URL %s: %w", ch, err)
	}
	return ch, nil
}

var errNoClickHouse = errors.New("RELINK_CLICKHOUSE_URL is not set (e.g. http://127.0.0.1:8123/relink)")

// openStores opens and migrates the SQL database, then the event store.
func openStores(ctx context.Context, cfg *config.Config) (*models.DB, *chstore.Client, error) {
	if cfg.ClickHouseURL == "" {
		return nil, nil, errNoClickHouse
	}
	db, err := models.Open(cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, nil, err
	}
	ch, err := openClickHouse(ctx, cfg)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, ch, nil
}

// monthLabel writes a YYYYMM partition as YYYY-MM.
func monthLabel(m int) string { return fmt.Sprintf("%d-%02d", m/100, m%100) }

func clickhouseBackfill(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("clickhouse backfill")
	batch := fs.Int("batch", 10000, "rows per insert")
	restart := fs.Bool("restart", false, "ignore the saved cursor")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *batch <= 0 {
		return usageError{"--batch must be positive"}
	}
	db, ch, err := openStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
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

func clickhouseRebuild(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("clickhouse rebuild-rollups")
	fromFlag := fs.String("from", "", "first month, YYYY-MM (a date YYYY-MM-DD means its month)")
	restart := fs.Bool("restart", false, "ignore the saved cursor")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	var from time.Time
	if *fromFlag != "" {
		var err error
		if from, err = time.Parse("2006-01", *fromFlag); err != nil {
			if from, err = time.Parse("2006-01-02", *fromFlag); err != nil {
				return usageError{fmt.Sprintf("--from %q: want YYYY-MM or YYYY-MM-DD", *fromFlag)}
			}
		}
	}
	db, ch, err := openStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	// The workspaces' retention periods: their raw clicks before the cut
	// are (being) deleted, so their rollups there are kept.
	policies, err := db.RetentionPolicies(ctx)
	if err != nil {
		return err
	}
	keep := map[string]time.Time{}
	for _, ws := range policies {
		keep[ws.ID] = time.Now().Add(-time.Duration(ws.EventRetentionDays) * 24 * time.Hour)
	}
	start := time.Now()
	var months int
	err = (&chstore.Rebuild{CH: ch, From: from, Keep: keep, Restart: *restart, Progress: func(p chstore.RebuildProgress) {
		months++
		retried := ""
		if p.Attempts > 1 {
			retried = fmt.Sprintf(" (%d attempts: live inserts raced it)", p.Attempts)
		}
		fmt.Fprintf(stderr, "rollups %s  month %d/%d  %s%s\n", p.Month, p.Done, p.Total, time.Since(start).Round(time.Second), retried)
	}}).Run(ctx)
	if err != nil {
		return fmt.Errorf("%w (run the command again to resume)", err)
	}
	fmt.Fprintf(stdout, "rebuild done: %d months in %s\n", months, time.Since(start).Round(time.Millisecond))
	return nil
}

func clickhouseCompact(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) error {
	if err := newFlags("clickhouse compact").Parse(args); err != nil {
		return usageError{err.Error()}
	}
	// Only the event store: the SQL database holds nothing this needs.
	ch, err := openClickHouse(ctx, cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	merged, err := (&chstore.Compaction{CH: ch, Now: time.Now, Log: slog.New(slog.DiscardHandler), Progress: func(m chstore.Merged, done, total int) {
		fmt.Fprintf(stderr, "compact %s %s  %d parts -> 1  %s  month %d/%d\n", m.Table, monthLabel(m.Month), m.Parts, m.Took.Round(time.Millisecond), done, total)
	}}).Compact(ctx)
	if err != nil {
		return fmt.Errorf("%w (%d months merged before it; run the command again to merge the rest)", err, len(merged))
	}
	if len(merged) == 0 {
		fmt.Fprintf(stdout, "compact done: every closed month of the rollups was already in one part\n")
		return nil
	}
	fmt.Fprintf(stdout, "compact done: %d months in %s\n", len(merged), time.Since(start).Round(time.Millisecond))
	return nil
}

func clickhouseStatus(ctx context.Context, cfg *config.Config, args []string, stdout, _ io.Writer) error {
	if err := newFlags("clickhouse status").Parse(args); err != nil {
		return usageError{err.Error()}
	}
	db, ch, err := openStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := chstore.ReadStatus(ctx, ch, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "server      ClickHouse %s at %s\n", st.Version, ch)
	fmt.Fprintf(stdout, "migrations  %s\n", strings.Join(st.Migrations, ", "))
	fmt.Fprintf(stdout, "tables\n")
	for _, t := range st.Tables {
		fmt.Fprintf(stdout, "  %-26s %12d rows %10.1f MiB\n", t.Name, t.Rows, float64(t.Bytes)/(1<<20))
	}
	fmt.Fprintf(stdout, "outbox      %d leads and sales waiting\n", st.Outbox)
	for _, b := range st.Backfill {
		fmt.Fprintf(stdout, "backfill    %-12s %d/%d copied\n", b.Table, b.Done, b.Total)
	}
	fmt.Fprintf(stdout, "rebuild     %s\n", st.Rebuild)
	if len(st.Unmerged) == 0 {
		fmt.Fprintf(stdout, "compaction  every closed month of the rollups is in one part\n")
	} else {
		months := make([]string, len(st.Unmerged))
		for i, m := range st.Unmerged {
			months[i] = fmt.Sprintf("%s %s (%d parts)", m.Table, monthLabel(m.Month), m.Parts)
		}
		fmt.Fprintf(stdout, "compaction  %d closed months wait for the server's hourly merge: %s (or run relink clickhouse compact)\n", len(st.Unmerged), strings.Join(months, ", "))
	}
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
