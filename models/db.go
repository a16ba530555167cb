// Package models holds Relink's GORM models and the queries that belong to
// each aggregate, plus opening and migrating the database. Every query takes a
// context and, for workspace data, the workspace id from the authenticated
// principal.
package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/pressly/goose/v3"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/relinkhq/relink/migrations"
)

// DB wraps the GORM handle with the dialect it speaks.
type DB struct {
	*gorm.DB
	Dialect string        // "sqlite" or "postgres"
	Timeout time.Duration // RELINK_DB_TIMEOUT

	// clickConflicts counts the click batches still to stage after one met
	// a stored click id (recordClicksPostgres); nil: copy directly first.
	clickConflicts *atomic.Int32
	// attrConflicts is clickConflicts for attribution_clicks
	// (RecordAttributionClicks).
	attrConflicts *atomic.Int32
	// writer keeps the SQLite click writer's connection between batches
	// (click_sqlite.go); nil on copies and on PostgreSQL.
	writer *keptConn
}

// Open connects to databaseURL: "sqlite:PATH" (pure-Go embedded SQLite) or a
// postgres:// URL. It does not migrate.
func Open(databaseURL string) (*DB, error) {
	return OpenTimeout(databaseURL, DefaultTimeout)
}

// TxTimeoutFactor bounds a transaction without a deadline of its own: its
// statements each get RELINK_DB_TIMEOUT, the whole of it this many times
// that (a 50,000-click seed is one transaction).
const TxTimeoutFactor = 6

// DefaultTimeout is RELINK_DB_TIMEOUT's default.
const DefaultTimeout = 5 * time.Second

// OpenTimeout is Open with the deadline every database call carries
// (RELINK_DB_TIMEOUT): PostgreSQL's statement_timeout and connect_timeout,
// SQLite's busy timeout, and a context deadline on every GORM call whose
// context has none (deadlines.go). Migrations, which may take longer, run
// with their own context.
func OpenTimeout(databaseURL string, timeout time.Duration) (*DB, error) {
	db, err := open(databaseURL, timeout)
	if err != nil {
		return nil, err
	}
	db.Timeout = timeout
	db.clickConflicts = new(atomic.Int32)
	db.attrConflicts = new(atomic.Int32)
	if db.Dialect == "sqlite" {
		db.writer = &keptConn{}
	}
	if err := registerDeadlines(db.DB, timeout); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func open(databaseURL string, timeout time.Duration) (*DB, error) {
	cfg := &gorm.Config{
		TranslateError:         true,
		SkipDefaultTransaction: true,
		Logger:                 slowLog{threshold: 500 * time.Millisecond},
		NowFunc:                func() time.Time { return time.Now().UTC() },
	}
	switch {
	case strings.HasPrefix(databaseURL, "sqlite:"):
		path := strings.TrimPrefix(databaseURL, "sqlite:")
		if path == "" {
			return nil, errors.New("open sqlite: empty path")
		}
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("open sqlite: create %s: %w", dir, err)
			}
		}
		dsn := "file:" + url.PathEscape(path) + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(" + fmt.Sprint(timeout.Milliseconds()) + ")&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_txlock=immediate"
		g, err := gorm.Open(sqlite.Open(dsn), cfg)
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		sqlDB, err := g.DB()
		if err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		// One writer at a time is SQLite's model; a small pool serves readers.
		// Every connection the pool opens may also idle in it: with
		// database/sql's default of two idle connections, a third returned
		// at once was closed (and the next reopened, pragmas and cold page
		// cache included). Closing a connection right after a cancelled
		// context interrupted its statement is also when the driver's
		// interrupt goroutine can read the connection's handle without its
		// lock (glebarez/go-sqlite's interruptOnDone, up to v1.23.0): the race
		// detector caught it once, when a shutdown cancelled the jobs' queries
		// and the pool closed what it could not keep idle (CI, 2026-11-29).
		// Idle connections still close after ConnMaxIdleTime.
		sqlDB.SetMaxOpenConns(8)
		sqlDB.SetMaxIdleConns(8)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
		return &DB{DB: g, Dialect: "sqlite"}, nil
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		dsn, err := withPostgresTimeouts(databaseURL, timeout)
		if err != nil {
			return nil, err
		}
		g, err := gorm.Open(postgres.Open(dsn), cfg)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		sqlDB, err := g.DB()
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		sqlDB.SetMaxOpenConns(20)
		sqlDB.SetMaxIdleConns(10)
		return &DB{DB: g, Dialect: "postgres"}, nil
	}
	return nil, fmt.Errorf("open database: unsupported URL %q (want sqlite:PATH or postgres://…)", databaseURL)
}

