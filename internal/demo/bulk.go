package demo

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"

	"github.com/relinkhq/relink/models"
)

// BulkLoader writes large volumes of events in few, large transactions, for
// bulk loads (relink demo). Clicks go through the click writer's insert
// (repeated click ids skipped, as in RecordClicks) but without RecordClicks'
// per-batch link counter updates and hooks: the caller folds the inserted
// clicks into aggregate rows (AggregateFolder) and link counts, and writes
// them with Aggregates (or alongside a later batch of clicks) and
// AddLinkClicks. Aggregates and counters are added to what is stored, as the
// hooks do, so loading into a workspace that has data keeps it exact.
//
// On PostgreSQL the loader holds one connection (COPY runs on it); on SQLite
// each transaction enlarges its connection's page cache first (the click
// table's indexes outgrow the default 2 MB cache within seconds).
type BulkLoader struct {
	db    *models.DB
	conn  *sql.Conn        // PostgreSQL only
	attrs models.LinkAttrs // the links' attributes, read once (a bulk load does not edit links)
}

// sqliteBulkCacheKiB is the page cache a bulk transaction sets on its SQLite
// connection (PRAGMA cache_size, per connection, not persistent).
// 64 MiB measured best: more costs more to free at close than it saves.
const sqliteBulkCacheKiB = 64 << 10

// NewBulkLoader prepares a loader over db; Close releases it.
func NewBulkLoader(ctx context.Context, db *models.DB) (*BulkLoader, error) {
	l := &BulkLoader{db: db}
	if db.Dialect == "postgres" {
		conn, err := db.SQL().Conn(ctx)
		if err != nil {
			return nil, fmt.Errorf("bulk loader: acquire connection: %w", err)
		}
		l.conn = conn
	}
	return l, nil
}

// Close releases the loader's connection.
func (l *BulkLoader) Close() error {
	if l.conn != nil {
		return l.conn.Close()
	}
	return nil
}

// tx runs fn in one transaction; on PostgreSQL on the loader's connection.
// bulkStatementTimeout bounds each statement of a bulk transaction on
// PostgreSQL; bulkTxTimeout bounds a whole bulk transaction on SQLite, in
// place of TxTimeoutFactor × RELINK_DB_TIMEOUT (30 s by default), which
// ANALYZE of a 10M-click database outlasted on a busy machine (10.9 s quiet,
// over 30 s at load average 5).
const (
	bulkStatementTimeout = "5min"
	bulkTxTimeout        = 5 * time.Minute
)

func (l *BulkLoader) tx(ctx context.Context, fn func(tx *models.DB) error) error {
	if l.conn == nil {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, bulkTxTimeout)
			defer cancel()
		}
		return l.db.Tx(ctx, func(tx *models.DB) error {
			if err := tx.WithContext(ctx).Exec(fmt.Sprintf("PRAGMA cache_size = -%d", sqliteBulkCacheKiB)).Error; err != nil {
				return fmt.Errorf("enlarge page cache: %w", err)
			}
			return fn(tx)
		})
	}
	sqlTx, err := l.conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer sqlTx.Rollback() //nolint:errcheck // a no-op after Commit
	// A bulk transaction's statements (a COPY of a day's aggregates of
	// 50,000 links) outlast RELINK_DB_TIMEOUT on a busy machine: give them
	// the bound of an admin command instead.
	if _, err := sqlTx.ExecContext(ctx, "SET LOCAL statement_timeout = '"+bulkStatementTimeout+"'"); err != nil {
		return fmt.Errorf("lift statement timeout: %w", err)
	}
	g := l.db.DB.Session(&gorm.Session{NewDB: true, Context: ctx})
	g.Statement.ConnPool = sqlTx
	if err := fn(&models.DB{DB: g, Dialect: l.db.Dialect}); err != nil {
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// copyFrom runs COPY on the loader's PostgreSQL connection (inside the
// transaction tx began on it).
func (l *BulkLoader) copyFrom(ctx context.Context, table string, cols []string, n int, row func(i int) ([]any, error)) error {
	return l.conn.Raw(func(dc any) error {
		pc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("driver connection is %T, not pgx", dc)
		}
		_, err := pc.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromSlice(n, row))
		return err
	})
}

