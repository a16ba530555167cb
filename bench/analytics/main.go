// Command analytics benchmarks GET /analytics over HTTP: every groupBy ×
// event at one interval against a workspace filled by `relink demo`, and
// prints p50/p95 per query as a Markdown table (bench/README.md).
//
//	RELINK_DATABASE_URL=sqlite:bench.db go run ./bench/analytics --workspace bench
//
// It serves the real handlers (app.Build and handlers.New, as `relink serve` does) on a
// loopback port with the rate limiter lifted, authenticates with a fresh API
// key, and sends requests one at a time.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/models"
	gormlogger "gorm.io/gorm/logger"
)

type unlimited struct{}

func (unlimited) Allow(context.Context, string, int, time.Duration) (ratelimit.Result, error) {
	return ratelimit.Result{Allowed: true, Limit: 1 << 30, Remaining: 1 << 30, Reset: time.Now().Add(time.Second)}, nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/analytics:", err)
		os.Exit(1)
	}
}

func run() error {
	slug := flag.String("workspace", "bench", "workspace slug (filled by relink demo)")
	runs := flag.Int("runs", 15, "measured requests per query")
	warm := flag.Int("warmup", 2, "unmeasured requests per query first")
	interval := flag.String("interval", "30d", "interval of every query (comma-separated: one table each, e.g. 30d,1y)")
	events := flag.String("events", "clicks,leads,sales,composite", "comma-separated events to run")
	sqlLog := flag.Bool("sqllog", false, "log every SQL statement with its duration to stderr (for EXPLAIN ANALYZE)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the measured requests (server and client) to this file")
	raw := flag.Bool("raw", false, "answer from the raw tables only (no aggregates)")
	only := flag.String("only", "", "comma-separated groupBys to run (default all)")
	target := flag.Float64("target", 0, "p95 target in ms: count the queries over it (0 = no target)")
	noVectors := flag.Bool("novectors", false, "rank top_links, top_urls and top_base_urls from the aggregate rows, without the sealed vectors (the path before them)")
	noURLHashes := flag.Bool("nourlhashes", false, "with ClickHouse, rank top_urls and top_base_urls by the URL strings, not their hashes (the path before migration 01590)")
	dump := flag.String("dump", "", "write each query's last answer to this directory (two builds' answers compare with diff -r; with a fixed window, e.g. --interval 'start=2026-01-01T00:30:00Z&end=2026-11-01T10:15:00Z')")
	cold := flag.Bool("cold", false, "delete the workspace's sealed vectors before every request, so each one builds those it reads (the first query after the data changed)")
	flag.Parse()

	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	db, err := models.OpenTimeout(cfg.DatabaseURL, cfg.DBTimeout) // RELINK_DB_TIMEOUT, as relink serve
	if err != nil {
		return err
	}
	defer db.Close()
	if *sqlLog {
		db.Logger = gormlogger.New(log.New(os.Stderr, "", 0), gormlogger.Config{LogLevel: gormlogger.Info})
	}
	ctx := context.Background()
	ws, err := db.WorkspaceBySlug(ctx, *slug)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", *slug, err)
	}
	_, key, err := db.CreateAPIKey(ctx, ws.ID, "bench", nil)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := app.Build(ctx, cfg, app.Options{DB: db, Limiter: unlimited{}, Logger: logger})
	if err != nil {
		return err
	}
	defer svc.Close() //nolint:errcheck
	if sql, ok := svc.Analytics.(*analytics.SQLEngine); ok {
		sql.ForceRaw = *raw
		sql.NoVectors = *noVectors
		sql.NoURLHashes = *noURLHashes
	}
	srv := handlers.New(svc)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = srv.Root.Listener(ln) }()
	defer srv.Root.Shutdown() //nolint:errcheck
	base := "http://" + ln.Addr().String()
	host := cfg.APIURL.Host

	var clicks, links int64
	// From the aggregates: a COUNT(*) over 10M clicks outlasts RELINK_DB_TIMEOUT on a busy machine.
	db.Raw("SELECT COALESCE(SUM(count), 0) FROM event_aggregates WHERE workspace_id = ? AND event = 'click' AND dim = 'total'", ws.ID).Scan(&clicks)
	db.Raw("SELECT COUNT(*) FROM links WHERE workspace_id = ?", ws.ID).Scan(&links)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	b := &bencher{client: &http.Client{Timeout: 2 * time.Minute}, base: base, host: host, key: key, runs: *runs, warm: *warm, dump: *dump}
	if *cold {
		b.before = func() error { return db.Exec("DELETE FROM aggregate_vectors WHERE workspace_id = ?", ws.ID).Error }
	}
	for _, iv := range strings.Split(*interval, ",") {
		fmt.Printf("%s, workspace %s: %d links, %d clicks; interval=%s, %d runs per query (+%d warm-up); load average %s at the start\n\n",
			db.Dialect, ws.Slug, links, clicks, iv, *runs, *warm, loadavg())
		if err := b.table(iv, strings.Split(*events, ","), groupBys(*only), *target); err != nil {
			return err
		}
	}
	return nil
}

