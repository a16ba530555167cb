package models

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// EventAggregate is one row of the event aggregates (migrations 00300 and
// 00310): the number of events (and Σ sale amount) of one kind in one UTC
// hour (or, for the "@day" and "@week" rollups, one UTC day or ISO week) for
// one value of one dimension. The analytics planner answers from these
// whenever a query's filters allow.
type EventAggregate struct {
	WorkspaceID string    `gorm:"column:workspace_id;primaryKey"`
	Event       string    `gorm:"column:event;primaryKey"` // AggClick | AggLead | AggSale
	Dim         string    `gorm:"column:dim;primaryKey"`
	Hour        time.Time `gorm:"column:hour;primaryKey"`
	Value       string    `gorm:"column:value;primaryKey"`
	Count       int64     `gorm:"column:count"`
	Amount      int64     `gorm:"column:amount"`
}

// TableName pins the table.
func (EventAggregate) TableName() string { return "event_aggregates" }

// Event kinds of the aggregates.
const (
	AggClick = "click"
	AggLead  = "lead"
	AggSale  = "sale"
)

// Aggregate dimensions. DimTotal and DimLink are keyed by nothing and by the
// link id; the others by event columns (AggregateDims).
const (
	DimTotal = "total"
	DimLink  = "link"
)

// DimURLQuery is keyed by the query string of the event's destination URL,
// from its first '?' on (” when it has none; migration 00310): all the
// utm_* groupings need of a URL, with far fewer values than whole URLs.
const DimURLQuery = "url_query"

// URLQuery is an event URL's DimURLQuery value.
func URLQuery(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[i:]
	}
	return ""
}

// URLQuerySQL is URLQuery of the text column col in SQL (both dialects
// count characters, so the cut falls where Go's does). The '?' is spelled
// chr(63) so that it is never taken for a bind parameter.
func URLQuerySQL(dialect, col string) string {
	pos := "strpos(" + col + ", chr(63))"
	if dialect == "sqlite" {
		pos = "instr(" + col + ", char(63))"
	}
	return "(CASE WHEN " + pos + " > 0 THEN substr(" + col + ", " + pos + ") ELSE '' END)"
}

// DaySuffix marks a dimension's daily rollup rows: dim "country@day" holds
// whole UTC days (hour = the day's 00:00 UTC). Queries that are not
// timeseries read whole days from these and only the edges hourly.
const DaySuffix = "@day"

// WeekSuffix marks a dimension's weekly rollup rows (migration 00310): dim
// "link@week" holds whole ISO weeks, Monday 00:00 UTC to the next Monday
// (hour = that Monday). With them a 30-day window reads about four weeks
// and a few days instead of thirty days of rows per value.
const WeekSuffix = "@week"

// FourWeekSuffix marks the four-week rollup rows of ClickHouse's link- and
// URL-keyed rollups (clickhouse migration 01580): dim "url@4week" holds
// four whole ISO weeks, counted from Monday 1970-01-05 00:00 UTC (hour = the
// first Monday; FourWeekStart). A year reads about thirteen of these per
// value instead of 52 weeks. The SQL store has no such rows.
const FourWeekSuffix = "@4week"

// fourWeeks is the length of a four-week block; fourWeekEpoch is the
// Monday its blocks are counted from.
const fourWeeks = 28 * 24 * time.Hour

var fourWeekEpoch = time.Date(1970, 1, 5, 0, 0, 0, 0, time.UTC)

// FourWeekStart returns the start of the four-week block holding t: the
// Monday 00:00 UTC a whole number of 28 days after 1970-01-05 at or before t
// (ClickHouse: intDiv(seconds - 345600, 2419200) * 2419200 + 345600).
func FourWeekStart(t time.Time) time.Time {
	d := t.UTC().Sub(fourWeekEpoch)
	n := d / fourWeeks
	if d%fourWeeks < 0 {
		n--
	}
	return fourWeekEpoch.Add(n * fourWeeks)
}

