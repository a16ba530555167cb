package models

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/relinkhq/relink/internal/bufpool"
	"gorm.io/gorm"
)

// Click is one recorded click (spec/links.md §11, spec/analytics.md §7.1). Rows are
// written in batches by internal/ingest and never updated.
type Click struct {
	ClickID         string    `gorm:"column:click_id;primaryKey"`
	Timestamp       time.Time `gorm:"column:timestamp"`
	WorkspaceID     string    `gorm:"column:workspace_id"` // internal id (no "ws_")
	LinkID          string    `gorm:"column:link_id"`
	Domain          string    `gorm:"column:domain"`
	Key             string    `gorm:"column:key"`
	URL             string    `gorm:"column:url"`
	IdentityHash    string    `gorm:"column:identity_hash"`
	IP              string    `gorm:"column:ip"`
	Continent       string    `gorm:"column:continent"`
	Country         string    `gorm:"column:country"`
	Region          string    `gorm:"column:region"`
	City            string    `gorm:"column:city"`
	Latitude        string    `gorm:"column:latitude"`
	Longitude       string    `gorm:"column:longitude"`
	Device          string    `gorm:"column:device"`
	DeviceVendor    string    `gorm:"column:device_vendor"`
	DeviceModel     string    `gorm:"column:device_model"`
	Browser         string    `gorm:"column:browser"`
	BrowserVersion  string    `gorm:"column:browser_version"`
	Engine          string    `gorm:"column:engine"`
	EngineVersion   string    `gorm:"column:engine_version"`
	OS              string    `gorm:"column:os"`
	OSVersion       string    `gorm:"column:os_version"`
	CPUArchitecture string    `gorm:"column:cpu_architecture"`
	UA              string    `gorm:"column:ua"`
	Bot             bool      `gorm:"column:bot"`
	QR              bool      `gorm:"column:qr"`
	Trigger         string    `gorm:"column:trigger"`
	Referer         string    `gorm:"column:referer"`
	RefererURL      string    `gorm:"column:referer_url"`
	UTMSource       string    `gorm:"column:utm_source"`
	UTMMedium       string    `gorm:"column:utm_medium"`
	UTMCampaign     string    `gorm:"column:utm_campaign"`
	UTMTerm         string    `gorm:"column:utm_term"`
	UTMContent      string    `gorm:"column:utm_content"`
}

// TableName pins the table.
func (Click) TableName() string { return "clicks" }

// ClickColumns is the column order of every batch insert (and of COPY in
// internal/demo's bulk loader); Values and writeSQLiteRow must match it (TestRecordClicks reads every field back).
var ClickColumns = []string{"click_id", "timestamp", "workspace_id", "link_id", "domain", "key", "url",
	"identity_hash", "ip", "continent", "country", "region", "city", "latitude", "longitude",
	"device", "device_vendor", "device_model", "browser", "browser_version", "engine", "engine_version",
	"os", "os_version", "cpu_architecture", "ua", "bot", "qr", "trigger", "referer", "referer_url",
	"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"}

// Values is the click's row in ClickColumns order, made storable (text).
func (c *Click) Values() []any {
	t := text
	return []any{t(c.ClickID), c.Timestamp.UTC(), t(c.WorkspaceID), t(c.LinkID), t(c.Domain), t(c.Key), t(c.URL),
		t(c.IdentityHash), t(c.IP), t(c.Continent), t(c.Country), t(c.Region), t(c.City), t(c.Latitude), t(c.Longitude),
		t(c.Device), t(c.DeviceVendor), t(c.DeviceModel), t(c.Browser), t(c.BrowserVersion), t(c.Engine), t(c.EngineVersion),
		t(c.OS), t(c.OSVersion), t(c.CPUArchitecture), t(c.UA), c.Bot, c.QR, t(c.Trigger), t(c.Referer), t(c.RefererURL),
		t(c.UTMSource), t(c.UTMMedium), t(c.UTMCampaign), t(c.UTMTerm), t(c.UTMContent)}
}

