package models

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"gorm.io/gorm"
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The click insert on SQLite through prepared statements (issue 35).
//
// The driver (glebarez/go-sqlite) prepares every statement again at every
// execution and binds parameters in O(n²), so RecordClicks used to write
// 100-row INSERTs of SQL literals: per click about 7 µs building the text,
// 9 µs SQLite parsing it and 8 µs executing it (bench/README.md, "The cost
// of a stored click"). Here the batch's connection is reached through
// database/sql's Conn.Raw, and the statements are prepared once per batch
// through SQLite's C API (the same modernc.org/sqlite/lib the driver
// calls), bound, stepped and reset per chunkRows clicks (insertEachC): the
// parse and the text go.
// The driver's connection keeps its handle in unexported fields, read by
// reflection with their types checked; with any other driver (or version
// whose fields differ) sqliteHandle says no and the literal path runs.

// insertRows is an INSERT of rows rows of columns' values into table, with
// no conflict clause.
func insertRows(table string, columns []string, rows int) string {
	row := "(?" + strings.Repeat(",?", len(columns)-1) + ")"
	return "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES " + row + strings.Repeat(","+row, rows-1)
}

// chunkRows is how many rows one multi-row insert carries (insertEachC):
// SQLite runs a statement's setup (its cursors on the table and each
// index, their teardown, the reset) once per step, so 16 rows a step share
// it.
const chunkRows = 16

// clickShape is the SQLite insert of one click table: its one-row
// statement that skips a stored key (ON CONFLICT … DO NOTHING), the same
// without the clause for one and for chunkRows rows (insertEachC's fast
// path), its column count, and how a row's values are bound at a row
// offset.
type clickShape struct {
	what            string
	skip, one, many string
	columns         int32
	bind            func(s *cstmt, r int, c *Click) error
}

// newClickShape is the clickShape of table's columns; conflict is the
// clause that skips a stored key.
func newClickShape(what, table string, columns []string, conflict string, bind func(s *cstmt, r int, c *Click) error) clickShape {
	one := insertRows(table, columns, 1)
	return clickShape{what: what, skip: one + " " + conflict, one: one, many: insertRows(table, columns, chunkRows),
		columns: int32(len(columns)), bind: bind}
}

// clicksShape is the clicks table's: a click id already stored is skipped
// (sqlite3_changes says whether the row went in).
var clicksShape = newClickShape("insert clicks", "clicks", ClickColumns, "ON CONFLICT (click_id) DO NOTHING", (*cstmt).bindClick)

// cptr is the address p of SQLite's memory (allocated by its C allocator,
// outside the Go heap) as a pointer.
func cptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }

var tlsType = reflect.TypeOf((*libc.TLS)(nil))

// sqliteHandle returns the database handle and thread state of a
// glebarez/go-sqlite driver connection (what Conn.Raw hands out), or ok
// false when dc is not one.
func sqliteHandle(dc any) (db uintptr, tls *libc.TLS, ok bool) {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return 0, nil, false
	}
	e := v.Elem()
	if e.Type().PkgPath() != "github.com/glebarez/go-sqlite" || e.Type().Name() != "conn" {
		return 0, nil, false
	}
	f, g := e.FieldByName("db"), e.FieldByName("tls")
	if !f.IsValid() || f.Kind() != reflect.Uintptr || !g.IsValid() || g.Type() != tlsType {
		return 0, nil, false
	}
	db = *(*uintptr)(unsafe.Pointer(f.UnsafeAddr()))
	tls = *(**libc.TLS)(unsafe.Pointer(g.UnsafeAddr()))
	return db, tls, db != 0 && tls != nil
}

// cstmt is a statement prepared through the C API, with a C buffer per
// text parameter that it points into (bound SQLITE_STATIC: valid until
// that parameter's next bind, which rewrites its buffer first). SQLite
// keeps bindings across sqlite3_reset, so a parameter whose value is the
// previous row's is not bound again (bindStep): in a batch most columns
// repeat (the workspace, the link, its domain, key and URL, the defaults).
type cstmt struct {
	db, stmt uintptr
	tls      *libc.TLS
	columns  int32    // parameters per row: row r's column k is r*columns+k
	slots    []cslot  // the text parameters' buffers, by row and value index
	prev     []string // the values bound to them (before text)
	prevInt  []int64  // the integers bound (by row and index in ints)
	bound    []bool   // by row: a row was bound there (prev and prevInt hold it)
}

// cslot is one text parameter's C buffer.
type cslot struct {
	p    uintptr
	size int
}

func (s *cstmt) err(what string, rc int32) error {
	return fmt.Errorf("%s: %s (%d)", what, libc.GoString(sqlite3.Xsqlite3_errmsg(s.tls, s.db)), rc)
}