// DayStart returns the UTC midnight at or before t.
func DayStart(t time.Time) time.Time {
	t = t.UTC().Truncate(time.Hour)
	return t.Add(-time.Duration(t.Hour()) * time.Hour)
}

// WeekStart returns the Monday 00:00 UTC at or before t.
func WeekStart(t time.Time) time.Time {
	d := DayStart(t)
	return d.AddDate(0, 0, -(int(d.Weekday())+6)%7)
}

// KeySep joins the parts of a composite dimension value (region, city).
const KeySep = "\x1f"

// AggregateDims maps each per-event dimension to the event-table columns
// its value is made of (joined with KeySep). The raw analytics path groups
// by the same columns, so both paths share one definition.
var AggregateDims = map[string][]string{
	"continent":   {"continent"},
	"country":     {"country"},
	"region":      {"country", "region"},
	"city":        {"country", "region", "city"},
	"device":      {"device"},
	"browser":     {"browser"},
	"os":          {"os"},
	"trigger":     {"trigger"},
	"referer":     {"referer"},
	"referer_url": {"referer_url"},
	"url":         {"url"},
}

// AggregateEvent is one event as the aggregates see it.
type AggregateEvent struct {
	WorkspaceID string
	Event       string // AggClick | AggLead | AggSale
	LinkID      string
	Timestamp   time.Time
	Amount      int64 // sales only
	Columns     map[string]string
}

// Column returns the event's value of an event-table column.
func (e *AggregateEvent) Column(c string) string { return e.Columns[c] }

// FoldAggregates sums events into aggregate rows, sorted by primary key so
// concurrent writers take row locks in the same order.
func FoldAggregates(evs []AggregateEvent) []EventAggregate {
	f := NewAggregateFolder()
	f.AddEvents(evs)
	return f.TakeAll()
}

// UpsertAggregates ends an INSERT INTO event_aggregates: a row that exists
// is incremented (count and amount), as the hooks do.
const UpsertAggregates = " ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount"

func aggregatesInsert(rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?)")
	}
	b.WriteString(UpsertAggregates)
	return b.String()
}

func aggregateArgs(chunk []EventAggregate) []any {
	args := make([]any, 0, len(chunk)*7)
	for _, r := range chunk {
		args = append(args, r.WorkspaceID, r.Event, r.Dim, r.Hour.UTC(), r.Value, r.Count, r.Amount)
	}
	return args
}

const pgAggregatesUpsert = "INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) " +
	"SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::bigint[], $7::bigint[])" + UpsertAggregates

func pgAggregateArrays(chunk []EventAggregate) []any {
	ws, ev, dim, value := make([]string, len(chunk)), make([]string, len(chunk)), make([]string, len(chunk)), make([]string, len(chunk))
	hour, count, amount := make([]time.Time, len(chunk)), make([]int64, len(chunk)), make([]int64, len(chunk))
	for i, r := range chunk {
		ws[i], ev[i], dim[i], hour[i], value[i], count[i], amount[i] = r.WorkspaceID, r.Event, r.Dim, r.Hour.UTC(), r.Value, r.Count, r.Amount
	}
	return []any{ws, ev, dim, hour, value, count, amount}
}

// sqliteAggregateRows is the rows per prepared statement on SQLite: the
// pure-Go driver binds parameters in O(n²), so small reused statements are
// fastest.
const sqliteAggregateRows = 16

