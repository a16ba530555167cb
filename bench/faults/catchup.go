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

	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/geo"
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
//
// With vary the clicks are spread over 100 links and varied attributes
// (geo, user agent, referrer, URL query), so a batch's aggregates are many
// rows, as with real traffic, instead of the ~40 of one attribute set.
func CatchUp(n int, batch int, cpuProfile, clickhouse string, views, vary bool, out io.Writer) error {
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
	links, err := catchupLinks(ctx, db, ws.ID, vary)
	if err != nil {
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
		link := links[0]
		h := ingest.Hit{ClickID: fmt.Sprintf("catchup%012d", i), LinkID: link.ID, WorkspaceID: ws.ID, Domain: link.Domain, Key: link.Key,
			URL: link.URL, Time: base.Add(time.Duration(i) * 100 * time.Microsecond),
			IP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), UA: "faults/" + strconv.Itoa(i>>24)}
		if vary {
			variedHit(&h, i, links)
		}
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
		// the link counters, no click aggregates, in the larger writes the
		// server makes with ClickHouse (ClickHouseMaxBatch).
		opt.Hooks = nil
		opt.MaxBatch = app.ClickHouseMaxBatch(batch, db.Dialect)
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
	table := "clicks"
	if ch != nil {
		table = models.AttributionTable // the ClickStore's slim rows
	}
	if err := db.Raw("SELECT COUNT(*) FROM " + table).Scan(&stored).Error; err != nil {
		return err
	}
	fmt.Fprintf(out, "catch-up: %d clicks written in %s = %.0f clicks/s (%d transactions, %d failed writes; relink CPU %.1f µs/click; stored %d)\n",
		n, took.Round(time.Millisecond), float64(n)/took.Seconds(), st.Batches, st.WriteErrors, float64(cpu.Microseconds())/float64(n), stored)
	if stored != int64(n) {
		return fmt.Errorf("catchup: %d of %d clicks stored", stored, n)
	}
	if ch != nil {
		return checkClickHouse(ctx, ch, ws.ID, n, views, out)
	}
	return nil
}

// checkClickHouse requires ClickHouse to hold the n clicks of workspace ws
// and, with the rollups' view attached, the rollups' totals to count them.
func checkClickHouse(ctx context.Context, ch *chstore.Client, ws string, n int, views bool, out io.Writer) error {
	var inCH string
	q := "SELECT count() FROM clicks WHERE workspace_id = " + chstore.Quote(ws)
	if err := ch.Query(ctx, q, func(cols []string) error { inCH = cols[0]; return nil }); err != nil {
		return err
	}
	var rolled string
	q = "SELECT sum(count) FROM event_aggregates WHERE event = 'click' AND dim = 'total' AND workspace_id = " + chstore.Quote(ws)
	if err := ch.Query(ctx, q, func(cols []string) error { rolled = cols[0]; return nil }); err != nil {
		return err
	}
	fmt.Fprintf(out, "clickhouse: %s clicks in the event store, %s in the rollups' totals\n", inCH, rolled)
	if inCH != strconv.Itoa(n) {
		return fmt.Errorf("catchup: %s of %d clicks in ClickHouse", inCH, n)
	}
	if views && rolled != inCH {
		return fmt.Errorf("catchup: the rollups count %s of %s clicks", rolled, inCH)
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

// catchupLinks creates the catch-up's links: one, or 100 with vary.
func catchupLinks(ctx context.Context, db *models.DB, ws string, vary bool) ([]*models.Link, error) {
	links := make([]*models.Link, 1)
	if vary {
		links = make([]*models.Link, 100)
	}
	for i := range links {
		links[i] = &models.Link{WorkspaceID: ws, Domain: "catchup.test", Key: "bench" + strconv.Itoa(i), URL: "https://example.com/landing/" + strconv.Itoa(i)}
		if i == 0 {
			links[i].Key, links[i].URL = "bench", "https://example.com/landing"
		}
		if err := db.CreateLink(ctx, links[i]); err != nil {
			return nil, err
		}
	}
	return links, nil
}

// variedHit spreads click i over the links and varied attributes, each a
// function of i (a fixed mix, the same in every run).
func variedHit(h *ingest.Hit, i int, links []*models.Link) {
	r := func(salt, n int) int {
		x := uint64(i)<<8 | uint64(salt)
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x ^= x >> 33
		x *= 0xc4ceb9fe1a85ec53
		x ^= x >> 33
		return int(x % uint64(n))
	}
	// Links by a skewed draw: a few get most clicks.
	k := r(1, 1000)
	link := links[k*k/1000*len(links)/1000]
	h.LinkID, h.Domain, h.Key, h.URL = link.ID, link.Domain, link.Key, link.URL
	if s := r(2, 6); s < 2 {
		h.URL += "?utm_source=" + []string{"newsletter", "twitter"}[s]
	}
	countries := []string{"US", "DE", "GB", "FR", "IN", "BR", "JP", "CA", "AU", "NL", "ES", "IT", "MX", "SE", "PL", "KR", "NG", "ZA", "AR", "ID"}
	c := countries[r(3, len(countries))]
	reg := r(4, 8)
	h.Geo = geo.Hint{Country: c, Region: c + "-" + strconv.Itoa(reg), City: "City " + strconv.Itoa(reg) + "-" + strconv.Itoa(r(5, 40))}
	h.UA = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
		"Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
	}[r(6, 6)]
	if ref := r(7, 11); ref < 10 {
		h.Referer = "https://" + []string{"google.com", "twitter.com", "facebook.com", "linkedin.com", "reddit.com", "news.ycombinator.com",
			"youtube.com", "instagram.com", "bing.com", "duckduckgo.com"}[ref] + "/p/" + strconv.Itoa(r(8, 50))
	}
	h.QR = r(9, 20) == 0
}