// Clicks stores a batch of clicks and adds aggregate rows (typically those
// folded from earlier batches) in one transaction, and returns the clicks
// inserted: a click whose id is already stored, or repeated in the batch,
// is skipped. Link counters and hooks are left to the caller.
func (l *BulkLoader) Clicks(ctx context.Context, batch []models.Click, aggs []models.EventAggregate) ([]models.Click, error) {
	aggs, err := l.withLinkAttrRows(ctx, aggs)
	if err != nil {
		return nil, err
	}
	var inserted []models.Click
	err = l.tx(ctx, func(tx *models.DB) error {
		var err error
		if l.conn == nil {
			if inserted, err = tx.InsertClicksSQLite(ctx, batch); err != nil {
				return err
			}
		} else if inserted, err = l.insertClicksCopy(ctx, tx, batch); err != nil {
			return err
		}
		return l.addAggregates(ctx, tx, aggs)
	})
	if err != nil {
		return nil, fmt.Errorf("bulk load %d clicks: %w", len(batch), err)
	}
	return inserted, nil
}

// insertClicksCopy copies the batch into a staging table and moves the rows
// whose click id is new into clicks.
func (l *BulkLoader) insertClicksCopy(ctx context.Context, tx *models.DB, batch []models.Click) ([]models.Click, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	pool := tx.Statement.ConnPool
	// Straight into clicks first: with fresh ids nothing conflicts. A
	// conflict undoes the COPY (savepoint) and the batch takes the staging
	// path, which skips the stored and repeated ids.
	values := func(i int) ([]any, error) { return batch[i].Values(), nil }
	if ok, err := l.copyUnlessConflict(ctx, pool, "clicks", models.ClickColumns, len(batch), values); err != nil {
		return nil, fmt.Errorf("copy clicks: %w", err)
	} else if ok {
		return batch, nil
	}
	cols := strings.Join(models.ClickColumns, ", ")
	if _, err := pool.ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS bulk_clicks_stage (LIKE clicks INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"); err != nil {
		return nil, fmt.Errorf("create staging table: %w", err)
	}
	if err := l.copyFrom(ctx, "bulk_clicks_stage", models.ClickColumns, len(batch), values); err != nil {
		return nil, fmt.Errorf("copy clicks: %w", err)
	}
	rows, err := pool.QueryContext(ctx, "INSERT INTO clicks ("+cols+") SELECT "+cols+
		" FROM bulk_clicks_stage ON CONFLICT (click_id) DO NOTHING RETURNING click_id")
	kept := make(map[string]bool, len(batch))
	if err := models.CollectIDs(rows, err)(kept); err != nil {
		return nil, fmt.Errorf("insert staged clicks: %w", err)
	}
	return models.KeepClicks(batch, kept), nil
}

// copyUnlessConflict copies rows into table under a savepoint and reports
// whether they went in; a unique violation rolls the savepoint back and
// reports false.
func (l *BulkLoader) copyUnlessConflict(ctx context.Context, pool gorm.ConnPool, table string, cols []string, n int, row func(i int) ([]any, error)) (bool, error) {
	if _, err := pool.ExecContext(ctx, "SAVEPOINT bulk_copy"); err != nil {
		return false, err
	}
	err := l.copyFrom(ctx, table, cols, n, row)
	if err == nil {
		_, err = pool.ExecContext(ctx, "RELEASE SAVEPOINT bulk_copy")
		return err == nil, err
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		return false, err
	}
	if _, err := pool.ExecContext(ctx, "ROLLBACK TO SAVEPOINT bulk_copy"); err != nil {
		return false, err
	}
	return false, nil
}

// Aggregates adds aggregate rows (insert or increment) in one transaction.
func (l *BulkLoader) Aggregates(ctx context.Context, rows []models.EventAggregate) error {
	if len(rows) == 0 {
		return nil
	}
	rows, err := l.withLinkAttrRows(ctx, rows)
	if err != nil {
		return err
	}
	return l.tx(ctx, func(tx *models.DB) error { return l.addAggregates(ctx, tx, rows) })
}