// AddEventAggregates adds rows to the aggregates (insert or increment), with
// the link-attribute rows of its per-link rows (link_attr_rollup.go) and the
// revision rows of the days they touch (DimRevision). Call it inside the
// transaction that stores the events.
func (db *DB) AddEventAggregates(ctx context.Context, rows []EventAggregate) error {
	if len(rows) == 0 {
		return nil
	}
	if rev := revisionRows(rows); len(rev) > 0 {
		rows = append(rows[:len(rows):len(rows)], rev...) // withLinkAttrRows sorts them in
	}
	rows, err := db.withLinkAttrRows(ctx, rows)
	if err != nil {
		return err
	}
	pool := db.Statement.ConnPool
	if db.Dialect != "sqlite" {
		// One statement of seven arrays: PostgreSQL parses and binds it in
		// a fraction of the time a VALUES list of thousands of rows takes.
		const per = 20000
		for start := 0; start < len(rows); start += per {
			chunk := rows[start:min(start+per, len(rows))]
			if _, err := pool.ExecContext(ctx, pgAggregatesUpsert, pgAggregateArrays(chunk)...); err != nil {
				return fmt.Errorf("add %d event aggregates: %w", len(chunk), err)
			}
		}
		return nil
	}
	full := len(rows) / sqliteAggregateRows * sqliteAggregateRows
	if full > 0 {
		stmt, err := pool.PrepareContext(ctx, aggregatesInsert(sqliteAggregateRows))
		if err != nil {
			return fmt.Errorf("prepare event aggregates: %w", err)
		}
		defer stmt.Close()
		for start := 0; start < full; start += sqliteAggregateRows {
			if _, err := stmt.ExecContext(ctx, aggregateArgs(rows[start:start+sqliteAggregateRows])...); err != nil {
				return fmt.Errorf("add event aggregates: %w", err)
			}
		}
	}
	if rest := rows[full:]; len(rest) > 0 {
		if _, err := pool.ExecContext(ctx, aggregatesInsert(len(rest)), aggregateArgs(rest)...); err != nil {
			return fmt.Errorf("add event aggregates: %w", err)
		}
	}
	return nil
}

// AggregateClicks is the ClickHook that keeps the click aggregates: the
// ingest pipeline runs it in every batch's transaction.
func AggregateClicks(ctx context.Context, tx *DB, inserted []Click) error {
	f := NewAggregateFolder()
	f.AddClicks(inserted)
	return tx.AddEventAggregates(ctx, f.TakeAll())
}

func attrColumns(a *ClickAttrs) map[string]string {
	return map[string]string{"continent": a.Continent, "country": a.Country, "region": a.Region,
		"city": a.City, "device": a.Device, "browser": a.Browser, "os": a.OS, "trigger": a.Trigger,
		"referer": a.Referer, "referer_url": a.RefererURL, "url": a.URL}
}

// EventAggregator keeps the lead and sale aggregates; the conversions
// service calls it inside the transaction that stores the events.
type EventAggregator struct{}

// AddLeads aggregates stored lead events.
func (EventAggregator) AddLeads(ctx context.Context, tx *DB, events []LeadEvent) error {
	evs := make([]AggregateEvent, len(events))
	for i := range events {
		e := &events[i]
		evs[i] = AggregateEvent{WorkspaceID: e.WorkspaceID, Event: AggLead, LinkID: e.LinkID, Timestamp: e.Timestamp, Columns: attrColumns(&e.ClickAttrs)}
	}
	return tx.AddEventAggregates(ctx, FoldAggregates(evs))
}

// AddSale aggregates a stored sale event.
func (EventAggregator) AddSale(ctx context.Context, tx *DB, e *SaleEvent) error {
	ev := AggregateEvent{WorkspaceID: e.WorkspaceID, Event: AggSale, LinkID: e.LinkID, Timestamp: e.Timestamp, Amount: e.Amount, Columns: attrColumns(&e.ClickAttrs)}
	return tx.AddEventAggregates(ctx, FoldAggregates([]AggregateEvent{ev}))
}

// AddSales aggregates stored sale events in one statement batch.
func (EventAggregator) AddSales(ctx context.Context, tx *DB, events []SaleEvent) error {
	evs := make([]AggregateEvent, len(events))
	for i := range events {
		e := &events[i]
		evs[i] = AggregateEvent{WorkspaceID: e.WorkspaceID, Event: AggSale, LinkID: e.LinkID, Timestamp: e.Timestamp, Amount: e.Amount, Columns: attrColumns(&e.ClickAttrs)}
	}
	return tx.AddEventAggregates(ctx, FoldAggregates(evs))
}

