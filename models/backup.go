package models

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrBackupPostgres is BackupSQLite's refusal on PostgreSQL, whose
// backups are pg_dump's (docs/deploy.md).
var ErrBackupPostgres = errors.New("relink backup copies an SQLite database; back up PostgreSQL with pg_dump (docs/deploy.md)")

// BackupSQLite writes a consistent copy of the SQLite database to dest with
// VACUUM INTO: one read transaction, so the copy is the database as of one
// moment while the server keeps writing (WAL mode lets writers go on). The
// copy is written next to dest and renamed into place once it is complete
// and synced, so dest is never a partial file. dest must not exist.
func (db *DB) BackupSQLite(ctx context.Context, dest string) error {
	if db.Dialect != "sqlite" {
		return ErrBackupPostgres
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("backup: %s already exists (choose a new file name)", dest)
	}
	dir := filepath.Dir(dest)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".part-*")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmpName := tmp.Name()
	tmp.Close()
	os.Remove(tmpName) // VACUUM INTO wants a new (or empty) file; the name is ours
	defer os.Remove(tmpName)
	if err := db.WithContext(ctx).Exec("VACUUM INTO ?", tmpName).Error; err != nil {
		return fmt.Errorf("backup: vacuum into %s: %w", tmpName, err)
	}
	if err := syncFile(tmpName); err != nil {
		return err
	}
	if err := os.Rename(tmpName, dest); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return syncFile(dir)
}

// syncFile flushes a file or directory to stable storage.
func syncFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !strings.Contains(err.Error(), "invalid argument") {
		return fmt.Errorf("backup: sync %s: %w", name, err)
	}
	return nil
}

// Check runs SQLite's quick integrity check and reports what the database
// holds (links and clicks), for `relink backup` and `relink restore`.
func (db *DB) Check(ctx context.Context) (links, clicks int64, err error) {
	if db.Dialect == "sqlite" {
		var res string
		if err := db.WithContext(ctx).Raw("PRAGMA quick_check").Scan(&res).Error; err != nil {
			return 0, 0, fmt.Errorf("integrity check: %w", err)
		}
		if res != "ok" {
			return 0, 0, fmt.Errorf("integrity check: %s", res)
		}
	}
	if err := db.WithContext(ctx).Model(&Link{}).Count(&links).Error; err != nil {
		return 0, 0, fmt.Errorf("not a Relink database? count links: %w", err)
	}
	if err := db.WithContext(ctx).Model(&Click{}).Count(&clicks).Error; err != nil {
		return 0, 0, fmt.Errorf("not a Relink database? count clicks: %w", err)
	}
	return links, clicks, nil
}