// withLinkAttrRows adds the link-attribute rows of rows' per-link rows (as
// models.AddEventAggregates does), reading each link's attributes once,
// before and outside the write transaction (whose deadline the first read
// of 50,000 links' attributes would eat into on a busy machine).
func (l *BulkLoader) withLinkAttrRows(ctx context.Context, rows []models.EventAggregate) ([]models.EventAggregate, error) {
	if l.attrs == nil {
		l.attrs = models.LinkAttrs{}
	}
	var missing []string
	for _, id := range models.LinkIDsOf(rows) {
		if _, ok := l.attrs[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // an admin command's bound, as bulkStatementTimeout
		got, err := l.db.LoadLinkAttrsOutsideTx(rctx, missing)
		cancel()
		if err != nil {
			return nil, err
		}
		for _, id := range missing {
			l.attrs[id] = got[id] // nil for a link that does not exist
		}
	}
	return models.WithLinkAttrRows(rows, l.attrs), nil
}

// workspacesOf lists the distinct workspaces of rows.
func workspacesOf(rows []models.EventAggregate) []string {
	var ids []string
	for i := range rows {
		if !slices.Contains(ids, rows[i].WorkspaceID) {
			ids = append(ids, rows[i].WorkspaceID)
		}
	}
	return ids
}

var aggregateColumns = []string{"workspace_id", "event", "dim", "hour", "value", "count", "amount"}

// sqliteAggregateLiteralRows is the rows per literal upsert statement.
const sqliteAggregateLiteralRows = 200

func (l *BulkLoader) addAggregates(ctx context.Context, tx *models.DB, rows []models.EventAggregate) error {
	if len(rows) == 0 {
		return nil
	}
	// The loader counts no revisions (models.DimRevision): sealed vectors
	// of these workspaces would go stale unseen, so drop them.
	if err := tx.DeleteAggregateVectors(ctx, workspacesOf(rows)...); err != nil {
		return err
	}
	pool := tx.Statement.ConnPool
	if l.conn != nil {
		values := func(i int) ([]any, error) {
			r := &rows[i]
			return []any{r.WorkspaceID, r.Event, r.Dim, r.Hour.UTC(), r.Value, r.Count, r.Amount}, nil
		}
		// Rows of hours the workspace has no aggregates for yet (a fresh
		// workspace) are copied straight in; otherwise a staging table and
		// one upsert: the rows are unique by key (folded), so ON CONFLICT
		// touches each stored row at most once.
		if ok, err := l.copyUnlessConflict(ctx, pool, "event_aggregates", aggregateColumns, len(rows), values); err != nil {
			return fmt.Errorf("copy event aggregates: %w", err)
		} else if ok {
			return nil
		}
		if _, err := pool.ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS bulk_aggregates_stage (LIKE event_aggregates INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"); err != nil {
			return fmt.Errorf("create aggregates staging table: %w", err)
		}
		if err := l.copyFrom(ctx, "bulk_aggregates_stage", aggregateColumns, len(rows), values); err != nil {
			return fmt.Errorf("copy event aggregates: %w", err)
		}
		cols := strings.Join(aggregateColumns, ", ")
		if _, err := pool.ExecContext(ctx, "INSERT INTO event_aggregates ("+cols+") SELECT "+cols+" FROM bulk_aggregates_stage"+models.UpsertAggregates); err != nil {
			return fmt.Errorf("add %d event aggregates: %w", len(rows), err)
		}
		return nil
	}
	// SQLite: literal multi-row upserts (see sqliteRowsPerInsert for why
	// literals beat bound parameters with this driver); a statement covers
	// rows of one workspace and event kind, which it names once.
	var b strings.Builder
	var ts [40]byte
	for start := 0; start < len(rows); {
		end := start + 1
		for end < len(rows) && end-start < sqliteAggregateLiteralRows &&
			rows[end].WorkspaceID == rows[start].WorkspaceID && rows[end].Event == rows[start].Event {
			end++
		}
		chunk := rows[start:end]
		start = end
		b.Reset()
		b.WriteString("INSERT INTO event_aggregates (" + strings.Join(aggregateColumns, ", ") + ") SELECT ")
		models.WriteSQLiteString(&b, chunk[0].WorkspaceID)
		b.WriteByte(',')
		models.WriteSQLiteString(&b, chunk[0].Event)
		b.WriteString(", column1, column2, column3, column4, column5 FROM (VALUES ")
		for i := range chunk {
			r := &chunk[i]
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			models.WriteSQLiteString(&b, r.Dim)
			b.WriteString(",'")
			b.Write(r.Hour.UTC().AppendFormat(ts[:0], models.SQLiteTimeLayout))
			b.WriteString("',")
			models.WriteSQLiteString(&b, r.Value)
			b.WriteByte(',')
			b.WriteString(strconv.FormatInt(r.Count, 10))
			b.WriteByte(',')
			b.WriteString(strconv.FormatInt(r.Amount, 10))
			b.WriteByte(')')
		}
		// "WHERE true" keeps SQLite from reading ON as a join constraint.
		b.WriteString(") WHERE true" + models.UpsertAggregates)
		if _, err := pool.ExecContext(context.WithoutCancel(ctx), b.String()); err != nil {
			return fmt.Errorf("add %d event aggregates: %w", len(chunk), err)
		}
	}
	return nil
}

// bulkTables are the tables a bulk load fills.
var bulkTables = []string{"clicks", "event_aggregates", "links", "customers", "lead_events", "sale_events"}

// Analyze refreshes the planner statistics of the tables a bulk load fills.
// On SQLite it samples (PRAGMA analysis_limit) instead of reading every
// index in full, which took longer than the rest of a demo load's tail.
func (l *BulkLoader) Analyze(ctx context.Context) error {
	return l.tx(ctx, func(tx *models.DB) error {
		stmts := []string{"ANALYZE " + strings.Join(bulkTables, ", ")}
		if l.conn == nil {
			stmts = []string{"PRAGMA analysis_limit = 2000"}
			for _, t := range bulkTables {
				stmts = append(stmts, "ANALYZE "+t)
			}
		}
		for _, q := range stmts {
			if _, err := tx.Statement.ConnPool.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("analyze: %w", err)
			}
		}
		return nil
	})
}