func (s *cstmt) malloc(n int) (uintptr, error) {
	p := sqlite3.Xsqlite3_malloc64(s.tls, uint64(n))
	if p == 0 {
		return 0, fmt.Errorf("sqlite: cannot allocate %d bytes", n)
	}
	return p, nil
}

func prepareC(db uintptr, tls *libc.TLS, q string, columns int32) (*cstmt, error) {
	s := &cstmt{db: db, tls: tls, columns: columns}
	zsql, err := s.malloc(len(q) + 1 + 8)
	if err != nil {
		return nil, err
	}
	defer sqlite3.Xsqlite3_free(tls, zsql)
	b := unsafe.Slice((*byte)(cptr(zsql)), len(q)+1)
	copy(b, q)
	b[len(q)] = 0
	pp := zsql + uintptr(len(q)+1) // room for the statement pointer
	if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, zsql, int32(len(q)), pp, 0); rc != sqlite3.SQLITE_OK {
		return nil, s.err("prepare click insert", rc)
	}
	s.stmt = *(*uintptr)(cptr(pp))
	return s, nil
}

func (s *cstmt) close() {
	if s.stmt != 0 {
		sqlite3.Xsqlite3_finalize(s.tls, s.stmt)
	}
	for _, sl := range s.slots {
		if sl.p != 0 {
			sqlite3.Xsqlite3_free(s.tls, sl.p)
		}
	}
}

// slot is text parameter i's buffer holding v (never a null pointer, which
// would bind NULL: at least 32 bytes).
func (s *cstmt) slot(i int, v string) (uintptr, error) {
	sl := &s.slots[i]
	if len(v) > sl.size || sl.p == 0 {
		n := max(len(v), 2*sl.size, 32)
		p, err := s.malloc(n)
		if err != nil {
			return 0, err
		}
		if sl.p != 0 {
			sqlite3.Xsqlite3_free(s.tls, sl.p)
		}
		sl.p, sl.size = p, n
	}
	copy(unsafe.Slice((*byte)(cptr(sl.p)), sl.size), v)
	return sl.p, nil
}

// bindClick binds c as the statement's row r.
func (s *cstmt) bindClick(r int, c *Click) error {
	var ts [40]byte
	strs := [...]string{c.ClickID, string(c.Timestamp.UTC().AppendFormat(ts[:0], SQLiteTimeLayout)),
		c.WorkspaceID, c.LinkID, c.Domain, c.Key, c.URL,
		c.IdentityHash, c.IP, c.Continent, c.Country, c.Region, c.City, c.Latitude, c.Longitude,
		c.Device, c.DeviceVendor, c.DeviceModel, c.Browser, c.BrowserVersion, c.Engine, c.EngineVersion,
		c.OS, c.OSVersion, c.CPUArchitecture, c.UA,
		c.Trigger, c.Referer, c.RefererURL, c.UTMSource, c.UTMMedium, c.UTMCampaign, c.UTMTerm, c.UTMContent}
	// ClickColumns order: the two booleans sit between UA and trigger.
	ints := [...]colInt{{27, b2i(c.Bot)}, {28, b2i(c.QR)}}
	return s.bindRow(r, strs[:], clickTextCol, ints[:])
}

// clickTextCol is the column of bindClick's i-th text value.
func clickTextCol(i int) int32 {
	if i >= 26 {
		return int32(i + 3)
	}
	return int32(i + 1)
}