func groupBys(only string) []analytics.GroupBy {
	if only == "" {
		return analytics.AllGroupBys
	}
	var out []analytics.GroupBy
	for _, g := range strings.Split(only, ",") {
		out = append(out, analytics.GroupBy(g))
	}
	return out
}

// bencher sends the queries of one table.
type bencher struct {
	client          *http.Client
	base, host, key string
	runs, warm      int
	before          func() error // run before every request (--cold)
	dump            string       // directory of the answers (--dump)
}

// table prints one groupBy × event table at interval iv.
func (b *bencher) table(iv string, events []string, gbs []analytics.GroupBy, target float64) error {
	fmt.Println("| event | groupBy | rows | p50 ms | p95 ms |")
	fmt.Println("|---|---|---:|---:|---:|")
	var all []time.Duration
	var over, n int
	var slowest, slowest95 time.Duration
	for _, ev := range events {
		for _, g := range gbs {
			window := "interval=" + iv
			if strings.Contains(iv, "=") {
				window = iv // start=…&end=…
			}
			url := fmt.Sprintf("%s/analytics?event=%s&groupBy=%s&%s&timezone=UTC", b.base, ev, g, window)
			lat, rows, body, err := b.measure(url)
			if err != nil {
				return err
			}
			if b.dump != "" {
				name := fmt.Sprintf("%s_%s_%s.json", ev, g, strings.NewReplacer("=", "-", "&", "_", ":", "").Replace(iv))
				if err := os.WriteFile(filepath.Join(b.dump, name), body, 0o644); err != nil {
					return fmt.Errorf("dump: %w", err)
				}
			}
			all = append(all, lat...)
			p50, p95 := pct(lat, 50), pct(lat, 95)
			n++
			slowest, slowest95 = max(slowest, p50), max(slowest95, p95)
			if target > 0 && ms(p95) > target {
				over++
			}
			fmt.Printf("| %s | %s | %d | %.1f | %.1f |\n", ev, g, rows, ms(p50), ms(p95))
		}
	}
	fmt.Printf("\nall queries: p50 %.1f ms, p95 %.1f ms; slowest query p50 %.1f ms, p95 %.1f ms", ms(pct(all, 50)), ms(pct(all, 95)), ms(slowest), ms(slowest95))
	if target > 0 {
		fmt.Printf("; %d of %d queries with p95 over %g ms", over, n, target)
	}
	fmt.Printf("; load average %s at the end\n\n", loadavg())
	return nil
}

// measure sends one query warm+runs times and returns the measured latencies,
// the number of rows of the last answer and the answer.
func (b *bencher) measure(url string) ([]time.Duration, int, []byte, error) {
	var lat []time.Duration
	rows := 0
	var last []byte
	for i := 0; i < b.warm+b.runs; i++ {
		if b.before != nil {
			if err := b.before(); err != nil {
				return nil, 0, nil, err
			}
		}
		req, _ := http.NewRequest("GET", url, nil)
		req.Host = b.host
		req.Header.Set("Authorization", "Bearer "+b.key)
		t0 := time.Now()
		res, err := b.client.Do(req)
		if err != nil {
			return nil, 0, nil, err
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		d := time.Since(t0)
		if res.StatusCode != 200 {
			return nil, 0, nil, fmt.Errorf("%s: %d %s", url, res.StatusCode, body)
		}
		rows, last = strings.Count(string(body), `"clicks":`), body
		if i >= b.warm {
			lat = append(lat, d)
		}
	}
	return lat, rows, last, nil
}

// loadavg is the 1-, 5- and 15-minute load average ("?" where unknown).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[max(i-1, 0)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
