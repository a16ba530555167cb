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
	"time"

	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/logbuf"
	"github.com/relinkhq/relink/internal/logline"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `relink — self-hosted link attribution, Dub-compatible API.

Usage:
  relink serve                      run the server (API, redirects, embed, console)
  relink migrate [up|status]        apply pending migrations, or list them
  relink backup FILE                copy the SQLite database while the server runs
  relink restore FILE               replace the SQLite database with a backup (server stopped)
  relink workspace create --name N --slug S [--plan P] [--owner-email E --owner-password P]
                                    create a workspace; prints it and its first API key as JSON
  relink program show|set|group set|reward set|reward clear|commissions … --workspace W
                                    configure a workspace's partner program and rewards
                                    (run "relink program" for the details)
  relink demo --workspace SLUG [--links N --clicks N --leads N --sales N --days N --partners N]
                                    fill a workspace with realistic demo links, events and a
                                    partner program with commissions
  relink import csv FILE|SOURCE --workspace SLUG [--map …|--token T --base-url URL]
                                    import links from a CSV or another shortener's API
                                    (run "relink import --help" for the sources)
  relink clickhouse backfill [--batch N] [--restart]
                                    copy existing events to the ClickHouse event store
                                    (RELINK_CLICKHOUSE_URL), resumable, with a progress bar
  relink clickhouse rebuild-rollups [--from YYYY-MM] [--restart]
                                    recompute the event store's rollups from its raw events,
                                    a month at a time, resumable, with progress
  relink clickhouse status          server version, table sizes, outbox backlog, backfill
                                    and rebuild positions
  relink stripe connect|disconnect|status --workspace SLUG [--secret whsec_… --mode live|test]
                                    record sales from the workspace's Stripe webhook endpoint
  relink geoip status               which IP-location database locates clicks, and how old it is
  relink version                    print the version

Run "relink <command> --help" for a command's help.
Configuration comes from RELINK_* environment variables (see README.md).
`

func main() {
	os.Exit(cli(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// cli runs the program and returns its exit status: 0, 1 on failure, 2 on a
// usage error (which also prints the usage).
func cli(ctx context.Context, args []string, getenv config.Getenv, stdout, stderr io.Writer) int {
	err := run(ctx, args, getenv, stdout, stderr)
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "relink: %v\n\n%s", err, usage)
		return 2
	}
	fmt.Fprintf(stderr, "relink: %v\n", err)
	return 1
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(ctx context.Context, args []string, getenv config.Getenv, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return nil
	}
	// `relink <command> --help`: the command's help, before anything runs.
	if h, ok := commandHelp(args[0]); ok && (wantsHelp(args[1:]) || (args[0] == "import" && len(args) == 1)) {
		fmt.Fprint(stdout, h)
		return nil
	}
	cfg, err := config.Load(getenv)
	if args[0] != "version" && args[0] != "help" && args[0] != "-h" && args[0] != "--help" && err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	if cfg != nil {
		setupLogging(cfg, stderr)
		if err := checkDatabase(cfg, args[0]); err != nil {
			return err
		}
	}
	switch args[0] {
	case "serve":
		ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		// One write per request line would cost the redirect more than the
		// line itself: the server's log is buffered and written every
		// 100 ms (internal/logbuf), and flushed on exit.
		lw := logbuf.New(stderr, 256<<10, 100*time.Millisecond)
		defer lw.Close()
		setupLogging(cfg, lw)
		return serve(ctx, cfg)
	case "migrate":
		return migrate(ctx, cfg, args[1:], stdout)
	case "backup":
		return backup(ctx, cfg, args[1:], stdout)
	case "restore":
		return restore(ctx, cfg, args[1:], stdout)
	case "workspace":
		return workspace(ctx, cfg, args[1:], stdout)
	case "program":
		return program(ctx, cfg, args[1:], stdout)
	case "demo":
		return demoCmd(ctx, cfg, args[1:], stdout, stderr)
	case "import":
		return importCmd(ctx, cfg, args[1:], stdout, stderr)
	case "clickhouse":
		return clickhouseCmd(ctx, cfg, args[1:], stdout, stderr)
	case "stripe":
		return stripeCmd(ctx, cfg, args[1:], stdout)
	case "geoip":
		return geoip(cfg, args[1:], stdout, time.Now())
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

// setupLogging installs slog's text or JSON handler at the configured level,
// with the server's request line written by internal/logline.
func setupLogging(cfg *config.Config, w io.Writer) {
	slog.SetDefault(slog.New(logline.New(w, cfg.LogFormat == "json", cfg.LogLevel)))
}