// colInt is an integer bound to a column (1-based).
type colInt struct {
	col int32
	v   int64
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// bindRow binds strs as text (made storable, text) to the columns col
// gives them and ints to theirs, in the statement's row r — those that
// differ from the values bound there before. A statement binds one shape
// of row: the same number of strs and the same ints' columns every time.
func (s *cstmt) bindRow(r int, strs []string, col func(i int) int32, ints []colInt) error {
	if s.bound == nil {
		rows := int(sqlite3.Xsqlite3_bind_parameter_count(s.tls, s.stmt)) / int(s.columns)
		s.slots, s.prev, s.prevInt = make([]cslot, rows*len(strs)), make([]string, rows*len(strs)), make([]int64, rows*len(ints))
		s.bound = make([]bool, rows)
	}
	bound, base := s.bound[r], int32(r)*s.columns
	s.bound[r] = false // until every value is bound
	for i, v := range strs {
		k := r*len(strs) + i
		if bound && v == s.prev[k] {
			continue // still bound, its buffer unchanged
		}
		t := text(v)
		p, err := s.slot(k, t)
		if err != nil {
			return err
		}
		if rc := sqlite3.Xsqlite3_bind_text(s.tls, s.stmt, base+col(i), p, int32(len(t)), 0); rc != sqlite3.SQLITE_OK {
			return s.err("bind click", rc)
		}
		s.prev[k] = v
	}
	for i, x := range ints {
		k := r*len(ints) + i
		if bound && x.v == s.prevInt[k] {
			continue
		}
		if rc := sqlite3.Xsqlite3_bind_int64(s.tls, s.stmt, base+x.col, x.v); rc != sqlite3.SQLITE_OK {
			return s.err("bind click", rc)
		}
		s.prevInt[k] = x.v
	}
	s.bound[r] = true
	return nil
}

// step runs the bound statement and returns the rows it changed; conflict
// says it stopped on a constraint (a stored key, for the statements without
// a conflict clause), which SQLite rolled back with the statement.
func (s *cstmt) step() (changed int, conflict bool, err error) {
	rc := sqlite3.Xsqlite3_step(s.tls, s.stmt)
	if rc != sqlite3.SQLITE_DONE {
		err := s.err("insert click", rc)
		sqlite3.Xsqlite3_reset(s.tls, s.stmt)
		return 0, rc&0xff == sqlite3.SQLITE_CONSTRAINT, err // extended codes too
	}
	n := int(sqlite3.Xsqlite3_changes(s.tls, s.db))
	if rc := sqlite3.Xsqlite3_reset(s.tls, s.stmt); rc != sqlite3.SQLITE_OK {
		return 0, false, s.err("reset click insert", rc)
	}
	return n, false, nil
}

// execC runs q (no parameters, no rows) on the connection.
func execC(db uintptr, tls *libc.TLS, q string) error {
	s, err := prepareC(db, tls, q, 1)
	if err != nil {
		return err
	}
	defer s.close()
	_, _, err = s.step()
	return err
}

// insertClicksC stores the batch's new clicks through prepared
// statements on the driver connection dc (in its open transaction) and
// returns them; ok is false when dc is not the SQLite driver's connection.
func insertClicksC(dc any, batch []Click) (inserted []Click, ok bool, err error) {
	return insertEachC(dc, batch, &clicksShape)
}

// insertEachC stores the batch through statements prepared on the SQLite
// driver connection dc and returns the clicks that went in; ok is false
// when dc is not the SQLite driver's connection. A batch of new clicks
// (every batch but a replay after a crash) goes in chunkRows rows a step
// with no conflict clause, in a savepoint; a stored key stops that with a
// constraint error, the savepoint is rolled back, and the batch goes in a
// row a step through the statement that skips stored keys (reading each
// row's change count), as every batch did before.
func insertEachC(dc any, batch []Click, sh *clickShape) (inserted []Click, ok bool, err error) {
	db, tls, ok := sqliteHandle(dc)
	if !ok {
		return nil, false, nil
	}
	if len(batch) >= chunkRows {
		all, err := insertChunks(db, tls, batch, sh)
		if err != nil {
			return nil, true, err
		}
		if all {
			return batch, true, nil
		}
	}
	s, err := prepareC(db, tls, sh.skip, sh.columns)
	if err != nil {
		return nil, true, err
	}
	defer s.close()
	kept := make(map[string]bool, len(batch))
	for i := range batch {
		if err := sh.bind(s, 0, &batch[i]); err != nil {
			return nil, true, fmt.Errorf("%s: %w", sh.what, err)
		}
		n, _, err := s.step()
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", sh.what, err)
		}
		if n == 1 {
			kept[batch[i].ClickID] = true
		}
	}
	return KeepClicks(batch, kept), true, nil
}

// insertChunks is insertEachC's fast path: every click of the batch
// inserted, chunkRows rows a step, in a savepoint. all is false (and
// nothing changed) when a key was stored already.
func insertChunks(db uintptr, tls *libc.TLS, batch []Click, sh *clickShape) (all bool, err error) {
	if err := execC(db, tls, "SAVEPOINT clicks_chunks"); err != nil {
		return false, fmt.Errorf("%s: %w", sh.what, err)
	}
	conflict, err := stepChunks(db, tls, batch, sh)
	if err == nil && !conflict {
		if err := execC(db, tls, "RELEASE clicks_chunks"); err != nil {
			return false, fmt.Errorf("%s: %w", sh.what, err)
		}
		return true, nil
	}
	if rerr := execC(db, tls, "ROLLBACK TO clicks_chunks"); rerr != nil {
		return false, fmt.Errorf("%s: %w", sh.what, rerr)
	}
	if rerr := execC(db, tls, "RELEASE clicks_chunks"); rerr != nil {
		return false, fmt.Errorf("%s: %w", sh.what, rerr)
	}
	if conflict {
		chunkFallbacks.Add(1)
		return false, nil
	}
	return false, fmt.Errorf("%s: %w", sh.what, err)
}

// chunkFallbacks counts the batches insertChunks handed back to the
// row-by-row path (a stored or repeated key).
var chunkFallbacks atomic.Int64

