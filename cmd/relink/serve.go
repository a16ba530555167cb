package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/handlers/redirect"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/linkcache"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/models"
)

func openDB(ctx context.Context, cfg *config.Config) (*models.DB, error) {
	db, err := models.Open(cfg.DatabaseURL)
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

	var limiter ratelimit.Limiter = ratelimit.NewMemory(nil)
	var rdb *redis.Client
	if cfg.RedisURL != "" {
		opt, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return fmt.Errorf("RELINK_REDIS_URL: %w", err)
		}
		rdb = redis.NewClient(opt)
		defer rdb.Close()
		if err := rdb.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("connect to redis: %w", err)
		}
		limiter = ratelimit.NewRedis(rdb, "relink:rl:")
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

	srv := handlers.New(handlers.Deps{Config: cfg, DB: db, Limiter: limiter, Logger: slog.Default(),
		Links: links, Clicks: clicks, Geo: loc})
	srv.OnShutdown("clicks", clicks.Drain)
	plan, err := srv.Listeners()
	if err != nil {
		return err
	}
	lns, err := handlers.Listen(plan)
	if err != nil {
		return err
	}
	slog.Info("relink started", "version", version, "app", cfg.AppURL.String(), "api", cfg.APIURL.String(),
		"database", cfg.Dialect(), "dev", cfg.DevMode)
	return srv.Serve(ctx, lns)
}