// LinkClicks is what a bulk load adds to one link's click counters.
type LinkClicks struct {
	Clicks int64
	Last   time.Time
}

// AddLink folds one click into the counts.
func (c *LinkClicks) AddLink(at time.Time) {
	c.Clicks++
	if at.After(c.Last) {
		c.Last = at
	}
}

// AddLinkClicks adds clicks to links' counters and moves last_clicked
// forward, in one transaction: what RecordClicks does batch by batch.
func (l *BulkLoader) AddLinkClicks(ctx context.Context, counts map[string]*LinkClicks) error {
	if len(counts) == 0 {
		return nil
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids) // the lock order of RecordClicks
	q := "UPDATE links SET clicks = clicks + ?, last_clicked = CASE WHEN last_clicked IS NULL OR last_clicked < ? THEN ? ELSE last_clicked END WHERE id = ?"
	if l.db.Dialect == "postgres" {
		q = "UPDATE links SET clicks = clicks + $1, last_clicked = CASE WHEN last_clicked IS NULL OR last_clicked < $2 THEN $2 ELSE last_clicked END WHERE id = $3"
	}
	return l.tx(ctx, func(tx *models.DB) error {
		pool := tx.Statement.ConnPool
		stmt, err := pool.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare link counters: %w", err)
		}
		defer stmt.Close()
		for _, id := range ids {
			c := counts[id]
			if l.db.Dialect == "postgres" {
				_, err = stmt.ExecContext(ctx, c.Clicks, c.Last.UTC(), id)
			} else {
				_, err = stmt.ExecContext(ctx, c.Clicks, c.Last.UTC(), c.Last.UTC(), id)
			}
			if err != nil {
				return fmt.Errorf("bump clicks of link %s: %w", id, err)
			}
		}
		return nil
	})
}