// text makes a visitor-supplied string storable in both databases: invalid
// UTF-8 and NUL (which PostgreSQL text refuses, failing the whole batch)
// become U+FFFD.
func text(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// ClickHook runs inside the transaction that stores a batch of clicks, with
// the clicks actually inserted (repeated click ids dropped). The analytics
// work adds its hourly event aggregates here; an error rolls the whole batch
// back and the pipeline retries it.
type ClickHook func(ctx context.Context, tx *DB, inserted []Click) error

// RecordClicks stores a batch of clicks in one transaction: the rows
// (PostgreSQL COPY, through a staging table after a repeated id; SQLite one
// prepared insert stepped per click, recordClicksSQLite), the
// links' clicks and last_clicked counters, then hooks. A click whose
// click_id is already stored is skipped (a repeat within the cookie's hour);
// the count of rows inserted is returned.
func (db *DB) RecordClicks(ctx context.Context, batch []Click, hooks ...ClickHook) (int, error) {
	if len(batch) == 0 {
		return 0, nil
	}
	var inserted []Click
	var err error
	if db.Dialect == "postgres" {
		inserted, err = db.recordClicksPostgres(ctx, &clicksTable, batch, hooks)
	} else {
		inserted, err = db.recordClicksSQLite(ctx, &clicksTable, batch, hooks)
	}
	if err != nil {
		return 0, fmt.Errorf("record %d clicks: %w", len(batch), err)
	}
	return len(inserted), nil
}

// sqliteRowsPerInsert is the rows per INSERT statement on SQLite.
//
// The values are written as SQL literals rather than bound parameters: the
// SQLite driver (glebarez/go-sqlite) matches each bound parameter with a
// linear scan of the arguments, so binding costs the square of the
// parameter count (910-row statements managed 500 clicks/s), and it
// re-parses the statement on every execution anyway, so a prepared
// statement saves nothing. Measured with BenchmarkRecordClicks, in CPU per
// click: bound parameters 42 µs (4 to 16 rows a statement, 70 µs at 1 row),
// literals 21 µs at 100 rows a statement. WriteSQLiteString is the only
// quoting, tested with hostile input.
const sqliteRowsPerInsert = 100

// InsertClicksSQLite stores the batch's clicks whose ids are new, in db's
// transaction on SQLite, with literal multi-row INSERTs, and returns them.
// Link counters and hooks are the caller's (RecordClicks adds them).
func (db *DB) InsertClicksSQLite(ctx context.Context, batch []Click) ([]Click, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	tx := db.Statement.ConnPool // the caller's transaction
	// The driver starts a watcher goroutine per statement for a cancellable
	// context; the transaction is bounded by the caller's context already.
	ctx = context.WithoutCancel(ctx)
	// A click id already stored (or repeated in the batch) is skipped by
	// ON CONFLICT DO NOTHING; RETURNING names the rows inserted.
	kept := make(map[string]bool, len(batch))
	size := 64 << 10
	for start := 0; start < len(batch); start += sqliteRowsPerInsert {
		chunk := batch[start:min(start+sqliteRowsPerInsert, len(batch))]
		// A new builder sized after the last statement: Reset drops the
		// array, and regrowing it by doubling for every statement cost
		// about a fifth of the insert's CPU.
		var b strings.Builder
		b.Grow(size)
		b.WriteString(sqliteInsertPrefix)
		for i := range chunk {
			if i > 0 {
				b.WriteByte(',')
			}
			writeSQLiteRow(&b, &chunk[i])
		}
		b.WriteString(" ON CONFLICT (click_id) DO NOTHING RETURNING click_id")
		size = max(size, b.Len()+b.Len()/8)
		if err := CollectIDs(tx.QueryContext(ctx, b.String()))(kept); err != nil {
			return nil, fmt.Errorf("insert clicks: %w", err)
		}
	}
	return KeepClicks(batch, kept), nil
}

var sqliteInsertPrefix = "INSERT INTO clicks (" + strings.Join(ClickColumns, ", ") + ") VALUES "

// writeSQLiteRow writes one VALUES tuple with every value as an SQL literal.
// Strings are single-quoted with quotes doubled, which is SQLite's only
// escape; values() has already replaced NUL (which would end the statement
// text) and invalid UTF-8. TestRecordClicksLiterals round-trips hostile
// values.
func writeSQLiteRow(b *strings.Builder, c *Click) {
	var ts [40]byte
	b.WriteByte('(')
	WriteSQLiteString(b, c.ClickID)
	b.WriteString(",'")
	b.Write(c.Timestamp.UTC().AppendFormat(ts[:0], SQLiteTimeLayout))
	b.WriteByte('\'')
	for _, s := range [...]string{c.WorkspaceID, c.LinkID, c.Domain, c.Key, c.URL,
		c.IdentityHash, c.IP, c.Continent, c.Country, c.Region, c.City, c.Latitude, c.Longitude,
		c.Device, c.DeviceVendor, c.DeviceModel, c.Browser, c.BrowserVersion, c.Engine, c.EngineVersion,
		c.OS, c.OSVersion, c.CPUArchitecture, c.UA} {
		b.WriteByte(',')
		WriteSQLiteString(b, s)
	}
	for _, v := range [...]bool{c.Bot, c.QR} {
		if v {
			b.WriteString(",1")
		} else {
			b.WriteString(",0")
		}
	}
	for _, s := range [...]string{c.Trigger, c.Referer, c.RefererURL,
		c.UTMSource, c.UTMMedium, c.UTMCampaign, c.UTMTerm, c.UTMContent} {
		b.WriteByte(',')
		WriteSQLiteString(b, s)
	}
	b.WriteByte(')')
}

// SQLiteTimeLayout is how the SQLite driver stores time.Time values, so rows
// written here compare and scan like rows written with bound parameters.
const SQLiteTimeLayout = "2006-01-02 15:04:05.999999999-07:00"

// WriteSQLiteString writes s as an SQLite string literal (quotes doubled,
// text made storable).
func WriteSQLiteString(b *strings.Builder, s string) {
	s = text(s)
	b.WriteByte('\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		b.WriteString(s[:i+1])
		b.WriteByte('\'')
		s = s[i+1:]
	}
	b.WriteString(s)
	b.WriteByte('\'')
}

// CollectIDs reads a RETURNING click_id result into a set.
func CollectIDs(rows *sql.Rows, err error) func(map[string]bool) error {
	return func(into map[string]bool) error {
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			into[id] = true
		}
		return rows.Err()
	}
}

