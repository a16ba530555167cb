package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/handlers/redirect"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/linkcache"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/models"
)

func openDB(ctx context.Context, cfg *config.Config) (*models.DB, error) {
	db, err := models.OpenTimeout(cfg.DatabaseURL, cfg.DBTimeout)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func serve(ctx context.Context, cfg *config.Config) error {
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()

	limiter, rdb, err := newLimiter(ctx, cfg)
	if err != nil {
		return err
	}
	if rdb != nil {
		defer rdb.Close()
	}

	// The click path: GeoIP, the link cache (invalidated across instances
	// through Redis), and the pipeline, drained on shutdown.
	loc, err := geo.Open(cfg.GeoIPDB)
	if err != nil {
		return err
	}
	defer loc.Close()
	links, err := redirect.NewCache(db, linkcache.Options{Size: cfg.LinkCacheSize, TTL: cfg.LinkCacheTTL, Redis: rdb})
	if err != nil {
		return err
	}
	defer links.Close()
	clicks := ingest.New(db, handlers.ClickOptions(cfg, loc, slog.Default()))

	fx, err := conversions.NewFX(cfg.FXRatesFile, nil)
	if err != nil {
		return err
	}
	srv := handlers.New(handlers.Deps{Config: cfg, DB: db, Limiter: limiter, Logger: slog.Default(),
		Links: links, Clicks: clicks, Geo: loc, FX: fx})
	srv.OnShutdown("clicks", clicks.Drain)
	plan, err := srv.Listeners()
	if err != nil {
		return err
	}
	lns, err := handlers.Listen(plan)
	if err != nil {
		return err
	}
	// Commissions past their holding period become processed, and the
	// previous day's click commissions are created, every hour.
	schedCtx, stopSched := context.WithCancel(ctx)
	defer stopSched()
	go srv.Conversions.RunSchedule(schedCtx, time.Hour)
	slog.Info("relink started", "version", version, "app", cfg.AppURL.String(), "api", cfg.APIURL.String(),
		"database", cfg.Dialect(), "dev", cfg.DevMode)
	return srv.Serve(ctx, lns)
}

// newLimiter is the API rate limiter: in-process by default, shared through
// Redis by every instance when RELINK_REDIS_URL is set (checked at start).
// The Redis client (nil without RELINK_REDIS_URL) is returned for the other
// shared state (link cache invalidation); the caller closes it.
func newLimiter(ctx context.Context, cfg *config.Config) (ratelimit.Limiter, *redis.Client, error) {
	if cfg.RedisURL == "" {
		return ratelimit.NewMemory(nil), nil, nil
	}
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("RELINK_REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("connect to redis (RELINK_REDIS_URL): %w", err)
	}
	return ratelimit.NewRedis(rdb, "relink:rl:"), rdb, nil
}
