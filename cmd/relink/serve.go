package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/config"
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

	limiter, closeLimiter, err := newLimiter(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeLimiter()

	srv := handlers.New(handlers.Deps{Config: cfg, DB: db, Limiter: limiter, Logger: slog.Default()})
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

// newLimiter is the API rate limiter: in-process by default, shared through
// Redis by every instance when RELINK_REDIS_URL is set (checked at start).
func newLimiter(ctx context.Context, cfg *config.Config) (ratelimit.Limiter, func(), error) {
	if cfg.RedisURL == "" {
		return ratelimit.NewMemory(nil), func() {}, nil
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
	return ratelimit.NewRedis(rdb, "relink:rl:"), func() { rdb.Close() }, nil
}
