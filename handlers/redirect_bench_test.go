package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/logline"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// BenchmarkRedirect measures one redirect through the whole server (host
// dispatch, request log, cache hit, click hand-off) without the network. The
// pipeline writes to SQLite concurrently, as in production. The request
// line goes through relink serve's handler (internal/logline); track=off
// sends dub-no-track (the redirect without its click).
func BenchmarkRedirect(b *testing.B) {
	for _, v := range []struct {
		level slog.Level
		track bool
	}{{slog.LevelInfo, true}, {slog.LevelWarn, true}, {slog.LevelInfo, false}} {
		level := v.level
		b.Run("log="+level.String()+"/track="+map[bool]string{true: "on", false: "off"}[v.track], func(b *testing.B) {
			db := testdb.Open(b, "sqlite")
			// Room for every click, no dedup: each one is written.
			cfg, err := config.Load(func(k string) string {
				return map[string]string{"RELINK_CLICK_QUEUE": strconv.Itoa(b.N + 10), "RELINK_CLICK_DEDUP_WINDOW": "0"}[k]
			})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			ws, _ := db.CreateWorkspace(ctx, "Bench", "bench", models.PlanPro)
			if err := db.CreateLink(ctx, &models.Link{WorkspaceID: ws.ID, Domain: "acme.link", Key: "bench", URL: "https://example.com/landing"}); err != nil {
				b.Fatal(err)
			}
			log := slog.New(logline.New(io.Discard, false, level))
			srv := apptest.New(b, cfg, app.Options{DB: db, Logger: log})
			apptest.RegisterDomains(b, srv, ws.ID, "acme.link")
			clicks := srv.Services().Clicks
			h := srv.Root.Handler()
			var req fasthttp.Request
			req.SetRequestURI("http://acme.link/bench")
			req.Header.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36")
			if !v.track {
				req.Header.Set("dub-no-track", "1")
			}
			addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5555}
			var fctx fasthttp.RequestCtx
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				fctx.Init(&req, addr, nil)
				h(&fctx)
				if fctx.Response.StatusCode() != 302 {
					b.Fatalf("status %d", fctx.Response.StatusCode())
				}
			}
			b.StopTimer()
			dctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if err := clicks.Drain(dctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}