// stepChunks inserts the batch chunkRows rows a step (the rest a row a
// step); conflict reports a stored key.
func stepChunks(db uintptr, tls *libc.TLS, batch []Click, sh *clickShape) (conflict bool, err error) {
	for _, q := range []struct {
		sql  string
		rows int
	}{{sh.many, chunkRows}, {sh.one, 1}} {
		n := len(batch) / q.rows * q.rows
		if n == 0 {
			continue
		}
		s, err := prepareC(db, tls, q.sql, sh.columns)
		if err != nil {
			return false, err
		}
		conflict, err := stepRows(s, batch[:n], q.rows, sh.bind)
		s.close()
		if conflict || err != nil {
			return conflict, err
		}
		batch = batch[n:]
	}
	return false, nil
}

// stepRows binds and steps s (rows rows a step) over batch, whose length
// is a multiple of rows.
func stepRows(s *cstmt, batch []Click, rows int, bind func(*cstmt, int, *Click) error) (conflict bool, err error) {
	for i := 0; i < len(batch); i += rows {
		for r := range rows {
			if err := bind(s, r, &batch[i+r]); err != nil {
				return false, err
			}
		}
		n, conflict, err := s.step()
		if conflict {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if n != rows {
			return false, fmt.Errorf("%d of %d rows inserted", n, rows)
		}
	}
	return false, nil
}

// recordClicksSQLite is RecordClicks (RecordAttributionClicks) on SQLite
// into table t: one pooled connection, so the insert can use the driver
// connection (Conn.Raw) and the rest (database/sql, GORM for t.before and
// the hooks) the same transaction.
func (db *DB) recordClicksSQLite(ctx context.Context, t *clickTable, batch []Click, hooks []ClickHook) ([]Click, error) {
	if _, ok := ctx.Deadline(); !ok && db.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, TxTimeoutFactor*db.Timeout)
		defer cancel()
	}
	conn, tx, release, err := db.writerTx(ctx)
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() { release(committed) }()
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	g := db.DB.Session(&gorm.Session{NewDB: true, Context: ctx})
	g.Statement.ConnPool = tx
	txdb := &DB{DB: g, Dialect: db.Dialect, Timeout: db.Timeout}
	if t.before != nil {
		if batch, err = t.before(ctx, txdb, batch); err != nil {
			return nil, err
		}
	}
	var inserted []Click
	if len(batch) > 0 {
		var ok bool
		if rerr := conn.Raw(func(dc any) error {
			inserted, ok, err = t.insertC(dc, batch)
			return err
		}); rerr != nil {
			return nil, rerr
		}
		if !ok {
			if inserted, err = t.insertBound(ctx, txdb, batch); err != nil {
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
	committed = true
	return inserted, nil
}

// keptConn is the SQLite click writer's own connection, kept between
// batches (issue 35). In WAL mode a connection keeps its page cache only
// while no other connection has written since its last transaction: a
// batch on whichever pooled connection came next found its cache stale
// after the previous batch's commit on another one and read every page it
// touched again (the B-trees' right edges, the aggregate rows), about 1 µs
// per click in the redirect benchmark's profile. The kept connection's
// cache survives its own commits. A batch that finds it taken (an import
// writing clicks beside the pipeline) uses a pooled connection as before.
type keptConn struct {
	mu   sync.Mutex
	conn *sql.Conn // nil until the first batch, and after a failed one
}

// drop gives the kept connection back to the pool (a failed batch, Close);
// the next batch takes another.
func (k *keptConn) drop() {
	if k.conn != nil {
		k.conn.Close()
		k.conn = nil
	}
}

// writerTx begins a transaction on the kept connection when it is free,
// else on a pooled one. release(ok) ends the connection's part: the kept
// one is kept after a committed batch and dropped after a failed one (its
// state is not known), a pooled one goes back to the pool.
func (db *DB) writerTx(ctx context.Context) (*sql.Conn, *sql.Tx, func(ok bool), error) {
	k := db.writer
	if k == nil || !k.mu.TryLock() {
		conn, tx, err := db.connTx(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		return conn, tx, func(bool) { conn.Close() }, nil
	}
	if k.conn == nil {
		conn, err := db.SQL().Conn(ctx)
		if err != nil {
			k.mu.Unlock()
			return nil, nil, nil, fmt.Errorf("acquire connection: %w", err)
		}
		k.conn = conn
	}
	tx, err := k.conn.BeginTx(ctx, nil)
	if err != nil {
		k.drop()
		k.mu.Unlock()
		return nil, nil, nil, fmt.Errorf("begin: %w", err)
	}
	conn := k.conn
	return conn, tx, func(ok bool) {
		if !ok {
			k.drop()
		}
		k.mu.Unlock()
	}, nil
}

// close drops the kept connection (DB.Close), waiting for a batch on it.
func (k *keptConn) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.drop()
}