// KeepClicks is the clicks of batch whose ids are in ids, in batch order.
func KeepClicks(batch []Click, ids map[string]bool) []Click {
	if len(ids) == len(batch) {
		return batch
	}
	out := make([]Click, 0, len(ids))
	for _, c := range batch {
		if ids[c.ClickID] {
			out = append(out, c)
			delete(ids, c.ClickID) // a repeated id inside the batch counts once
		}
	}
	return out
}

// connTx takes one pooled connection and begins a transaction on it: the
// click writers use the driver connection (COPY, SQLite's prepared insert)
// and database/sql in the same transaction. The caller closes conn after
// ending tx.
func (db *DB) connTx(ctx context.Context) (*sql.Conn, *sql.Tx, error) {
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("acquire connection: %w", err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("begin: %w", err)
	}
	return conn, tx, nil
}

// recordClicksPostgres runs the batch on one pooled connection so COPY (pgx)
// and the rest (database/sql, GORM for hooks) share a transaction.
//
// The clicks are copied straight into clicks first (in a savepoint): a batch
// of new click ids, which every batch is except a replay after a crash, then
// costs one COPY. A click id already stored fails that COPY with a unique
// violation; the savepoint is rolled back and the batch goes through a
// staging table and INSERT … ON CONFLICT DO NOTHING, which skips the stored
// ids (and the next batch starts there too, as a replay comes in runs).
// Measured by bench/faults -catchup: the staging path alone spent half of a
// 10,000-click transaction copying into the staging table and the other
// half moving the rows into clicks.
func (db *DB) recordClicksPostgres(ctx context.Context, t *clickTable, batch []Click, hooks []ClickHook) ([]Click, error) {
	conn, tx, err := db.connTx(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	g := db.DB.Session(&gorm.Session{NewDB: true, Context: ctx})
	g.Statement.ConnPool = tx
	txdb := &DB{DB: g, Dialect: db.Dialect}
	if t.before != nil {
		if batch, err = t.before(ctx, txdb, batch); err != nil {
			return nil, err
		}
	}
	var inserted []Click
	if len(batch) > 0 {
		if inserted, err = db.copyClicksDirect(ctx, t, conn, tx, batch); err != nil {
			return nil, err
		}
		if inserted == nil {
			if inserted, err = copyClicksStaged(ctx, t, conn, tx, batch); err != nil {
				return nil, err
			}
		}
	}
	if err := txdb.afterInsert(ctx, inserted, hooks); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return inserted, nil
}

// stagedRuns is how many batches after one that met a stored click id go
// straight to the staging table.
const stagedRuns = 3

// copyClicksDirect copies batch into clicks in a savepoint. It returns the
// batch when every row went in, nil (and no error) when a click id was
// already stored (the savepoint is rolled back: the caller stages).
func (db *DB) copyClicksDirect(ctx context.Context, t *clickTable, conn *sql.Conn, tx *sql.Tx, batch []Click) ([]Click, error) {
	conflicts := db.clickConflicts
	if t.attribution {
		conflicts = db.attrConflicts
	}
	if conflicts != nil && conflicts.Load() > 0 {
		conflicts.Add(-1)
		return nil, nil
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT clicks_direct"); err != nil {
		return nil, fmt.Errorf("savepoint: %w", err)
	}
	_, err := copyClicks(ctx, conn, t, t.name, batch)
	var pgErr *pgconn.PgError
	if err != nil && errors.As(err, &pgErr) && pgErr.Code == "23505" {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT clicks_direct"); err != nil {
			return nil, fmt.Errorf("rollback to savepoint: %w", err)
		}
		if conflicts != nil {
			conflicts.Store(stagedRuns)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("copy clicks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT clicks_direct"); err != nil {
		return nil, fmt.Errorf("release savepoint: %w", err)
	}
	return batch, nil
}

// copyClicksStaged stores the batch's clicks whose ids are new through the
// staging table and returns them.
func copyClicksStaged(ctx context.Context, t *clickTable, conn *sql.Conn, tx *sql.Tx, batch []Click) ([]Click, error) {
	cols := strings.Join(t.columns, ", ")
	stage := t.name + "_stage"
	// The staging table lives as long as the connection and is emptied at
	// every commit; COPY cannot skip conflicting rows, INSERT … SELECT can.
	if _, err := tx.ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS "+stage+" (LIKE "+t.name+" INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"); err != nil {
		return nil, fmt.Errorf("create staging table: %w", err)
	}
	// A staged batch after a rolled-back direct one: the table is empty
	// (ON COMMIT DELETE ROWS), but be sure.
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+stage); err != nil {
		return nil, fmt.Errorf("empty staging table: %w", err)
	}
	if _, err := copyClicks(ctx, conn, t, stage, batch); err != nil {
		return nil, fmt.Errorf("copy clicks: %w", err)
	}
	kept := make(map[string]bool, len(batch))
	err := CollectIDs(tx.QueryContext(ctx, "INSERT INTO "+t.name+" ("+cols+") SELECT "+cols+
		" FROM "+stage+" ON CONFLICT ("+t.key+") DO NOTHING RETURNING click_id"))(kept)
	if err != nil {
		return nil, fmt.Errorf("insert staged clicks: %w", err)
	}
	return KeepClicks(batch, kept), nil
}

// copyClicks COPYs batch into table on conn (in its open transaction). The
// rows are written here in COPY's text format (appendCopyRow): pgx's
// CopyFrom boxes every value in an interface and plans its encoding value by
// value, which cost about 10 CPU µs a click, more than the rest of the
// click's database work on Relink's side (bench/README.md, "The cost of a
// stored click").
func copyClicks(ctx context.Context, conn *sql.Conn, t *clickTable, table string, batch []Click) (int64, error) {
	buf := copyBufs.Get(len(batch) * copyRowBytes)
	for i := range batch {
		buf = t.appendCopyRow(buf, &batch[i])
	}
	var n int64
	err := conn.Raw(func(dc any) error {
		pc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("driver connection is %T, not pgx", dc)
		}
		tag, err := pc.Conn().PgConn().CopyFrom(ctx, bytes.NewReader(buf),
			"COPY "+pgx.Identifier{table}.Sanitize()+" ("+strings.Join(t.columns, ", ")+") FROM STDIN")
		n = tag.RowsAffected()
		return err
	})
	if err == nil {
		// Only now: on some errors (a broken connection, a server error
		// while sending) pgx returns while its goroutine may still be
		// reading buf.
		copyBufs.Put(buf)
	}
	return n, err
}

