package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/models"
)

const backupUsage = `Usage: relink backup FILE

Writes a consistent copy of the SQLite database (RELINK_DATABASE_URL) to FILE
while the server runs: SQLite's VACUUM INTO reads the database as of one
moment, and the server keeps redirecting and writing meanwhile. FILE must not
exist; it is written next to its final name and renamed into place when
complete. Clicks still in the click journal (RELINK_DATA_DIR, at most about a
second's worth) are written to the live database after the copy, not to it.

Restore with "relink restore FILE" (server stopped). PostgreSQL is backed up
with pg_dump instead (docs/deploy.md).
`

const restoreUsage = `Usage: relink restore FILE

Replaces the SQLite database (RELINK_DATABASE_URL) with FILE, a copy made by
"relink backup". Stop the server first: restore refuses while a server holds
the click journal (RELINK_DATA_DIR). FILE is checked (SQLite's quick_check,
and that it is a Relink database) before anything is replaced; the database it
replaces is kept next to it as PATH.replaced-TIMESTAMP. The next "relink serve"
applies any migration the copy lacks.
`

// backup answers `relink backup FILE`.
func backup(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageError{"usage: relink backup FILE"}
	}
	if cfg.Dialect() != "sqlite" {
		return models.ErrBackupPostgres
	}
	db, err := models.OpenTimeout(cfg.DatabaseURL, cfg.DBTimeout)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	if err := db.BackupSQLite(ctx, args[0]); err != nil {
		return err
	}
	return describeCopy(ctx, args[0], fmt.Sprintf("backed up %s to %s in %s", cfg.DatabaseURL, args[0], time.Since(start).Round(time.Millisecond)), stdout)
}

// describeCopy opens a database file, checks it and prints what it holds
// after msg.
func describeCopy(ctx context.Context, path, msg string, stdout io.Writer) error {
	db, err := models.Open("sqlite:" + path)
	if err != nil {
		return err
	}
	defer db.Close()
	links, clicks, err := db.Check(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d bytes, %d links, %d clicks\n", msg, fi.Size(), links, clicks)
	return nil
}

// restore answers `relink restore FILE`.
func restore(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usageError{"usage: relink restore FILE"}
	}
	if cfg.Dialect() != "sqlite" {
		return fmt.Errorf("relink restore replaces an SQLite database; restore PostgreSQL with pg_restore (docs/deploy.md)")
	}
	target := strings.TrimPrefix(cfg.DatabaseURL, "sqlite:")
	journal := filepath.Join(cfg.DataDir, "clicks")
	if _, err := os.Stat(journal); err == nil {
		unlock, err := ingest.LockJournal(journal)
		if err != nil {
			return fmt.Errorf("stop the server before restoring: %w", err)
		}
		defer unlock() //nolint:errcheck // releasing an advisory lock
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	tmp := target + ".restoring"
	if err := copyFile(args[0], tmp); err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := describeCopy(ctx, tmp, "checked "+args[0], stdout); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if _, err := os.Stat(target); err == nil {
		kept := fmt.Sprintf("%s.replaced-%s", target, time.Now().UTC().Format("20060102T150405Z"))
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Rename(target+suffix, kept+suffix); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("restore: keep the current database: %w", err)
			}
		}
		fmt.Fprintf(stdout, "kept the replaced database as %s\n", kept)
	}
	if err := os.Rename(tmp, target); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s into %s; start the server\n", args[0], cfg.DatabaseURL)
	return nil
}

// copyFile copies src to a new file dst and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("restore: copy %s: %w", src, err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("restore: %w", err)
	}
	return out.Close()
}
