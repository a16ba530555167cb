package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
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
	gogc := gcPercent(os.Getenv("GOGC"))
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
		"database", cfg.Dialect(), "dev", cfg.DevMode, "gogc", gogc)
	return srv.Serve(ctx, lns)
}

// defaultGCPercent is the collector's target when GOGC is not set: the
// heap may grow to five times what is live before a collection, instead of
// Go's default two. The server's live heap is small (tens of MiB) and a
// stored click leaves short-lived garbage (the journal's records, the
// enrichment's strings): collecting it was about 4 of a click's CPU
// microseconds at GOGC=100 (bench/README.md). GOGC (and GOMEMLIMIT) in the
// environment still win.
const defaultGCPercent = 400

// gcPercent applies defaultGCPercent unless env (GOGC) is set, and returns
// the percentage in force (-1: off).
func gcPercent(env string) int {
	if env != "" {
		cur := debug.SetGCPercent(100) // read the runtime's value (from GOGC) …
		debug.SetGCPercent(cur)        // … and put it back
		return cur
	}
	debug.SetGCPercent(defaultGCPercent)
	return defaultGCPercent
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
