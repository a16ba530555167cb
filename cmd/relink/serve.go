package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
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

// serve builds the process (internal/app), mounts the routes and serves
// until ctx ends; the server starts the background jobs and, at shutdown,
// stops and drains them before the services are closed.
func serve(ctx context.Context, cfg *config.Config) (err error) {
	if path := os.Getenv("RELINK_CPU_PROFILE"); path != "" {
		stop, perr := startCPUProfile(path)
		if perr != nil {
			return perr
		}
		defer stop()
	}
	svc, err := app.Build(ctx, cfg, app.Options{})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := svc.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	srv := handlers.New(svc)
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

// startCPUProfile writes a CPU profile of the whole serve run to path
// (RELINK_CPU_PROFILE, a benchmarking aid: bench/README.md); stop ends it.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("RELINK_CPU_PROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("RELINK_CPU_PROFILE: %w", err)
	}
	slog.Info("writing a CPU profile", "path", path)
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			slog.Error("RELINK_CPU_PROFILE: close", "err", err)
		}
	}, nil
}