// RebuildAggregates recomputes a workspace's aggregates from its stored
// clicks, leads and sales with set-based statements (the same ones the
// migration's backfill runs for every workspace): a repair tool, and the
// demo test's third reference. (relink demo folds its aggregates in Go
// instead: AggregateFolder and BulkLoader, much faster than 75 scans of the
// events.) Events of the workspace written while it runs may be missed, so
// run it when the workspace is quiet.
func (db *DB) RebuildAggregates(ctx context.Context, workspaceID string) error {
	return db.Tx(ctx, func(tx *DB) error {
		if err := tx.WithContext(ctx).Exec("DELETE FROM event_aggregates WHERE workspace_id = ?", workspaceID).Error; err != nil {
			return fmt.Errorf("rebuild aggregates: %w", err)
		}
		// The revisions start again from nothing: vectors built before
		// could match them by chance.
		if err := tx.DeleteAggregateVectors(ctx, workspaceID); err != nil {
			return fmt.Errorf("rebuild aggregates: %w", err)
		}
		for _, q := range tx.aggregateRebuildSQL() {
			if err := tx.WithContext(ctx).Exec(q, workspaceID).Error; err != nil {
				return fmt.Errorf("rebuild aggregates: %w", err)
			}
		}
		return nil
	})
}

// aggregateRebuildSQL is one INSERT … SELECT per event kind, dimension and
// grain, each taking the workspace id as its only parameter.
func (db *DB) aggregateRebuildSQL() []string {
	sep, hour, day := "chr(31)", "date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'", "date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'"
	if db.Dialect == "sqlite" {
		sep, hour, day = "char(31)", "strftime('%Y-%m-%d %H:00:00+00:00', timestamp)", "strftime('%Y-%m-%d 00:00:00+00:00', timestamp)"
	}
	type spec struct{ dim, value, at string }
	specs := []spec{{DimTotal, "''", hour}, {DimLink, "link_id", hour}, {DimLink + DaySuffix, "link_id", day}}
	dims := make([]string, 0, len(AggregateDims))
	for d := range AggregateDims {
		dims = append(dims, d)
	}
	sort.Strings(dims)
	for _, d := range dims {
		v := strings.Join(AggregateDims[d], " || "+sep+" || ")
		specs = append(specs, spec{d, v, hour}, spec{d + DaySuffix, v, day})
	}
	q := URLQuerySQL(db.Dialect, "url")
	specs = append(specs, spec{DimURLQuery, q, hour}, spec{DimURLQuery + DaySuffix, q, day})
	var out []string
	for _, t := range []struct{ event, table, amount string }{{AggClick, "clicks", "0"}, {AggLead, "lead_events", "0"}, {AggSale, "sale_events", "COALESCE(SUM(amount), 0)"}} {
		for _, s := range specs {
			group := "GROUP BY 1, 4, 5"
			if s.dim == DimTotal {
				group = "GROUP BY 1, 4"
			}
			out = append(out, fmt.Sprintf("INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) SELECT workspace_id, '%s', '%s', %s, %s, COUNT(*), %s FROM %s WHERE workspace_id = ? %s",
				t.event, s.dim, s.at, s.value, t.amount, t.table, group))
		}
	}
	out = append(out, WeeklyRollupSQL(db.Dialect, "workspace_id = ? AND "))
	return append(out, LinkAttrRollupSQL("a.workspace_id = ? AND ")...)
}

// WeeklyRollupSQL is the statement that derives the weekly rollups from the
// daily ones (migration 00310 runs it for every workspace, a rebuild for
// one: cond is then "workspace_id = ? AND ").
func WeeklyRollupSQL(dialect, cond string) string {
	week := "date_trunc('week', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'"
	if dialect == "sqlite" {
		week = "strftime('%Y-%m-%d 00:00:00+00:00', hour, '-6 days', 'weekday 1')"
	}
	return "INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) SELECT workspace_id, event, replace(dim, '" +
		DaySuffix + "', '" + WeekSuffix + "'), " + week + ", value, SUM(count), SUM(amount) FROM event_aggregates WHERE " + cond +
		"dim LIKE '%" + DaySuffix + "' GROUP BY 1, 2, 3, 4, 5"
}
