package analytics_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
	"gorm.io/gorm"
)

// eventTables matches a statement that reads or writes the SQL event
// tables or their aggregates (a column named clicks, the links' counter,
// does not match).
var eventTables = regexp.MustCompile(`(?i)\b(FROM|JOIN|INTO|UPDATE)\s+"?(clicks|lead_events|sale_events|event_aggregates|aggregate_vectors)\b`)

// guarded is db for the ClickHouse engines: the same database, through a
// connection pool that fails the test on any statement touching the SQL
// event tables. With ClickHouse on, the SQL store keeps only slim click
// rows for the attribution window and no click aggregates, so an engine
// that answered from them would answer differently in production; the
// guard makes the property test's "identical JSON" cover that path.
func guarded(t testing.TB, db *models.DB) *models.DB {
	// A Context makes the session's statement its own (without one gorm
	// shares db's, and the guard would be db's too).
	g := db.DB.Session(&gorm.Session{NewDB: true, Context: context.Background()})
	g.Statement.ConnPool = &sqlGuard{ConnPool: g.Statement.ConnPool, t: t}
	return &models.DB{DB: g, Dialect: db.Dialect, Timeout: db.Timeout}
}

type sqlGuard struct {
	gorm.ConnPool
	t testing.TB
}

func (g *sqlGuard) check(q string) {
	if eventTables.MatchString(q) {
		g.t.Errorf("the ClickHouse engine read the SQL event store: %s", q)
	}
}

func (g *sqlGuard) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	g.check(q)
	return g.ConnPool.PrepareContext(ctx, q)
}

func (g *sqlGuard) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	g.check(q)
	return g.ConnPool.ExecContext(ctx, q, args...)
}

func (g *sqlGuard) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	g.check(q)
	return g.ConnPool.QueryContext(ctx, q, args...)
}

func (g *sqlGuard) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	g.check(q)
	return g.ConnPool.QueryRowContext(ctx, q, args...)
}

// BeginTx keeps the guard on a transaction's statements.
func (g *sqlGuard) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	b, ok := g.ConnPool.(gorm.TxBeginner)
	if !ok {
		g.t.Fatalf("connection pool %T cannot begin a transaction", g.ConnPool)
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &txGuard{sqlGuard{ConnPool: tx, t: g.t}}, nil
}

// txGuard is the guard over a transaction (gorm commits and rolls back
// through it; a pointer, as gorm checks it for nil).
type txGuard struct{ sqlGuard }

func (g *txGuard) Commit() error   { return g.ConnPool.(gorm.TxCommitter).Commit() }
func (g *txGuard) Rollback() error { return g.ConnPool.(gorm.TxCommitter).Rollback() }

// TestSQLGuard: the guard sees statements made through GORM, straight on
// the pool and inside a transaction, and lets the links' clicks column by.
func TestSQLGuard(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	rec := &recordingTB{TB: t}
	g := guarded(rec, db)
	ctx := context.Background()
	var n int64
	g.Raw("SELECT COUNT(*) FROM clicks").Scan(&n)
	g.Raw("SELECT id, clicks FROM links").Scan(&[]struct{ ID string }{})
	rows, err := g.Statement.ConnPool.QueryContext(ctx, "SELECT count FROM event_aggregates a JOIN links l ON l.id = a.value")
	if err == nil {
		rows.Close()
	}
	if err := g.Tx(ctx, func(tx *models.DB) error {
		return tx.Exec("DELETE FROM aggregate_vectors WHERE 0 = 1").Error
	}); err != nil {
		t.Fatal(err)
	}
	if len(rec.errs) != 3 {
		t.Fatalf("the guard reported %d statements, want 3: %q", len(rec.errs), rec.errs)
	}
}

type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
