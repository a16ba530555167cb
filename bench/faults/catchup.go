package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/ownpg"
	"github.com/relinkhq/relink/models"
)

// CatchUp measures the click writer alone: n clicks are put in a click
// journal while the store refuses them (an outage), then a pipeline opens
// that journal on a private PostgreSQL, as the server does on recovery, and
// the time until every click is written is printed, with the clicks per
// second. No redirect load runs: this is the writer's ceiling on this
// machine; the pg-stop scenarios measure it sharing the CPU with traffic.
//
// With a ClickHouse URL the writer stores every batch as the server does
// with RELINK_CLICKHOUSE_URL (chstore.ClickStore: the click in ClickHouse,
// its slim row and the link counters in SQL, no SQL click aggregates): the
// sustained ingest rate through the pipeline into ClickHouse. Without views
// the rollups' materialized view is detached: the rate of the raw inserts
// alone.
func CatchUp(n int, batch int, cpuProfile, clickhouse string, views bool, out io.Writer) error {
	if !ownpg.Available() {
		return errors.New("catchup: no PostgreSQL binaries (initdb)")
	}
	work, err := os.MkdirTemp("", "relink-catchup-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	pg, err := ownpg.Start()
	if err != nil {
		return err
	}
	defer pg.Close()
	if err := pg.CreateDatabase("catchup"); err != nil {
		return err
	}
	db, err := models.Open(pg.URL("catchup"))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	ws, err := db.CreateWorkspace(ctx, "Catch-up", "catchup", models.PlanPro)
	if err != nil {
		return err
	}
	link := &models.Link{WorkspaceID: ws.ID, Domain: "catchup.test", Key: "bench", URL: "https://example.com/landing"}
	if err := db.CreateLink(ctx, link); err != nil {
		return err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	jopt := &ingest.JournalOptions{Dir: filepath.Join(work, "clicks"), MaxBytes: 1 << 40, Window: 5 * time.Millisecond, FsyncCommit: true}

	// The outage: every write fails; the drain gives up at once and the
	// clicks stay in the journal.
	down, err := ingest.Open(refusingStore{}, ingest.Options{Journal: jopt, Logger: quiet, MinBackoff: time.Hour, DedupWindow: -1})
	if err != nil {
		return err
	}
	t0 := time.Now()
	base := time.Now().Add(-time.Hour)
	for i := range n {
		h := ingest.Hit{ClickID: fmt.Sprintf("catchup%012d", i), LinkID: link.ID, WorkspaceID: ws.ID, Domain: link.Domain, Key: link.Key,
			URL: link.URL, Time: base.Add(time.Duration(i) * 100 * time.Microsecond),
			IP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), UA: "faults/" + strconv.Itoa(i>>24)}
		for !down.Enqueue(h) {
			time.Sleep(time.Millisecond)
		}
	}
	dctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_ = down.Drain(dctx)
	cancel()
	fmt.Fprintf(out, "journal filled with %d clicks in %s\n", n, time.Since(t0).Round(time.Millisecond))

	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	opt := ingest.Options{Journal: jopt, Logger: quiet, BatchSize: batch, FlushInterval: 100 * time.Millisecond,
		Hooks: []models.ClickHook{models.AggregateClicks}}
	store, ch, err := catchupStore(ctx, db, clickhouse, views, quiet)
	if err != nil {
		return err
	}
	if ch != nil {
		// As the server runs it (internal/app, ClickOptions): one copy of
		// each click, in ClickHouse; the SQL store gets the slim rows and
		// the link counters, no click aggregates.
		opt.Hooks = nil
	}
	c0 := cpuNow()
	t1 := time.Now()
	up, err := ingest.Open(store, opt)
	if err != nil {
		return err
	}
	for up.Stats().JournalBacklog > 0 {
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(t1)
	cpu := cpuNow() - c0
	st := up.Stats()
	if err := up.Drain(ctx); err != nil {
		return err
	}
	var stored int64
	if err := db.Raw("SELECT COUNT(*) FROM clicks").Scan(&stored).Error; err != nil {
		return err
	}
	fmt.Fprintf(out, "catch-up: %d clicks written in %s = %.0f clicks/s (%d transactions, %d failed writes; relink CPU %.1f µs/click; stored %d)\n",
		n, took.Round(time.Millisecond), float64(n)/took.Seconds(), st.Batches, st.WriteErrors, float64(cpu.Microseconds())/float64(n), stored)
	if stored != int64(n) {
		return fmt.Errorf("catchup: %d of %d clicks stored", stored, n)
	}
	if ch != nil {
		var inCH string
		q := "SELECT count() FROM clicks WHERE workspace_id = " + chstore.Quote(ws.ID)
		if err := ch.Query(ctx, q, func(cols []string) error { inCH = cols[0]; return nil }); err != nil {
			return err
		}
		fmt.Fprintf(out, "clickhouse: %s clicks in the event store\n", inCH)
		if inCH != strconv.Itoa(n) {
			return fmt.Errorf("catchup: %s of %d clicks in ClickHouse", inCH, n)
		}
	}
	return nil
}

// catchupStore is the writer's store: the SQL database alone, or with a
// ClickHouse URL the server's chstore.ClickStore over a migrated ClickHouse
// database (its rollups' view detached unless views).
func catchupStore(ctx context.Context, db *models.DB, clickhouse string, views bool, log *slog.Logger) (ingest.Store, *chstore.Client, error) {
	if clickhouse == "" {
		return db, nil, nil
	}
	ch, err := chstore.Open(clickhouse)
	if err != nil {
		return nil, nil, err
	}
	if err := ch.Migrate(ctx, log); err != nil {
		return nil, nil, fmt.Errorf("catchup: clickhouse migrations: %w", err)
	}
	if !views {
		// What the rollups cost: the raw inserts alone (analytics would
		// miss these clicks' rollups).
		if err := ch.Exec(ctx, "DETACH TABLE clicks_ingest_2_rollups"); err != nil {
			return nil, nil, fmt.Errorf("catchup: detach the rollups' view: %w", err)
		}
	}
	return &chstore.ClickStore{SQL: db, CH: ch}, ch, nil
}

type refusingStore struct{}

func (refusingStore) RecordClicks(context.Context, []models.Click, ...models.ClickHook) (int, error) {
	return 0, errors.New("database down")
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
