package main

import (
	"context"
	"log/slog"

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
