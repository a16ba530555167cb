// Command relink is Relink's single binary: the server and its admin commands.
// This file only parses flags and wires packages together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/relinkhq/relink/internal/config"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `relink — self-hosted link attribution, Dub-compatible API.

Usage:
  relink serve                      run the server (API, redirects, embed, console)
  relink migrate [up|status]        apply pending migrations, or list them
  relink workspace create --name N --slug S [--plan P] [--owner-email E --owner-password P]
                                    create a workspace; prints it and its first API key as JSON
  relink demo --workspace SLUG [--links N --clicks N --leads N --sales N --days N]
                                    fill a workspace with realistic demo links and events
  relink version                    print the version

Configuration comes from RELINK_* environment variables (see README.md).
`

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(os.Stderr, "relink: %v\n\n%s", err, usage)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "relink: %v\n", err)
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return nil
	}
	cfg, err := loadConfig()
	if args[0] != "version" && args[0] != "help" && args[0] != "-h" && args[0] != "--help" && err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	if cfg != nil {
		setupLogging(cfg, stderr)
	}
	switch args[0] {
	case "serve":
		ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		return serve(ctx, cfg)
	case "migrate":
		return migrate(ctx, cfg, args[1:], stdout)
	case "workspace":
		return workspace(ctx, cfg, args[1:], stdout)
	case "demo":
		return demoCmd(ctx, cfg, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "relink", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q", args[0])}
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func loadConfig() (*config.Config, error) { return config.FromEnv() }

func setupLogging(cfg *config.Config, w io.Writer) {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	slog.SetDefault(slog.New(h))
}
