package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The attribution table (migration 01980, docs/clickhouse.md "One copy of
// each click"). With the ClickHouse event store on, the click pipeline
// stores a click in ClickHouse and, in SQL, only what a lead or sale copies
// from the click it is attributed to, for the attribution window: the
// click id, time, workspace and link and the ClickAttrs, in
// attribution_clicks, keyed (workspace_id, day, click_id) with no other
// index (on SQLite WITHOUT ROWID: one B-tree per row instead of the clicks
// table's four). Every read of a click for attribution looks here first
// and then in clicks, which still holds the clicks stored before the
// table existed (the slim rows of earlier releases, trimmed as before) and
// the clicks written outside the pipeline (InsertSyntheticClick, imports).

// AttributionTable is the attribution table's name.
const AttributionTable = "attribution_clicks"

// AttributionColumns is the column order of the attribution table's batch
// inserts (appendAttrCopyRow and insertAttrRow match it).
var AttributionColumns = []string{"workspace_id", "day", "click_id", "timestamp", "link_id", "domain", "key", "url",
	"ip", "continent", "country", "region", "city", "latitude", "longitude",
	"device", "device_vendor", "device_model", "browser", "browser_version", "engine", "engine_version",
	"os", "os_version", "cpu_architecture", "ua", "bot", "qr", "trigger", "referer", "referer_url",
	"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"}

// AttributionSelect is the attribution table's columns read back into a
// Click.
var AttributionSelect = strings.Join(append([]string{"timestamp", "workspace_id", "click_id"}, AttributionColumns[4:]...), ", ")

// ClickDay is the attribution table's day of t: whole UTC days since
// 1970-01-01.
func ClickDay(t time.Time) int64 {
	s := t.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return d
}

// clickTable is a table the click writers insert batches into.
type clickTable struct {
	name          string
	columns       []string
	key           string // the conflict target: the primary key
	attribution   bool
	appendCopyRow func([]byte, *Click) []byte
	// before, when set, runs first in the batch's transaction and returns
	// the clicks to insert.
	before func(ctx context.Context, tx *DB, batch []Click) ([]Click, error)
	// SQLite: insertC steps one prepared statement per click on the
	// driver's connection (ok false: another driver), insertBound binds
	// through database/sql.
	insertC     func(dc any, batch []Click) (inserted []Click, ok bool, err error)
	insertBound func(ctx context.Context, tx *DB, batch []Click) ([]Click, error)
}

var clicksTable = clickTable{name: "clicks", columns: ClickColumns, key: "click_id", appendCopyRow: appendCopyRow,
	insertC: insertClicksC, insertBound: func(ctx context.Context, tx *DB, batch []Click) ([]Click, error) {
		return tx.InsertClicksSQLite(ctx, batch)
	}}

var attributionTable = clickTable{name: AttributionTable, columns: AttributionColumns, key: "workspace_id, day, click_id",
	attribution: true, appendCopyRow: appendAttrCopyRow, before: skipStored, insertC: insertAttrC, insertBound: insertAttrBound}

// RecordAttributionClicks is RecordClicks for the ClickHouse event store's
// SQL side: the batch's clicks whose ids are new go into the attribution
// table (no identity hash), then the links' counters and the hooks, in one
// transaction; it returns how many were new. A click already stored is
// skipped: in the attribution table by its key (a retried batch) or under
// the day before (a repeated click id across midnight), or in clicks by an
// earlier release, which wrote the slim rows there: a journal written
// before the upgrade and replayed after it counts no click twice
// (skipStored).
func (db *DB) RecordAttributionClicks(ctx context.Context, batch []Click, hooks ...ClickHook) (int, error) {
	if len(batch) == 0 {
		return 0, nil
	}
	var inserted []Click
	var err error
	if db.Dialect == "postgres" {
		inserted, err = db.recordClicksPostgres(ctx, &attributionTable, batch, hooks)
	} else {
		inserted, err = db.recordClicksSQLite(ctx, &attributionTable, batch, hooks)
	}
	if err != nil {
		return 0, fmt.Errorf("record %d attribution clicks: %w", len(batch), err)
	}
	return len(inserted), nil
}

// clickRepeatHorizon bounds how long after a click its id can come again:
// the redirect's cookie keeps a visitor's click id for an hour
// (handlers/redirect), doubled for the clocks of several instances.
const clickRepeatHorizon = 2 * time.Hour

// skipStored drops from batch the clicks already stored, which the
// attribution table's key alone does not catch:
//   - a click id repeated inside the batch (the first stays, as in clicks);
//   - a click id the attribution table holds under the previous day: a
//     repeat (the cookie's id, within clickRepeatHorizon) that crossed UTC
//     midnight has another key; looked up only for the clicks within
//     clickRepeatHorizon of their day's start, one key probe each, and
//     only when that day has rows (one probe per workspace and day);
//   - a click the clicks table holds (skipStoredInClicks).
func skipStored(ctx context.Context, tx *DB, batch []Click) ([]Click, error) {
	type wsDay struct {
		ws  string
		day int64
	}
	// The days before the batch's first hours that have rows: usually
	// none or one.
	if len(batch) == 0 {
		return batch, nil
	}
	check := map[wsDay]bool{}
	var last wsDay
	for i := range batch {
		c := &batch[i]
		d := ClickDay(c.Timestamp)
		if c.Timestamp.Sub(time.Unix(d*86400, 0)) >= clickRepeatHorizon {
			continue
		}
		k := wsDay{c.WorkspaceID, d - 1}
		if k == last {
			continue
		}
		last = k
		if _, ok := check[k]; ok {
			continue
		}
		var some []int
		if err := tx.WithContext(ctx).Raw("SELECT 1 FROM "+AttributionTable+" WHERE workspace_id = ? AND day = ? LIMIT 1", k.ws, k.day).
			Scan(&some).Error; err != nil {
			return nil, fmt.Errorf("clicks stored the day before: %w", err)
		}
		check[k] = len(some) > 0
	}
	for k, has := range check {
		if !has {
			delete(check, k)
		}
	}
	// A click id repeated inside the batch on the same day has the same key
	// (the insert skips it); only a batch across midnight needs the ids.
	lo, hi := ClickDay(batch[0].Timestamp), ClickDay(batch[0].Timestamp)
	for i := range batch {
		d := ClickDay(batch[i].Timestamp)
		lo, hi = min(lo, d), max(hi, d)
	}
	var seen map[string]bool
	if lo != hi {
		seen = make(map[string]bool, len(batch))
	}
	prev := map[wsDay][]string{}
	repeats := 0
	for i := range batch {
		c := &batch[i]
		if seen != nil {
			if seen[c.ClickID] {
				repeats++
				continue
			}
			seen[c.ClickID] = true
		}
		if len(check) == 0 {
			continue
		}
		d := ClickDay(c.Timestamp)
		if k := (wsDay{c.WorkspaceID, d - 1}); check[k] && c.Timestamp.Sub(time.Unix(d*86400, 0)) < clickRepeatHorizon {
			prev[k] = append(prev[k], c.ClickID)
		}
	}
	stored := map[string]bool{}
	for k, ids := range prev {
		if err := tx.storedOnDay(ctx, k.ws, k.day, ids, stored); err != nil {
			return nil, fmt.Errorf("clicks stored the day before: %w", err)
		}
	}
	if repeats > 0 || len(stored) > 0 {
		// Copied only when a click goes (a Click is ~600 bytes).
		out := make([]Click, 0, len(batch)-repeats-len(stored))
		kept := make(map[string]bool, len(batch))
		for i := range batch {
			if id := batch[i].ClickID; !stored[id] && !kept[id] {
				kept[id] = true
				out = append(out, batch[i])
			}
		}
		batch = out
	}
	return skipStoredInClicks(ctx, tx, batch)
}

// storedOnDay adds to stored which of ids the attribution table holds
// under the workspace's day, in one statement: the ids as one array
// parameter on PostgreSQL, as literals on SQLite (whose driver binds
// parameters in O(n²)).
func (db *DB) storedOnDay(ctx context.Context, ws string, day int64, ids []string, stored map[string]bool) error {
	pool := db.Statement.ConnPool
	q := "SELECT click_id FROM " + AttributionTable + " WHERE workspace_id = $1 AND day = $2 AND click_id = ANY($3)"
	args := []any{ws, day, ids}
	if db.Dialect != "postgres" {
		var b strings.Builder
		b.WriteString("SELECT click_id FROM " + AttributionTable + " WHERE workspace_id = ")
		WriteSQLiteString(&b, ws)
		fmt.Fprintf(&b, " AND day = %d AND click_id IN (%s)", day, sqliteList(ids))
		q, args = b.String(), nil
	}
	return CollectIDs(pool.QueryContext(ctx, q, args...))(stored)
}

// sqliteList is ids as a comma-separated list of SQLite string literals.
func sqliteList(ids []string) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		WriteSQLiteString(&b, id)
	}
	return b.String()
}

