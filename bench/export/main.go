// Command export measures the events export (GET /events/export) of a large
// workspace over HTTP: rows streamed, time, and the process's peak RSS
// (VmHWM) before and after, so the streaming claim has a number
// (bench/README.md). Fill a database with `relink demo` first:
//
//	createdb -h 127.0.0.1 -U postgres relink_export_bench
//	RELINK_DATABASE_URL=postgres://…/relink_export_bench relink demo --workspace bench --clicks 1000000 --days 90
//	RELINK_DATABASE_URL=postgres://…/relink_export_bench go run ./bench/export --workspace bench
//
// It serves the real handlers (app.Build and handlers.New) on a loopback
// port with the rate limiter lifted and reads the response as a client
// would, counting lines without keeping them.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/handlers"
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
		fmt.Fprintln(os.Stderr, "bench/export:", err)
		os.Exit(1)
	}
}

// vmHWM is the process's peak resident set size in KiB.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return -1
}

func run() error {
	slug := flag.String("workspace", "bench", "workspace slug (filled by relink demo)")
	query := flag.String("query", "interval=all&columns=timestamp,link,url,country,city,device,browser,os,referer,clickId", "the export's query string")
	path := flag.String("path", "/events/export", "the export to fetch")
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
	_, key, err := db.CreateAPIKey(ctx, ws.ID, "bench-export", nil)
	if err != nil {
		return err
	}
	svc, err := app.Build(ctx, cfg, app.Options{DB: db, Limiter: unlimited{}})
	if err != nil {
		return err
	}
	defer svc.Close()
	srv := handlers.New(svc)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = srv.Root.Listener(ln) }()

	runtime.GC()
	before := vmHWM()
	req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+*path+"?"+*query, nil)
	req.Host = cfg.APIURL.Host
	req.Header.Set("Authorization", "Bearer "+key)
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lines, bytes, firstAt := 0, 0, time.Duration(0)
	for sc.Scan() {
		if lines == 1 {
			firstAt = time.Since(start)
		}
		lines++
		bytes += len(sc.Bytes()) + 1
	}
	if err := sc.Err(); err != nil {
		return err
	}
	took := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("%s?%s\nrows %d (+ header), %.1f MB, first row after %v, total %v (%.0f rows/s)\n",
		*path, *query, lines-1, float64(bytes)/1e6, firstAt.Round(time.Millisecond), took.Round(time.Millisecond), float64(lines-1)/took.Seconds())
	fmt.Printf("peak RSS (VmHWM): %d MiB before the export, %d MiB after; Go heap in use now %d MiB, total allocated %d MiB\n",
		before/1024, vmHWM()/1024, ms.HeapInuse>>20, ms.TotalAlloc>>20)
	return nil
}