// copyBufs keeps copyClicks' row buffers between batches (internal/bufpool):
// two, as many as a process writes at once (the click pipeline's one write
// in flight, an import), up to 64 MiB each; copyRowBytes is the room made
// per click, more than a typical row.
var copyBufs = bufpool.New(2, 64<<20)

const copyRowBytes = 512

// pgCopyTimeLayout is a timestamptz in COPY's text format (microseconds,
// PostgreSQL's precision; the pipeline truncates to them already).
const pgCopyTimeLayout = "2006-01-02 15:04:05.999999-07"

// appendCopyRow appends c as one line of COPY's text format in
// ClickColumns order: tab-separated, every text value made storable (text)
// and escaped (appendCopyText).
func appendCopyRow(b []byte, c *Click) []byte {
	b = appendCopyText(b, c.ClickID)
	b = append(b, '\t')
	b = c.Timestamp.UTC().AppendFormat(b, pgCopyTimeLayout)
	for _, s := range [...]string{c.WorkspaceID, c.LinkID, c.Domain, c.Key, c.URL, c.IdentityHash} {
		b = append(b, '\t')
		b = appendCopyText(b, s)
	}
	return appendCopyAttrs(b, c)
}

// appendCopyAttrs appends the columns both the clicks and the attribution
// table end with, from ip to utm_content, each after a tab, and the line's
// end.
func appendCopyAttrs(b []byte, c *Click) []byte {
	for _, s := range [...]string{c.IP, c.Continent, c.Country, c.Region, c.City, c.Latitude, c.Longitude,
		c.Device, c.DeviceVendor, c.DeviceModel, c.Browser, c.BrowserVersion, c.Engine, c.EngineVersion,
		c.OS, c.OSVersion, c.CPUArchitecture, c.UA} {
		b = append(b, '\t')
		b = appendCopyText(b, s)
	}
	for _, v := range [...]bool{c.Bot, c.QR} {
		if v {
			b = append(b, "\tt"...)
		} else {
			b = append(b, "\tf"...)
		}
	}
	for _, s := range [...]string{c.Trigger, c.Referer, c.RefererURL,
		c.UTMSource, c.UTMMedium, c.UTMCampaign, c.UTMTerm, c.UTMContent} {
		b = append(b, '\t')
		b = appendCopyText(b, s)
	}
	return append(b, '\n')
}