// skipStoredInClicks drops from batch the clicks the clicks table holds.
// Only a click no newer than its workspace's newest row in clicks can be
// there, so the ids are looked up only for those (in one statement, as
// storedOnDay): one index seek per workspace of the batch, and, for live
// clicks (newer than anything an earlier release wrote), nothing more.
func skipStoredInClicks(ctx context.Context, tx *DB, batch []Click) ([]Click, error) {
	if len(batch) == 0 {
		return batch, nil
	}
	newest := map[string]time.Time{}
	last := ""
	for i := range batch {
		ws := batch[i].WorkspaceID
		if i > 0 && ws == last {
			continue
		}
		last = ws
		if _, ok := newest[ws]; ok {
			continue
		}
		var ts []time.Time
		// ORDER BY … LIMIT 1 rather than MAX(): the column keeps its type
		// (SQLite returns MAX of a DATETIME as text).
		if err := tx.WithContext(ctx).Raw("SELECT timestamp FROM clicks WHERE workspace_id = ? ORDER BY timestamp DESC LIMIT 1", ws).
			Scan(&ts).Error; err != nil {
			return nil, fmt.Errorf("newest click in clicks: %w", err)
		}
		newest[ws] = time.Time{}
		if len(ts) == 1 {
			newest[ws] = ts[0]
		}
	}
	var maybe []string
	for ws, n := range newest {
		if n.IsZero() {
			continue
		}
		for i := range batch {
			if batch[i].WorkspaceID == ws && !batch[i].Timestamp.After(n) {
				maybe = append(maybe, batch[i].ClickID)
			}
		}
	}
	if len(maybe) == 0 {
		return batch, nil
	}
	stored := map[string]bool{}
	q, args := "SELECT click_id FROM clicks WHERE click_id = ANY($1)", []any{maybe}
	if tx.Dialect != "postgres" {
		q, args = "SELECT click_id FROM clicks WHERE click_id IN ("+sqliteList(maybe)+")", nil
	}
	if err := CollectIDs(tx.Statement.ConnPool.QueryContext(ctx, q, args...))(stored); err != nil {
		return nil, fmt.Errorf("clicks stored in clicks: %w", err)
	}
	if len(stored) == 0 {
		return batch, nil
	}
	out := make([]Click, 0, len(batch)-len(stored))
	for i := range batch {
		if !stored[batch[i].ClickID] {
			out = append(out, batch[i])
		}
	}
	return out, nil
}

