package models

// SQLiteHandleFound says whether the click insert's C-API path recognises
// dc (a driver connection from Conn.Raw).
func SQLiteHandleFound(dc any) bool {
	_, _, ok := sqliteHandle(dc)
	return ok
}
