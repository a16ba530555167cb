package analytics

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// SQLEngine is the Engine over the SQL store (SQLite or PostgreSQL). It
// plans each event kind separately: from the hourly event aggregates when
// nothing in the query needs a column the aggregates do not key, from the
// raw event tables otherwise.
type SQLEngine struct {
	DB  *models.DB
	Now func() time.Time
	// ForceRaw answers everything from the raw tables (the property test
	// compares both paths; benchmarks measure both).
	ForceRaw bool
	// NoVectors ranks top_links, top_urls and top_base_urls from the
	// aggregate rows alone, without the sealed vectors (benchmarks compare).
	NoVectors bool
	// NoURLHashes ranks top_urls and top_base_urls in ClickHouse by the
	// URL strings, not their hashes (benchmarks and tests compare).
	NoURLHashes bool
	// Wire writes the shortLink of top_links rows and the shortLink and
	// qrCode of event link objects, as the API's link objects do
	// (links.Service.Wire); the zero value writes https and Dub's QR origin.
	Wire wire.Writer
	// CH, when set, is the ClickHouse event store: events are counted and
	// listed there instead of the SQL tables (NewClickHouseEngine).
	CH *chstore.Client

	aggReads, rawReads atomic.Int64
	spanReads          [fourWeekly + 1]atomic.Int64 // range reads per grain …
	subtracted         atomic.Int64                 // … and how many of them subtract
	rankedReads        atomic.Int64                 // groupings ranked by the database (ranked.go) …
	rollupReads        atomic.Int64                 // … of which from the link-attribute rollups
	urlHashRanks       atomic.Int64                 // URL rankings by hash in ClickHouse (chRankURLs) …
	urlSpansUnhashed   atomic.Int64                 // … their spans read from the strings …
	urlHashMisses      atomic.Int64                 // … and those ranked by the strings: a hash missing from urls
	urlMissLogged      atomic.Int64                 // when a miss was last logged (UnixNano)
	vecReads           atomic.Int64                 // sealed blocks read as vectors (vectors.go) …
	vecBuilds          atomic.Int64                 // … vectors built for them …
	vecStale           atomic.Int64                 // … of which because the stored one was stale
	checksKept         atomic.Int64                 // four-week blocks whose checks were kept (chchecks.go) …
	checksStale        atomic.Int64                 // … and kept blocks found changed, checked again
	checks             checkCache                   // closed four-week blocks found complete (chchecks.go)
	closedKept         atomic.Int64                 // URL rankings with their closed blocks' sums kept (chclosed.go) …
	closedBuilds       atomic.Int64                 // … and the sums read to be kept
	closed             sumsCache[uint64]            // closed blocks' sums by URL hash (chclosed.go) …
	closedVals         sumsCache[string]            // … and by value (chReadKept)
	fewValues          sync.Map                     // dims without four-week rows not worth keeping, by ws|kind|dim (keepsDim)
	rebuilt            rebuildMark                  // the last rebuild seen (chRebuilds) …
	keptDropped        atomic.Int64                 // … and how often it dropped everything kept
	names              nameCache                    // URL strings by hash, per workspace (chclosed.go)
	dicts              dictCache                    // value dictionaries of the vectors (vecdict.go)
	links              linkCache                    // links top_links has shown (toplinks.go)
}

// Reads reports how many counts were answered from the aggregates and how
// many from the raw tables (edge hours included) since the engine started.
func (e *SQLEngine) Reads() (aggregates, raw int64) { return e.aggReads.Load(), e.rawReads.Load() }

var _ Engine = (*SQLEngine)(nil)

// NewEngine returns the SQL engine over db.
func NewEngine(db *models.DB, now func() time.Time) *SQLEngine {
	if now == nil {
		now = time.Now
	}
	return &SQLEngine{DB: db, Now: now}
}

// counts is one group's counter pair for one event kind.
type counts struct{ n, amount int64 }

type keyKind int

