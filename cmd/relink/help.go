package main

import (
	"bytes"
	"fmt"
	"strings"
)

// Per-command help: `relink <command> --help` (or -h, or `relink <command>
// help`) prints the command's own help on stdout and exits 0, before any
// configuration is loaded or database opened, so asking for help never
// starts a server or migrates a database.

const serveUsage = `Usage: relink serve

Runs the server: the Dub-compatible API (RELINK_API_URL), the console and
embedded dashboard (RELINK_APP_URL), and the redirects of short domains, with
the background jobs (click writes, commissions, webhooks, retention). Stops
gracefully on SIGINT/SIGTERM within RELINK_SHUTDOWN_TIMEOUT.

Configuration comes from RELINK_* environment variables (see README.md); with
none set it uses an embedded SQLite database (./relink.db) on
localhost:8080/8081.
`

const migrateUsage = `Usage: relink migrate [up|status]

  up       apply pending migrations (the default; serve also does this)
  status   list every migration with its state and when it was applied

The database is RELINK_DATABASE_URL (SQLite file or PostgreSQL URL).
`

const workspaceUsage = `Usage: relink workspace create --name N --slug S [--plan P] [--owner-email E --owner-password P]

Creates a workspace (with its partner program and default group) and prints it
and its first API key as JSON.

  --name             workspace name
  --slug             workspace slug (lowercase letters, digits, hyphens)
  --plan             free, pro, business, advanced or enterprise (default free)
  --owner-email      e-mail of the first console admin (optional)
  --owner-password   that admin's password (with --owner-email)
`

const versionUsage = `Usage: relink version

Prints the version of this binary.
`

// wantsHelp reports whether the arguments after a command ask for its help:
// the first one is "help", or any is -h/--help.
func wantsHelp(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "--help" || a == "-help" || (i == 0 && a == "help") {
			return true
		}
	}
	return false
}

// commandHelp is a command's help text; false for an unknown command.
func commandHelp(cmd string) (string, bool) {
	switch cmd {
	case "serve":
		return serveUsage, true
	case "migrate":
		return migrateUsage, true
	case "backup":
		return backupUsage, true
	case "restore":
		return restoreUsage, true
	case "workspace":
		return workspaceUsage, true
	case "program":
		return programUsage, true
	case "demo":
		return demoHelp(), true
	case "import":
		return importHelp(), true
	case "clickhouse":
		return clickhouseHelp, true
	case "geoip":
		return geoipUsage, true
	case "stripe":
		return stripeUsage, true
	case "version":
		return versionUsage, true
	}
	return "", false
}

// demoHelp documents `relink demo` from its own flag set, so the help and
// the flags cannot drift apart.
func demoHelp() string {
	fs, _ := demoFlags()
	var b bytes.Buffer
	fs.SetOutput(&b)
	fs.PrintDefaults()
	return fmt.Sprintf(`Usage: relink demo --workspace SLUG [flags]

Fills a workspace with realistic demo data: links in folders with tags, clicks
from many countries, devices and referrers over the last days, leads and sales
up to now, and a partner program whose partners (with their rewards) earn
commissions on them. The workspace is created on the enterprise plan if it
does not exist (its API key is printed). Running it again adds to what is
there.

Flags:
%s
Example (a quick, small data set):
  relink demo --workspace acme --links 200 --clicks 50000 --leads 2000 --sales 500
`, strings.TrimRight(b.String(), "\n"))
}
