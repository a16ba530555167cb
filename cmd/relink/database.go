package main

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/relinkhq/relink/internal/config"
)

// Which database a command opens, said on stderr, and a missing SQLite
// file refused by the commands that only read or change an existing
// database (issue 33 item 6): `relink program show` run from another
// directory used to create an empty ./relink.db there and report a
// workspace not found.

// opensDatabase are the commands that open the database, other than serve
// (the server logs its own start).
var opensDatabase = map[string]bool{"migrate": true, "backup": true, "restore": true, "workspace": true, "program": true,
	"demo": true, "import": true, "clickhouse": true, "stripe": true}

// createsDatabase are the commands that may create the database: the
// server, migrations, restoring a backup, creating a workspace, the demo
// (which creates its workspace) and the ClickHouse commands (which migrate
// and copy whatever the database holds).
var createsDatabase = map[string]bool{"serve": true, "migrate": true, "restore": true, "workspace": true, "demo": true, "clickhouse": true}

// checkDatabase says which database the command opens and refuses a missing
// SQLite file unless the command creates databases.
func checkDatabase(cfg *config.Config, command string) error {
	if !opensDatabase[command] {
		return nil
	}
	path, ok := strings.CutPrefix(cfg.DatabaseURL, "sqlite:")
	if !ok {
		slog.Info("database", "url", redactedURL(cfg.DatabaseURL))
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if _, err := os.Stat(abs); os.IsNotExist(err) && !createsDatabase[command] {
		return fmt.Errorf("no database at %s (RELINK_DATABASE_URL=%s, relative to the current directory): run relink where the database is, "+
			"or set RELINK_DATABASE_URL; `relink migrate` or `relink serve` creates a new one", abs, cfg.DatabaseURL)
	}
	slog.Info("database", "url", "sqlite:"+abs)
	return nil
}

// redactedURL is a PostgreSQL URL without its password.
func redactedURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable database URL)"
	}
	return u.Redacted()
}
