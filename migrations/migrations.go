// Package migrations holds Relink's versioned SQL migrations, one directory
// per dialect, embedded in the binary. Files are append-only: a released
// migration is never edited, a change is a new file.
//
// Version ranges keep parallel work from colliding:
// 00001-00099 foundation, 00100-00199 links/clicks, 00200-00299 conversions
// and partners, 00300-00399 analytics, 00400-00499 console, 00500-00599 the
// embedded referral dashboard, 00800-00849 webhooks.
package migrations

import (
	"embed"
	"fmt"
	"io/fs"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// FS returns the migrations for a dialect ("sqlite" or "postgres").
func FS(dialect string) (fs.FS, error) {
	switch dialect {
	case "sqlite", "postgres":
		return fs.Sub(files, dialect)
	}
	return nil, fmt.Errorf("migrations: unknown dialect %q", dialect)
}

//go:embed clickhouse/*.sql
var clickhouseFiles embed.FS

// ClickHouse returns the ClickHouse event store's migrations
// (internal/chstore applies them; docs/clickhouse.md).
func ClickHouse() fs.FS {
	sub, err := fs.Sub(clickhouseFiles, "clickhouse")
	if err != nil {
		panic(err) // the directory is embedded
	}
	return sub
}