const (
	keyTotal keyKind = iota
	keyTime          // bucket start (unix seconds) of the window's granularity
	keyLink          // link id
	keyDim           // a models.AggregateDims value or DimURLQuery
)

type keySpec struct {
	kind keyKind
	dim  string
}

// scope is a query bound to a workspace, a resolved window and link set.
type scope struct {
	wsID     string
	q        *Query
	win      Window
	links    []string // link ids allowed by the link-level filters …
	linksSet bool     // … when any is set
	d        dialect
	endExcl  bool // win.End itself is outside the window (Tally's half-open windows)
}

// whole is the scope's whole window as a time range.
func (s *scope) whole() timeRange { return timeRange{s.win.Start, s.win.End, !s.endExcl} }

func (s *scope) linkConstrained() bool { return s.linksSet || s.q.LinkID.Set() }

// hourAligned reports whether every bucket boundary of the window falls on a
// UTC hour, so hourly rows fold into buckets exactly. Zones with half- or
// quarter-hour offsets (Asia/Kolkata, Asia/Kathmandu, Australia/Adelaide,
// America/St_Johns, Australia/Lord_Howe in summer…) are not.
func (s *scope) hourAligned() bool {
	for _, b := range s.win.Buckets() {
		if b.Minute() != 0 || b.Second() != 0 || b.Nanosecond() != 0 {
			return false
		}
	}
	return true
}

// measure counts events of kind k in the scope, grouped by key.
func (e *SQLEngine) measure(ctx context.Context, s *scope, k kind, key keySpec) (map[string]counts, error) {
	if s.linksSet && len(s.links) == 0 {
		return map[string]counts{}, nil
	}
	if e.CH != nil {
		if ok, df := e.aggregatable(s, k, key); ok && !e.ForceRaw {
			return e.chFromAggregates(ctx, s, k, key, df)
		}
		return e.chCount(ctx, s, k, key, []timeRange{s.whole()})
	}
	if ok, df := e.aggregatable(s, k, key); ok && !e.ForceRaw {
		return e.fromAggregates(ctx, s, k, key, df)
	}
	return e.fromRaw(ctx, s, k, key, []timeRange{s.whole()})
}

