package models

import "database/sql"

// SQLiteHandleFound says whether the click insert's C-API path recognises
// dc (a driver connection from Conn.Raw).
func SQLiteHandleFound(dc any) bool {
	_, _, ok := sqliteHandle(dc)
	return ok
}

// WriterConn is the SQLite click writer's kept connection (nil: none yet,
// or dropped after a failed batch).
func WriterConn(db *DB) *sql.Conn {
	if db.writer == nil {
		return nil
	}
	db.writer.mu.Lock()
	defer db.writer.mu.Unlock()
	return db.writer.conn
}

// HoldWriter takes the kept connection as a concurrent batch would; the
// returned function gives it back.
func HoldWriter(db *DB) func() {
	db.writer.mu.Lock()
	return db.writer.mu.Unlock
}

// ChunkFallbacks is how many SQLite click batches fell back from the
// chunked insert to the row-by-row one.
func ChunkFallbacks() int64 { return chunkFallbacks.Load() }