// appendCopyText appends s as a COPY text-format value: backslash, tab,
// newline and carriage return escaped (so no value can end its field or
// line, or spell \N or the end marker \.), NUL and invalid UTF-8 replaced
// (text). TestRecordClicksLiterals round-trips hostile values.
func appendCopyText(b []byte, s string) []byte {
	s = text(s)
	i := 0
	for i < len(s) && s[i] != '\\' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, ch)
		}
	}
	return b
}

// afterInsert bumps the links' counters and runs the hooks, inside the
// batch's transaction.
func (db *DB) afterInsert(ctx context.Context, inserted []Click, hooks []ClickHook) error {
	type bump struct {
		n    int64
		last time.Time
	}
	per := map[string]*bump{}
	for i := range inserted {
		c := &inserted[i]
		b := per[c.LinkID]
		if b == nil {
			b = &bump{}
			per[c.LinkID] = b
		}
		b.n++
		if c.Timestamp.After(b.last) {
			b.last = c.Timestamp
		}
	}
	linkIDs := make([]string, 0, len(per))
	for id := range per {
		linkIDs = append(linkIDs, id)
	}
	sort.Strings(linkIDs) // a stable lock order across concurrent writers
	q := "UPDATE links SET clicks = clicks + ?, last_clicked = CASE WHEN last_clicked IS NULL OR last_clicked < ? THEN ? ELSE last_clicked END WHERE id = ?"
	if db.Dialect == "postgres" {
		q = "UPDATE links SET clicks = clicks + $1, last_clicked = CASE WHEN last_clicked IS NULL OR last_clicked < $2 THEN $2 ELSE last_clicked END WHERE id = $3"
	}
	pool := db.Statement.ConnPool
	for _, id := range linkIDs {
		b := per[id]
		var err error
		if db.Dialect == "postgres" {
			_, err = pool.ExecContext(ctx, q, b.n, b.last.UTC(), id)
		} else {
			_, err = pool.ExecContext(ctx, q, b.n, b.last.UTC(), b.last.UTC(), id)
		}
		if err != nil {
			return fmt.Errorf("bump clicks of link %s: %w", id, err)
		}
	}
	for i, h := range hooks {
		if err := h(ctx, db, inserted); err != nil {
			return fmt.Errorf("click hook %d: %w", i, err)
		}
	}
	return nil
}

