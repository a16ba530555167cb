package models

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"gorm.io/gorm"
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The click insert on SQLite through one prepared statement (issue 35).
//
// The driver (glebarez/go-sqlite) prepares every statement again at every
// execution and binds parameters in O(n²), so RecordClicks used to write
// 100-row INSERTs of SQL literals: per click about 7 µs building the text,
// 9 µs SQLite parsing it and 8 µs executing it (bench/README.md, "The cost
// of a stored click"). Here the batch's connection is reached through
// database/sql's Conn.Raw, and the statement is prepared once per batch
// through SQLite's C API (the same modernc.org/sqlite/lib the driver
// calls), bound, stepped and reset per click: the parse and the text go.
// The driver's connection keeps its handle in unexported fields, read by
// reflection with their types checked; with any other driver (or version
// whose fields differ) sqliteHandle says no and the literal path runs.

// sqliteClickInsert is the one-row statement; a click id already stored is
// skipped (sqlite3_changes says whether the row went in).
var sqliteClickInsert = func() string {
	return "INSERT INTO clicks (" + strings.Join(ClickColumns, ", ") + ") VALUES (?" +
		strings.Repeat(",?", len(ClickColumns)-1) + ") ON CONFLICT (click_id) DO NOTHING"
}()

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
	slots    []cslot  // the text parameters' buffers, by value index
	prev     []string // the values bound to them (before text)
	prevInt  []int64  // the integers bound (by index in ints)
	bound    bool     // a row was bound (prev and prevInt hold it)
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

func prepareC(db uintptr, tls *libc.TLS, q string) (*cstmt, error) {
	s := &cstmt{db: db, tls: tls}
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

// insertRow binds c and steps the insert; it reports whether the row went
// in (false: its click id was stored already).
func (s *cstmt) insertRow(c *Click) (bool, error) {
	var ts [40]byte
	strs := [...]string{c.ClickID, string(c.Timestamp.UTC().AppendFormat(ts[:0], SQLiteTimeLayout)),
		c.WorkspaceID, c.LinkID, c.Domain, c.Key, c.URL,
		c.IdentityHash, c.IP, c.Continent, c.Country, c.Region, c.City, c.Latitude, c.Longitude,
		c.Device, c.DeviceVendor, c.DeviceModel, c.Browser, c.BrowserVersion, c.Engine, c.EngineVersion,
		c.OS, c.OSVersion, c.CPUArchitecture, c.UA,
		c.Trigger, c.Referer, c.RefererURL, c.UTMSource, c.UTMMedium, c.UTMCampaign, c.UTMTerm, c.UTMContent}
	// ClickColumns order: the two booleans sit between UA and trigger.
	ints := [...]colInt{{27, b2i(c.Bot)}, {28, b2i(c.QR)}}
	return s.bindStep(strs[:], clickTextCol, ints[:])
}

// clickTextCol is the column of insertRow's i-th text value.
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

// bindStep binds strs as text (made storable, text) to the columns col
// gives them and ints to theirs — those that differ from the previous
// row's — steps the one-row insert and reports whether the row went in
// (false: its key was stored already). A statement binds one shape of row:
// the same number of strs and the same ints' columns every time.
func (s *cstmt) bindStep(strs []string, col func(i int) int32, ints []colInt) (bool, error) {
	if s.slots == nil {
		s.slots, s.prev, s.prevInt = make([]cslot, len(strs)), make([]string, len(strs)), make([]int64, len(ints))
	}
	for i, v := range strs {
		if s.bound && v == s.prev[i] {
			continue // still bound, its buffer unchanged
		}
		t := text(v)
		p, err := s.slot(i, t)
		if err != nil {
			return false, err
		}
		if rc := sqlite3.Xsqlite3_bind_text(s.tls, s.stmt, col(i), p, int32(len(t)), 0); rc != sqlite3.SQLITE_OK {
			s.bound = false // bind everything again next time
			return false, s.err("bind click", rc)
		}
		s.prev[i] = v
	}
	for i, x := range ints {
		if s.bound && x.v == s.prevInt[i] {
			continue
		}
		if rc := sqlite3.Xsqlite3_bind_int64(s.tls, s.stmt, x.col, x.v); rc != sqlite3.SQLITE_OK {
			s.bound = false
			return false, s.err("bind click", rc)
		}
		s.prevInt[i] = x.v
	}
	s.bound = true
	rc := sqlite3.Xsqlite3_step(s.tls, s.stmt)
	if rc != sqlite3.SQLITE_DONE {
		err := s.err("insert click", rc)
		sqlite3.Xsqlite3_reset(s.tls, s.stmt)
		return false, err
	}
	in := sqlite3.Xsqlite3_changes(s.tls, s.db) == 1
	if rc := sqlite3.Xsqlite3_reset(s.tls, s.stmt); rc != sqlite3.SQLITE_OK {
		return false, s.err("reset click insert", rc)
	}
	return in, nil
}

// insertClicksC stores the batch's new clicks through one prepared
// statement on the driver connection dc (in its open transaction) and
// returns them; ok is false when dc is not the SQLite driver's connection.
func insertClicksC(dc any, batch []Click) (inserted []Click, ok bool, err error) {
	return insertEachC(dc, batch, sqliteClickInsert, "insert clicks", (*cstmt).insertRow)
}

// insertEachC stores the batch through the one-row statement query
// prepared on the SQLite driver connection dc, row binding and stepping a
// click, and returns the clicks that went in; ok is false when dc is not
// the SQLite driver's connection.
func insertEachC(dc any, batch []Click, query, what string, row func(*cstmt, *Click) (bool, error)) (inserted []Click, ok bool, err error) {
	db, tls, ok := sqliteHandle(dc)
	if !ok {
		return nil, false, nil
	}
	s, err := prepareC(db, tls, query)
	if err != nil {
		return nil, true, err
	}
	defer s.close()
	kept := make(map[string]bool, len(batch))
	for i := range batch {
		in, err := row(s, &batch[i])
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", what, err)
		}
		if in {
			kept[batch[i].ClickID] = true
		}
	}
	return KeepClicks(batch, kept), true, nil
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

// writerTx begins a transaction on the kept connection when it is free,
// else on a pooled one. release(ok) ends the connection's part: the kept
// one is kept after a committed batch and closed after a failed one (its
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
		k.conn.Close()
		k.conn = nil
		k.mu.Unlock()
		return nil, nil, nil, fmt.Errorf("begin: %w", err)
	}
	conn := k.conn
	return conn, tx, func(ok bool) {
		if !ok {
			k.conn.Close()
			k.conn = nil
		}
		k.mu.Unlock()
	}, nil
}

// close closes the kept connection (DB.Close), waiting for a batch on it.
func (k *keptConn) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conn != nil {
		k.conn.Close()
		k.conn = nil
	}
}
