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
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/models"
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
	interval := flag.String("interval", "30d", "interval of every query")
	raw := flag.Bool("raw", false, "answer from the raw tables only (no aggregates)")
	only := flag.String("only", "", "comma-separated groupBys to run (default all)")
	target := flag.Float64("target", 0, "p50 target in ms: count the queries over it (0 = no target)")
	flag.Parse()

	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	db, err := models.Open(cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
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
	svc.Analytics.ForceRaw = *raw
	srv := handlers.New(svc)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = srv.Root.Listener(ln) }()
	defer srv.Root.Shutdown() //nolint:errcheck
	base := "http://" + ln.Addr().String()
	host := cfg.APIURL.Host

	var clicks int64
	db.Raw("SELECT COUNT(*) FROM clicks WHERE workspace_id = ?", ws.ID).Scan(&clicks)
	fmt.Printf("%s, workspace %s: %d clicks; interval=%s, %d runs per query (+%d warm-up); load average %s at the start\n\n",
		db.Dialect, ws.Slug, clicks, *interval, *runs, *warm, loadavg())
	fmt.Println("| event | groupBy | rows | p50 ms | p95 ms |")
	fmt.Println("|---|---|---:|---:|---:|")
	client := &http.Client{Timeout: 2 * time.Minute}
	var all []time.Duration
	var over, n int
	var slowest time.Duration
	groupBys := analytics.AllGroupBys
	if *only != "" {
		groupBys = nil
		for _, g := range strings.Split(*only, ",") {
			groupBys = append(groupBys, analytics.GroupBy(g))
		}
	}
	for _, ev := range []string{"clicks", "leads", "sales", "composite"} {
		for _, g := range groupBys {
			url := fmt.Sprintf("%s/analytics?event=%s&groupBy=%s&interval=%s&timezone=UTC", base, ev, g, *interval)
			var lat []time.Duration
			rows := 0
			for i := 0; i < *warm+*runs; i++ {
				req, _ := http.NewRequest("GET", url, nil)
				req.Host = host
				req.Header.Set("Authorization", "Bearer "+key)
				t0 := time.Now()
				res, err := client.Do(req)
				if err != nil {
					return err
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				d := time.Since(t0)
				if res.StatusCode != 200 {
					return fmt.Errorf("%s: %d %s", url, res.StatusCode, body)
				}
				rows = strings.Count(string(body), `"clicks":`)
				if i >= *warm {
					lat = append(lat, d)
				}
			}
			all = append(all, lat...)
			p50 := pct(lat, 50)
			n++
			slowest = max(slowest, p50)
			if *target > 0 && ms(p50) > *target {
				over++
			}
			fmt.Printf("| %s | %s | %d | %.1f | %.1f |\n", ev, g, rows, ms(pct(lat, 50)), ms(pct(lat, 95)))
		}
	}
	fmt.Printf("\nall queries: p50 %.1f ms, p95 %.1f ms; slowest query p50 %.1f ms", ms(pct(all, 50)), ms(pct(all, 95)), ms(slowest))
	if *target > 0 {
		fmt.Printf("; %d of %d queries over %g ms", over, n, *target)
	}
	fmt.Printf("; load average %s at the end\n", loadavg())
	return nil
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