// CountClicks counts a workspace's stored clicks, optionally for one link
// ("" for all). Tests and the benchmark use it.
func (db *DB) CountClicks(ctx context.Context, workspaceID, linkID string) (int64, error) {
	q := db.WithContext(ctx).Model(&Click{}).Where("workspace_id = ?", workspaceID)
	if linkID != "" {
		q = q.Where("link_id = ?", linkID)
	}
	var n int64
	if err := q.Count(&n).Error; err != nil {
		return 0, dbErr(err, "count clicks", "", "")
	}
	return n, nil
}

// ClicksOfLink lists a workspace's clicks on a link, oldest first.
func (db *DB) ClicksOfLink(ctx context.Context, workspaceID, linkID string, limit int) ([]Click, error) {
	var out []Click
	err := db.WithContext(ctx).Where("workspace_id = ? AND link_id = ?", workspaceID, linkID).
		Order("timestamp, click_id").Limit(limit).Find(&out).Error
	return out, dbErr(err, "list clicks", "", "")
}

// InsertSyntheticClick stores one click written by the server itself (the
// click a manual lead or sale commission is attributed to, spec/parity.md §2.3
// step 8) inside the caller's transaction: the row, the link's counters and
// the click aggregates, as RecordClicks does for a batch. With the
// ClickHouse event store on (clickhouse_state.enabled) the click is queued
// in clickhouse_outbox in the same transaction instead of aggregated: the
// outbox job copies it to ClickHouse, whose rollups count it, as the click
// pipeline's clicks are (docs/clickhouse.md, "One copy of each click").
func (db *DB) InsertSyntheticClick(ctx context.Context, c Click) error {
	if err := db.WithContext(ctx).Create(&c).Error; err != nil {
		return dbErr(err, "insert synthetic click", "", "")
	}
	hook, err := db.ClickAggregation(ctx)
	if err != nil {
		return err
	}
	return db.afterInsert(ctx, []Click{c}, []ClickHook{hook})
}

// ClickAggregation is the hook for clicks the server writes outside the
// click pipeline (a manual commission's synthetic click, imported clicks):
// AggregateClicks, or, with the ClickHouse event store on
// (clickhouse_state.enabled), QueueClicksForClickHouse — the click is
// counted by ClickHouse's rollups, not in SQL.
func (db *DB) ClickAggregation(ctx context.Context) (ClickHook, error) {
	var enabled []bool
	if err := db.WithContext(ctx).Raw("SELECT enabled FROM clickhouse_state WHERE id = 1").Scan(&enabled).Error; err != nil {
		return nil, dbErr(err, "read the event store's state", "", "")
	}
	if len(enabled) == 1 && enabled[0] {
		return QueueClicksForClickHouse, nil
	}
	return AggregateClicks, nil
}

// QueueClicksForClickHouse is the ClickHook that queues the inserted clicks
// in clickhouse_outbox (kind click), in the batch's transaction; the
// "clickhouse outbox" job copies them to ClickHouse.
func QueueClicksForClickHouse(ctx context.Context, tx *DB, inserted []Click) error {
	const rows = 500
	for start := 0; start < len(inserted); start += rows {
		chunk := inserted[start:min(start+rows, len(inserted))]
		q := "INSERT INTO clickhouse_outbox (kind, event_id) VALUES " + strings.Repeat("('click', ?),", len(chunk)-1) + "('click', ?)"
		args := make([]any, len(chunk))
		for i := range chunk {
			args[i] = chunk[i].ClickID
		}
		if err := tx.WithContext(ctx).Exec(q, args...).Error; err != nil {
			return dbErr(err, "queue clicks for clickhouse", "", "")
		}
	}
	return nil
}