// appendAttrCopyRow appends c as one line of COPY's text format in
// AttributionColumns order (appendCopyRow's escaping).
func appendAttrCopyRow(b []byte, c *Click) []byte {
	b = appendCopyText(b, c.WorkspaceID)
	b = append(b, '\t')
	b = strconv.AppendInt(b, ClickDay(c.Timestamp), 10)
	b = append(b, '\t')
	b = appendCopyText(b, c.ClickID)
	b = append(b, '\t')
	b = c.Timestamp.UTC().AppendFormat(b, pgCopyTimeLayout)
	for _, s := range [...]string{c.LinkID, c.Domain, c.Key, c.URL} {
		b = append(b, '\t')
		b = appendCopyText(b, s)
	}
	return appendCopyAttrs(b, c)
}

// attrShape is the attribution table's SQLite insert (insertEachC); its
// skip statement is also insertAttrBound's.
var attrShape = newClickShape("insert attribution clicks", AttributionTable, AttributionColumns,
	"ON CONFLICT (workspace_id, day, click_id) DO NOTHING", (*cstmt).bindAttr)

// bindAttr binds c in AttributionColumns order as the statement's row r.
func (s *cstmt) bindAttr(r int, c *Click) error {
	var ts [40]byte
	// Every text column, in order; day (2), bot (27) and qr (28) are
	// bound as integers.
	strs := [...]string{c.WorkspaceID, c.ClickID, string(c.Timestamp.UTC().AppendFormat(ts[:0], SQLiteTimeLayout)),
		c.LinkID, c.Domain, c.Key, c.URL,
		c.IP, c.Continent, c.Country, c.Region, c.City, c.Latitude, c.Longitude,
		c.Device, c.DeviceVendor, c.DeviceModel, c.Browser, c.BrowserVersion, c.Engine, c.EngineVersion,
		c.OS, c.OSVersion, c.CPUArchitecture, c.UA,
		c.Trigger, c.Referer, c.RefererURL, c.UTMSource, c.UTMMedium, c.UTMCampaign, c.UTMTerm, c.UTMContent}
	ints := [...]colInt{{2, ClickDay(c.Timestamp)}, {27, b2i(c.Bot)}, {28, b2i(c.QR)}}
	return s.bindRow(r, strs[:], attrTextCol, ints[:])
}