// AddLinkConversions adds to links' lead and sale counters in one
// transaction (what the conversions service does event by event).
func (l *BulkLoader) AddLinkConversions(ctx context.Context, workspaceID string, counts map[string]*models.LinkCounters) error {
	if len(counts) == 0 {
		return nil
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return l.tx(ctx, func(tx *models.DB) error {
		for _, id := range ids {
			if err := tx.BumpLinkCounters(ctx, workspaceID, id, *counts[id]); err != nil {
				return fmt.Errorf("link %s: %w", id, err)
			}
		}
		return nil
	})
}

// Insert stores rows, a slice of a model (structs or pointers), in one
// transaction: COPY on PostgreSQL, literal multi-row INSERTs on SQLite.
// Every column is written as given (no defaults, no hooks, no conflict
// handling: a repeated key fails the whole call). For bulk loads of fresh
// rows, such as the demo's customers and conversion events.
func (l *BulkLoader) Insert(ctx context.Context, rows any) error {
	rv := reflect.ValueOf(rows)
	if rv.Kind() != reflect.Slice {
		return fmt.Errorf("bulk insert: want a slice, got %T", rows)
	}
	if rv.Len() == 0 {
		return nil
	}
	stmt := &gorm.Statement{DB: l.db.DB}
	if err := stmt.Parse(rv.Index(0).Interface()); err != nil {
		return fmt.Errorf("bulk insert: parse %T: %w", rows, err)
	}
	sch := stmt.Schema
	var cols []string
	var fields []int
	for i, f := range sch.Fields {
		if f.DBName != "" && f.Creatable {
			cols = append(cols, f.DBName)
			fields = append(fields, i)
		}
	}
	values := func(i int) ([]any, error) {
		row := reflect.Indirect(rv.Index(i))
		out := make([]any, len(fields))
		for j, fi := range fields {
			v, _ := sch.Fields[fi].ValueOf(ctx, row)
			v, err := plainValue(v)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", cols[j], err)
			}
			out[j] = v
		}
		return out, nil
	}
	err := l.tx(ctx, func(tx *models.DB) error {
		if l.conn != nil {
			return l.copyFrom(ctx, sch.Table, cols, rv.Len(), values)
		}
		const per = 100
		prefix := "INSERT INTO " + quoteSQLiteIdent(sch.Table) + " ("
		for j, c := range cols {
			if j > 0 {
				prefix += ", "
			}
			prefix += quoteSQLiteIdent(c)
		}
		prefix += ") VALUES "
		var b strings.Builder
		for start := 0; start < rv.Len(); start += per {
			end := min(start+per, rv.Len())
			b.Reset()
			b.WriteString(prefix)
			for i := start; i < end; i++ {
				vals, err := values(i)
				if err != nil {
					return err
				}
				if i > start {
					b.WriteByte(',')
				}
				b.WriteByte('(')
				for j, v := range vals {
					if j > 0 {
						b.WriteByte(',')
					}
					if err := writeSQLiteLiteral(&b, v); err != nil {
						return fmt.Errorf("column %s: %w", cols[j], err)
					}
				}
				b.WriteByte(')')
			}
			if _, err := tx.Statement.ConnPool.ExecContext(context.WithoutCancel(ctx), b.String()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bulk insert %d rows into %s: %w", rv.Len(), sch.Table, err)
	}
	return nil
}

// plainValue turns a field value into nil, a basic Go value or a time:
// pointers are followed and driver.Valuers asked for their value.
func plainValue(v any) (any, error) {
	for {
		if v == nil {
			return nil, nil
		}
		if vr, ok := v.(driver.Valuer); ok {
			rv := reflect.ValueOf(v)
			if rv.Kind() == reflect.Pointer && rv.IsNil() {
				return nil, nil
			}
			x, err := vr.Value()
			if err != nil {
				return nil, err
			}
			return x, nil
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Pointer {
			return v, nil
		}
		if rv.IsNil() {
			return nil, nil
		}
		v = rv.Elem().Interface()
	}
}

func quoteSQLiteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// writeSQLiteLiteral writes v as an SQLite literal, as the driver would
// bind it (times in the driver's layout, in their own zone; bools as 0/1).
func writeSQLiteLiteral(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("NULL")
	case string:
		models.WriteSQLiteString(b, x)
	case []byte:
		b.WriteString("X'")
		b.WriteString(hex.EncodeToString(x))
		b.WriteByte('\'')
	case bool:
		if x {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	case time.Time:
		var ts [40]byte
		b.WriteByte('\'')
		b.Write(x.AppendFormat(ts[:0], models.SQLiteTimeLayout))
		b.WriteByte('\'')
	case float32:
		return writeSQLiteFloat(b, float64(x))
	case float64:
		return writeSQLiteFloat(b, x)
	default:
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			b.WriteString(strconv.FormatInt(rv.Int(), 10))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			b.WriteString(strconv.FormatUint(rv.Uint(), 10))
		case reflect.String:
			models.WriteSQLiteString(b, rv.String())
		case reflect.Bool:
			return writeSQLiteLiteral(b, rv.Bool())
		default:
			return fmt.Errorf("no SQLite literal for %T", v)
		}
	}
	return nil
}

func writeSQLiteFloat(b *strings.Builder, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("no SQLite literal for %v", f)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0" // stays REAL
	}
	b.WriteString(s)
	return nil
}