// measureAll runs measure for every event kind of the query, in kindsOf
// order. On PostgreSQL and over ClickHouse the three kinds of composite run
// in parallel (each on its own server backend or query; over ClickHouse
// one kind's rows are parsed while the next is read: composite top_urls at
// 100M clicks, p50 180 -> 102 ms); the embedded SQLite does the work in
// this process, where running them one after another measured faster.
func (e *SQLEngine) measureAll(ctx context.Context, s *scope, key keySpec) ([]map[string]counts, error) {
	kinds := kindsOf(s.q.Event)
	out := make([]map[string]counts, len(kinds))
	errs := make([]error, len(kinds))
	if (s.d != "postgres" && e.CH == nil) || len(kinds) == 1 {
		for i, k := range kinds {
			if out[i], errs[i] = e.measure(ctx, s, k, key); errs[i] != nil {
				return nil, errs[i]
			}
		}
		return out, nil
	}
	var wg sync.WaitGroup
	for i, k := range kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = e.measure(ctx, s, k, key)
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// aggregatable is the planner's rule.
//
// With no event-level filter every grouping can use the aggregates (a
// per-dimension grouping only without link filters, as those rows are
// workspace-wide). With exactly one filter on a single-column dimension
// (country, continent, device, browser, os, trigger, referer) and no link
// filter, count, timeseries and the grouping by that same dimension read
// that dimension's rows restricted to the filter's values. Everything else
// goes to the raw tables.
func (e *SQLEngine) aggregatable(s *scope, k kind, key keySpec) (bool, *dimFilter) {
	if key.kind == keyTime && !s.hourAligned() {
		return false, nil
	}
	if !hasEventFilters(s.q, k) {
		if key.kind == keyDim && s.linkConstrained() {
			return false, nil // the per-dimension aggregates are workspace-wide
		}
		return true, nil
	}
	df, ok := aggregateFilter(s.q, k)
	if !ok || s.linkConstrained() || key.kind == keyLink || (key.kind == keyDim && key.dim != df.dim) {
		return false, nil
	}
	return true, df
}

type timeRange struct {
	from, to time.Time
	toIncl   bool
}

func (r timeRange) empty() bool {
	return r.to.Before(r.from) || (!r.toIncl && !r.from.Before(r.to))
}

// fromAggregates reads the whole hours inside the window from the
// aggregates and the partial hours at either end from the raw table. When
// buckets do not matter the whole hours are covered by the cheapest signed
// mix of weekly, daily and hourly rows (cover.go); timeseries read hours.
func (e *SQLEngine) fromAggregates(ctx context.Context, s *scope, k kind, key keySpec, df *dimFilter) (map[string]counts, error) {
	h0 := s.win.Start.Truncate(time.Hour)
	if h0.Before(s.win.Start) {
		h0 = h0.Add(time.Hour)
	}
	h1 := s.win.End.Add(time.Nanosecond).Truncate(time.Hour) // exclusive
	if s.endExcl {
		h1 = s.win.End.Truncate(time.Hour)
	}
	if !h0.Before(h1) {
		return e.fromRaw(ctx, s, k, key, []timeRange{s.whole()})
	}
	e.aggReads.Add(1)
	dim := s.aggDim(key, df)
	top := weekly
	if key.kind == keyTime || dim == models.DimTotal {
		top = hourly // buckets need hours; the totals have no rollups
	}
	c := coverer{now: e.Now()}
	out, err := e.readAggregates(ctx, s, k, key, dim, c.cover(h0, h1, top).spans, df)
	if err != nil {
		return nil, err
	}
	edges, err := e.fromRaw(ctx, s, k, key, []timeRange{{s.win.Start, h0, false}, {h1, s.win.End, !s.endExcl}})
	if err != nil {
		return nil, err
	}
	addCounts(out, edges)
	return out, nil
}

// addCounts adds each of src's counters into dst.
func addCounts[K comparable](dst, src map[K]counts) {
	for key, c := range src {
		o := dst[key]
		o.n += c.n
		o.amount += c.amount
		dst[key] = o
	}
}

// aggDim is the aggregate dimension a read uses.
func (s *scope) aggDim(key keySpec, df *dimFilter) string {
	switch {
	case df != nil:
		return df.dim
	case key.kind == keyDim:
		return key.dim
	case key.kind == keyLink || s.linkConstrained():
		return models.DimLink
	}
	return models.DimTotal
}

// readAggregates sums dim's aggregate rows over the signed spans in one
// statement (a UNION ALL of index range reads; subtracted spans negate).
func (e *SQLEngine) readAggregates(ctx context.Context, s *scope, k kind, key keySpec, dim string, spans []span, df *dimFilter) (map[string]counts, error) {
	isLink := dim == models.DimLink
	var parts []string
	var args []any
	restrict := func(w *where) {
		if isLink {
			s.restrictLinks(w)
		}
		if df != nil {
			w.in("value", df.f)
		}
	}
	for _, sp := range spans {
		if !sp.from.Before(sp.to) {
			continue
		}
		q, a := e.spanSelect(s, k, dim, sp, "hour, value", "count", "amount", restrict)
		parts, args = append(parts, q), append(args, a...)
	}
	out := map[string]counts{}
	if len(parts) == 0 {
		return out, nil
	}
	var sel, group string
	switch key.kind {
	case keyTotal:
		sel = "''"
	case keyTime:
		sel, group = "hour", " GROUP BY hour"
	default:
		sel, group = "value", " GROUP BY value"
	}
	src := parts[0]
	if len(parts) > 1 {
		src = "(" + strings.Join(parts, " UNION ALL ") + ") spans"
	} else {
		src = "(" + src + ") spans"
	}
	q := "SELECT " + sel + ", COALESCE(SUM(count), 0), COALESCE(SUM(amount), 0) FROM " + src + group
	rows, err := e.DB.WithContext(ctx).Raw(q, args...).Rows()
	if err != nil {
		return nil, fmt.Errorf("read %s aggregates: %w", k.agg, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c counts
		var k string
		if key.kind == keyTime {
			var h time.Time
			if err := rows.Scan(&h, &c.n, &c.amount); err != nil {
				return nil, fmt.Errorf("scan aggregates: %w", err)
			}
			k = bucketKey(s.win.Floor(h))
		} else if err := rows.Scan(&k, &c.n, &c.amount); err != nil {
			return nil, fmt.Errorf("scan aggregates: %w", err)
		}
		if c.n == 0 && c.amount == 0 {
			continue // all of the value's events fell in subtracted spans
		}
		o := out[k]
		o.n += c.n
		o.amount += c.amount
		out[k] = o
	}
	return out, rows.Err()
}

func bucketKey(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// rawWhere is the full condition on kind k's table for the scope.
func (s *scope) rawWhere(k kind, ranges []timeRange) (*where, bool) {
	var w where
	w.add("workspace_id = ?", s.wsID)
	var ors []string
	var args []any
	for _, r := range ranges {
		if r.empty() {
			continue
		}
		op := "<"
		if r.toIncl {
			op = "<="
		}
		ors = append(ors, "(timestamp >= ? AND timestamp "+op+" ?)")
		args = append(args, r.from.UTC(), r.to.UTC())
	}
	if len(ors) == 0 {
		return nil, false
	}
	w.add("("+strings.Join(ors, " OR ")+")", args...)
	if s.linksSet {
		w.add("link_id IN ?", s.links)
	}
	w.in("link_id", s.q.LinkID)
	eventFilters(&w, s.d, s.q, k, s.wsID)
	return &w, true
}

// fromRaw counts kind k's raw rows in the ranges.
func (e *SQLEngine) fromRaw(ctx context.Context, s *scope, k kind, key keySpec, ranges []timeRange) (map[string]counts, error) {
	e.rawReads.Add(1)
	out := map[string]counts{}
	w, ok := s.rawWhere(k, ranges)
	if !ok {
		return out, nil
	}
	amount := "0"
	if k == kSale {
		amount = "COALESCE(SUM(amount), 0)"
	}
	var cols []string
	switch key.kind {
	case keyTime:
		cols = []string{s.d.truncTime("timestamp", !s.hourAligned())}
	case keyLink:
		cols = []string{"link_id"}
	case keyDim:
		cols = models.AggregateDims[key.dim]
		if key.dim == models.DimURLQuery {
			cols = []string{models.URLQuerySQL(string(s.d), "url")}
		}
	}
	sel := "''"
	group := ""
	if len(cols) > 0 {
		sel = strings.Join(cols, ", ")
		var ord []string
		for i := range cols {
			ord = append(ord, strconv.Itoa(i+1))
		}
		group = " GROUP BY " + strings.Join(ord, ", ")
	}
	q := "SELECT " + sel + ", COUNT(*), " + amount + " FROM " + k.table + " WHERE " + w.sql() + group
	rows, err := e.DB.WithContext(ctx).Raw(q, w.args...).Rows()
	if err != nil {
		return nil, fmt.Errorf("count %s: %w", k.table, err)
	}
	defer rows.Close()
	n := max(len(cols), 1)
	vals := make([]sql.NullString, n)
	dest := make([]any, 0, n+2)
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	var c counts
	dest = append(dest, &c.n, &c.amount)
	parts := make([]string, n)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("scan %s: %w", k.table, err)
		}
		for i := range vals {
			parts[i] = vals[i].String
		}
		gk := strings.Join(parts, models.KeySep)
		if key.kind == keyTime {
			t, ok := parseTrunc(gk)
			if !ok {
				return nil, fmt.Errorf("count %s: unexpected time bucket %q", k.table, gk)
			}
			gk = bucketKey(s.win.Floor(t))
		}
		o := out[gk]
		o.n += c.n
		o.amount += c.amount
		out[gk] = o
	}
	return out, rows.Err()
}