// attrTextCol is the column of bindAttr's i-th text value.
func attrTextCol(i int) int32 {
	switch {
	case i == 0:
		return 1
	case i < 25:
		return int32(i + 2) // after day
	default:
		return int32(i + 4) // after day, bot and qr
	}
}

// insertAttrC stores the batch's new clicks in the attribution table
// through prepared statements (insertEachC) on the SQLite driver connection dc;
// ok is false when dc is not the SQLite driver's connection.
func insertAttrC(dc any, batch []Click) (inserted []Click, ok bool, err error) {
	return insertEachC(dc, batch, &attrShape)
}

// insertAttrBound is insertAttrC through database/sql, one bound insert per
// click (any other SQLite driver).
func insertAttrBound(ctx context.Context, tx *DB, batch []Click) ([]Click, error) {
	kept := make(map[string]bool, len(batch))
	for i := range batch {
		c := &batch[i]
		t := text
		res, err := tx.Statement.ConnPool.ExecContext(ctx, attrShape.skip, t(c.WorkspaceID), ClickDay(c.Timestamp), t(c.ClickID),
			c.Timestamp.UTC(), t(c.LinkID), t(c.Domain), t(c.Key), t(c.URL),
			t(c.IP), t(c.Continent), t(c.Country), t(c.Region), t(c.City), t(c.Latitude), t(c.Longitude),
			t(c.Device), t(c.DeviceVendor), t(c.DeviceModel), t(c.Browser), t(c.BrowserVersion), t(c.Engine), t(c.EngineVersion),
			t(c.OS), t(c.OSVersion), t(c.CPUArchitecture), t(c.UA), c.Bot, c.QR, t(c.Trigger), t(c.Referer), t(c.RefererURL),
			t(c.UTMSource), t(c.UTMMedium), t(c.UTMCampaign), t(c.UTMTerm), t(c.UTMContent))
		if err != nil {
			return nil, fmt.Errorf("insert attribution click: %w", err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			kept[c.ClickID] = true
		}
	}
	return KeepClicks(batch, kept), nil
}

// maxProbeDays bounds the days AttributionClick probes one by one; a
// longer span (a workspace whose rows outlived the window: the event
// store was turned off) is read as one range.
const maxProbeDays = 1000

// attributionLookup finds a click by id in the workspace's rows of the
// attribution table at or after since (zero: any). The key leads with the
// day, so the id is looked up once per day the workspace has rows in
// (from the later of since's day and its oldest day to its newest): about
// 90 index probes for the default window.
func (db *DB) attributionLookup(ctx context.Context, workspaceID, clickID string, since time.Time) (*Click, error) {
	var span []struct{ Lo, Hi *int64 }
	q := "SELECT (SELECT MIN(day) FROM " + AttributionTable + " WHERE workspace_id = ?) AS lo, (SELECT MAX(day) FROM " + AttributionTable + " WHERE workspace_id = ?) AS hi"
	if err := db.WithContext(ctx).Raw(q, workspaceID, workspaceID).Scan(&span).Error; err != nil {
		return nil, fmt.Errorf("attribution days: %w", err)
	}
	if len(span) != 1 || span[0].Lo == nil || span[0].Hi == nil {
		return nil, nil
	}
	lo, hi := *span[0].Lo, *span[0].Hi
	if !since.IsZero() {
		lo = max(lo, ClickDay(since))
	}
	if lo > hi {
		return nil, nil
	}
	r := db.WithContext(ctx).Table(AttributionTable).Select(AttributionSelect).Where("workspace_id = ?", workspaceID)
	if hi-lo+1 <= maxProbeDays {
		days := make([]int64, 0, hi-lo+1)
		for d := lo; d <= hi; d++ {
			days = append(days, d)
		}
		r = r.Where("day IN ?", days)
	} else {
		r = r.Where("day >= ? AND day <= ?", lo, hi)
	}
	r = r.Where("click_id = ?", clickID)
	if !since.IsZero() {
		r = r.Where("timestamp >= ?", since.UTC())
	}
	var cs []Click
	if err := r.Limit(1).Scan(&cs).Error; err != nil {
		return nil, fmt.Errorf("attribution click: %w", err)
	}
	if len(cs) == 0 {
		return nil, nil
	}
	return &cs[0], nil
}

// DeleteAttributionBefore deletes up to limit of the workspace's rows of
// the attribution table older than before (whole days first, then the
// cut's day) and says how many went.
func (db *DB) DeleteAttributionBefore(ctx context.Context, workspaceID string, before time.Time, limit int) (int64, error) {
	res := db.WithContext(ctx).Exec(`DELETE FROM `+AttributionTable+` WHERE (workspace_id, day, click_id) IN (
		SELECT workspace_id, day, click_id FROM `+AttributionTable+` WHERE workspace_id = ? AND day <= ? AND timestamp < ?
		ORDER BY day, click_id LIMIT ?)`, workspaceID, ClickDay(before), before.UTC(), limit)
	return res.RowsAffected, dbErr(res.Error, "delete old attribution clicks", "", "")
}

// DeleteAttributionClicks deletes the workspace's rows of the attribution
// table of day whose ids are given and says how many went (the trim).
func (db *DB) DeleteAttributionClicks(ctx context.Context, workspaceID string, day int64, ids []string) (int64, error) {
	res := db.WithContext(ctx).Exec("DELETE FROM "+AttributionTable+" WHERE workspace_id = ? AND day = ? AND click_id IN ?", workspaceID, day, ids)
	return res.RowsAffected, dbErr(res.Error, "delete attribution clicks", "", "")
}
