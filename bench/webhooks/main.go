// Command webhooks measures the webhook pipeline on this machine (issue 14
// item 6), against a local receiver on 127.0.0.1:
//
//  1. sustained deliveries per second: N events already in the outbox,
//     delivered by one worker (its configured concurrency) to a receiver
//     that answers 200 at once;
//
//  2. the lag from click to link.clicked delivery at a steady click rate:
//     clicks go through the real ingest pipeline (batches, the click
//     feed's hook in each batch's transaction), the worker polls the
//     outbox, and the receiver notes when each click's event arrives
//     (lag = arrival - the click's timestamp in the payload).
//
//     go run ./bench/webhooks                               SQLite (temp file)
//     go run ./bench/webhooks -db postgres://…/db?search_path=bench_x   PostgreSQL
//     flags: -events 20000 -concurrency 16 -rate 5000 -duration 20s
//
// Results go to bench/README.md by hand, with the load average printed.
package main

import (
	"context"
	"encoding/json"
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
	"sync"
	"sync/atomic"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// sink is the receiver: it counts deliveries and, for link.clicked, notes
// the lag from the click's timestamp.
type sink struct {
	n    atomic.Int64
	mu   sync.Mutex
	lags []time.Duration
	seen map[string]bool
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	now := time.Now()
	var env struct {
		ID    string
		Event string
		Data  struct {
			Click struct{ Timestamp time.Time }
		}
	}
	if err := json.Unmarshal(b, &env); err == nil && env.Event == webhooks.LinkClicked {
		s.mu.Lock()
		if !s.seen[env.ID] {
			s.seen[env.ID] = true
			s.lags = append(s.lags, now.Sub(env.Data.Click.Timestamp))
		}
		s.mu.Unlock()
	}
	s.n.Add(1)
	w.WriteHeader(http.StatusOK)
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func main() {
	dbURL := flag.String("db", "", "database URL (default: a temporary SQLite file)")
	events := flag.Int("events", 20000, "events for the deliveries/s phase")
	conc := flag.Int("concurrency", 16, "deliveries in flight (RELINK_WEBHOOK_CONCURRENCY)")
	rate := flag.Int("rate", 5000, "clicks per second for the lag phase")
	dur := flag.Duration("duration", 20*time.Second, "length of the lag phase")
	busyRate := flag.Float64("busy-rate", 100, "RELINK_WEBHOOK_BUSY_RATE for the lag phase (0: off)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})))
	ctx := context.Background()
	if *dbURL == "" {
		dir, err := os.MkdirTemp("", "bench-webhooks")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		*dbURL = "sqlite:" + filepath.Join(dir, "bench.db")
	}
	db, err := models.Open(*dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	ws, err := db.CreateWorkspace(ctx, "Bench", "bench-"+strings.ToLower(ids.Nano(6)), models.PlanBusiness)
	if err != nil {
		log.Fatal(err)
	}
	link := &models.Link{WorkspaceID: ws.ID, Domain: "bench.link", Key: "k", URL: "https://example.com/landing"}
	if err := db.CreateLink(ctx, link); err != nil {
		log.Fatal(err)
	}
	s := &sink{seen: map[string]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, s) //nolint:errcheck // ends with the process
	feed, err := webhooks.NewClicks(ctx, db, wire.Writer{})
	if err != nil {
		log.Fatal(err)
	}
	scope := webhooks.ScopeWorkspace
	svc := &webhooks.Service{DB: db, Changed: feed.Invalidate}
	if _, err := svc.Create(ctx, ws, &webhooks.Input{Name: "bench", URL: "http://" + ln.Addr().String() + "/hook",
		Triggers: []string{webhooks.LinkCreated, webhooks.LinkClicked}, LinkScope: &scope}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("database %s, %d cores, load average before: %s\n\n", db.Dialect, numCPU(), loadavg())
	throughput(ctx, db, ws, s, *events, *conc)
	lag(ctx, db, feed, link, s, *conc, *rate, *dur, *busyRate)
	fmt.Printf("\nload average after: %s\n", loadavg())
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}

func worker(db *models.DB, conc int, pace *webhooks.Pacer) (*webhooks.Worker, func()) {
	w := webhooks.NewWorker(db, webhooks.Options{Targets: webhooks.TargetsAny, Concurrency: conc,
		PollInterval: 100 * time.Millisecond, Pace: pace})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = w.Run(ctx); close(done) }()
	return w, func() { cancel(); <-done }
}

// throughput: N events in the outbox, then the time one worker takes to
// deliver them.
func throughput(ctx context.Context, db *models.DB, ws *models.Workspace, s *sink, n, conc int) {
	start := time.Now()
	for i := 0; i < n; i += 500 {
		err := db.Tx(ctx, func(tx *models.DB) error {
			for j := i; j < min(n, i+500); j++ {
				if err := webhooks.Emit(ctx, tx, ws.ID, webhooks.LinkCreated, map[string]int{"i": j}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	emitted := time.Since(start)
	base := s.n.Load()
	_, stop := worker(db, conc, nil)
	t0 := time.Now()
	for s.n.Load()-base < int64(n) {
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(t0)
	stop()
	fmt.Printf("| phase | result |\n|---|---|\n")
	fmt.Printf("| emit %d events (Emit in transactions of 500) | %.0f events/s |\n", n, float64(n)/emitted.Seconds())
	fmt.Printf("| deliver %d events, concurrency %d | %.0f deliveries/s (%.2fs) |\n", n, conc, float64(n)/took.Seconds(), took.Seconds())
}

// lag: clicks at rate/s through the ingest pipeline for d; every click's
// link.clicked delivery is waited for.
func lag(ctx context.Context, db *models.DB, feed *webhooks.Clicks, l *models.Link, s *sink, conc, rate int, d time.Duration, busyRate float64) {
	p := ingest.New(db, ingest.Options{DedupWindow: -1, Hooks: []models.ClickHook{models.AggregateClicks, feed.Hook}})
	// As relink serve: link.clicked deliveries are paced while clicks
	// arrive and the machine's CPU is under 10% idle (-busy-rate 0: never).
	var pace *webhooks.Pacer
	if busyRate > 0 {
		pace = &webhooks.Pacer{BusyRate: busyRate, Live: func() uint64 { return p.Stats().Accepted }}
	}
	w, stop := worker(db, conc, pace)
	const tick = 10 * time.Millisecond
	per := max(1, rate*int(tick)/int(time.Second))
	t := time.NewTicker(tick)
	began := time.Now()
	end := began.Add(d)
	sent, refused := 0, 0
	for now := range t.C {
		if now.After(end) {
			break
		}
		for range per {
			h := ingest.Hit{ClickID: ids.Click(), LinkID: l.ID, WorkspaceID: l.WorkspaceID, Domain: l.Domain, Key: l.Key,
				URL: l.URL, Time: time.Now(), IP: fmt.Sprintf("10.%d.%d.%d", sent>>16&255, sent>>8&255, sent&255),
				UA: "Mozilla/5.0 bench"}
			if p.Enqueue(h) {
				sent++
			} else {
				refused++
			}
		}
	}
	t.Stop()
	offered := time.Since(began)
	if err := p.Drain(ctx); err != nil {
		log.Fatal(err)
	}
	st := p.Stats()
	want := int(st.Written)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s.mu.Lock()
		got := len(s.lags)
		s.mu.Unlock()
		if got >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(began)
	stop()
	s.mu.Lock()
	lags := append([]time.Duration(nil), s.lags...)
	s.mu.Unlock()
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	fmt.Printf("| %d clicks/s for %s: clicks accepted / stored / link.clicked delivered | %d / %d / %d (refused %d, bots %d) |\n",
		rate, d, sent, st.Written, len(lags), refused, st.Bots)
	fmt.Printf("| lag click → link.clicked delivery | p50 %s, p90 %s, p99 %s, max %s |\n",
		pct(lags, 0.5).Round(time.Millisecond), pct(lags, 0.9).Round(time.Millisecond),
		pct(lags, 0.99).Round(time.Millisecond), pct(lags, 1).Round(time.Millisecond))
	fmt.Printf("| clicks offered per second (the generator on this machine) | %.0f |\n", float64(sent)/offered.Seconds())
	fmt.Printf("| link.clicked deliveries per second, first click to last delivery | %.0f (%d in %.1fs) |\n",
		float64(len(lags))/took.Seconds(), len(lags), took.Seconds())
	fmt.Printf("| worker counters | %+v |\n", w.Stats())
	if pace != nil {
		fmt.Printf("| link.clicked paced (machine saturated while clicks arrived) | %s |\n", pace.Stats().PacedT)
	}
}