// Close closes the pool.
func (db *DB) Close() error {
	if db.writer != nil {
		db.writer.close()
	}
	sqlDB, err := db.DB.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// SQL returns the underlying *sql.DB.
func (db *DB) SQL() *sql.DB {
	s, _ := db.DB.DB()
	return s
}

func (db *DB) provider() (*goose.Provider, error) {
	fsys, err := migrations.FS(db.Dialect)
	if err != nil {
		return nil, err
	}
	d := goose.DialectPostgres
	if db.Dialect == "sqlite" {
		d = goose.DialectSQLite3
	}
	// Versions are ranges per area (migrations package), so a database that
	// has a later area's migration still takes a new one from an earlier
	// area: apply missing lower versions instead of refusing to start.
	p, err := goose.NewProvider(d, db.SQL(), fsys, goose.WithAllowOutofOrder(true))
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// Migrate applies every pending migration.
func (db *DB) Migrate(ctx context.Context) error {
	p, err := db.provider()
	if err != nil {
		return err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate up: %w", err)
	}
	for _, r := range res {
		slog.Info("migration applied", "version", r.Source.Version, "file", filepath.Base(r.Source.Path), "took", r.Duration)
	}
	return nil
}

// MigrationStatus is one line of `relink migrate status`.
type MigrationStatus struct {
	Version   int64
	File      string
	Applied   bool
	AppliedAt time.Time
}

// Migrations lists every known migration and whether it is applied.
func (db *DB) Migrations(ctx context.Context) ([]MigrationStatus, error) {
	p, err := db.provider()
	if err != nil {
		return nil, err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate status: %w", err)
	}
	out := make([]MigrationStatus, 0, len(st))
	for _, s := range st {
		out = append(out, MigrationStatus{
			Version: s.Source.Version, File: filepath.Base(s.Source.Path),
			Applied: s.State == goose.StateApplied, AppliedAt: s.AppliedAt,
		})
	}
	return out, nil
}

// maxLoggedSQL is the most of a slow query's SQL that is logged.
const maxLoggedSQL = 2000

// slowLog reports slow queries to slog. Query errors are returned to callers,
// which wrap or map them, so they are not logged here.
type slowLog struct{ threshold time.Duration }

func (l slowLog) LogMode(logger.LogLevel) logger.Interface { return l }
func (slowLog) Info(context.Context, string, ...any)       {}
func (slowLog) Warn(ctx context.Context, msg string, args ...any) {
	slog.WarnContext(ctx, "gorm: "+fmt.Sprintf(msg, args...))
}
func (slowLog) Error(ctx context.Context, msg string, args ...any) {
	slog.ErrorContext(ctx, "gorm: "+fmt.Sprintf(msg, args...))
}
func (l slowLog) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), _ error) {
	if took := time.Since(begin); took > l.threshold {
		q, rows := fc()
		// A multi-row INSERT can be megabytes of SQL (a click batch's webhook
		// bodies): formatting and writing all of it made a slow query slower.
		if len(q) > maxLoggedSQL {
			q = fmt.Sprintf("%s… (%d bytes)", q[:maxLoggedSQL], len(q))
		}
		slog.WarnContext(ctx, "slow query", "took", took, "rows", rows, "sql", q)
	}
}

// Tx runs fn in a transaction; fn's DB is bound to it.
func (db *DB) Tx(ctx context.Context, fn func(tx *DB) error) error {
	if _, ok := ctx.Deadline(); !ok && db.Timeout > 0 {
		// The whole transaction (BEGIN included: a hung server holds the
		// pool's connections) within TxTimeoutFactor × RELINK_DB_TIMEOUT;
		// each statement in it has RELINK_DB_TIMEOUT.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, TxTimeoutFactor*db.Timeout)
		defer cancel()
	}
	return db.WithContext(ctx).Transaction(func(g *gorm.DB) error {
		return fn(&DB{DB: g, Dialect: db.Dialect, Timeout: db.Timeout})
	})
}
