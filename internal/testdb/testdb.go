// Package testdb gives tests a fresh, migrated database: a temporary SQLite
// file always, and a fresh PostgreSQL database when RELINK_TEST_DATABASE_URL
// is set, both copies of a database migrated once per run (template.go).
// URL gives an empty one (a fresh PostgreSQL schema) for code that migrates
// itself. Each is dropped in t.Cleanup.
package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver for schema setup

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// Dialects lists the dialects available to this test run.
func Dialects() []string {
	if os.Getenv("RELINK_TEST_DATABASE_URL") != "" {
		return []string{"sqlite", "postgres"}
	}
	return []string{"sqlite"}
}

// Each runs fn as a subtest per available dialect, each with a fresh DB.
func Each(t *testing.T, fn func(t *testing.T, db *models.DB)) {
	t.Helper()
	for _, d := range Dialects() {
		t.Run(d, func(t *testing.T) {
			fn(t, Open(t, d))
		})
	}
}

// Open returns a fresh migrated database of the dialect: a copy of one
// migrated once per run (template.go).
func Open(t testing.TB, dialect string) *models.DB {
	t.Helper()
	var u string
	switch dialect {
	case "sqlite":
		u = openSQLite(t)
	case "postgres":
		u = openPostgres(t)
	default:
		panic(fmt.Sprintf("testdb: unknown dialect %q", dialect))
	}
	db, err := models.Open(u)
	if err != nil {
		t.Fatalf("open %s: %v", dialect, err)
	}
	t.Cleanup(func() { db.Close() })
	// Nothing to apply on a copy; Migrate still checks it is current.
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate %s: %v", dialect, err)
	}
	return db
}

// URL returns a RELINK_DATABASE_URL for a fresh, empty database of the
// dialect (not migrated), dropped when the test ends.
func URL(t testing.TB, dialect string) string {
	t.Helper()
	switch dialect {
	case "sqlite":
		return "sqlite:" + filepath.Join(t.TempDir(), "relink.db")
	case "postgres":
		base := os.Getenv("RELINK_TEST_DATABASE_URL")
		if base == "" {
			t.Skip("RELINK_TEST_DATABASE_URL not set")
		}
		schema := "t_" + strings.ToLower(ids.Nano(12))
		admin, err := sql.Open("pgx", base)
		if err != nil {
			t.Fatalf("connect postgres: %v", err)
		}
		if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
			admin.Close()
			t.Fatalf("create schema: %v", err)
		}
		t.Cleanup(func() {
			defer admin.Close()
			if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
			}
		})
		pu, err := url.Parse(base)
		if err != nil {
			t.Fatalf("RELINK_TEST_DATABASE_URL: %v", err)
		}
		q := pu.Query()
		q.Set("search_path", schema)
		pu.RawQuery = q.Encode()
		return pu.String()
	}
	panic(fmt.Sprintf("testdb: unknown dialect %q", dialect))
}

// Long reports whether the long runs of the property tests are asked for
// (RELINK_TEST_LONG=1, `make test-long`): every query against every
// engine. `make test` runs a fixed, smaller share of them (docs/testing.md).
func Long() bool { return os.Getenv("RELINK_TEST_LONG") == "1" }

// Every reports whether case i of a long battery runs: every case in a long
// run (Long), else every n-th. The cases keep their order, so a make test
// run always sends the same share.
func Every(i, n int) bool { return Long() || i%n == 0 }
