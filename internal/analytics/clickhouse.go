package analytics

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/models"
)

// NewClickHouseEngine is the Engine over the ClickHouse event store
// (docs/clickhouse.md): the events are counted and listed in ClickHouse,
// everything else — the query's preparation (links, folders, programs,
// link filters resolved to link ids) and the enrichment of event rows
// (links, tags, customers) — reads the SQL database, which keeps them.
// Grouping, ordering, the 5,000-row cut and bucket folding are the SQL
// engine's own code, so both engines answer with the same JSON (the
// property test holds them to it).
func NewClickHouseEngine(db *models.DB, ch *chstore.Client, now func() time.Time) *SQLEngine {
	e := NewEngine(db, now)
	e.CH = ch
	return e
}

// chWhere is a ClickHouse condition list with its values written as
// literals (the HTTP interface of 18.16 has no bound parameters).
type chWhere struct{ conds []string }

func (w *chWhere) add(c string) { w.conds = append(w.conds, c) }

func (w *chWhere) sql() string {
	if len(w.conds) == 0 {
		return "1"
	}
	return strings.Join(w.conds, " AND ")
}

func chList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = chstore.Quote(v)
	}
	return "(" + strings.Join(q, ", ") + ")"
}

func (w *chWhere) in(col string, f Filter) {
	if !f.Set() {
		return
	}
	if len(f.Values) == 0 {
		if !f.Negate {
			w.add("0")
		}
		return
	}
	op := " IN "
	if f.Negate {
		op = " NOT IN "
	}
	w.add(col + op + chList(f.Values))
}

// ceilMicros and floorMicros bound a window in the ts column's unit.
func ceilMicros(t time.Time) int64 {
	m := t.UnixMicro()
	if time.UnixMicro(m).Before(t) {
		m++
	}
	return m
}

func chURLQuery(col string) string {
	return "if(position(" + col + ", '?') > 0, substring(" + col + ", position(" + col + ", '?')), '')"
}

// chMetadataValue is a top-level metadata key's value when it is a JSON
// string, else ” (the SQL engine's rule; visitParam functions, as 18.16
// has no JSONExtract, read the first field of that name).
func chMetadataValue(key string) string {
	k := chstore.Quote(key)
	return "if(substring(visitParamExtractRaw(metadata, " + k + "), 1, 1) = '\"', visitParamExtractString(metadata, " + k + "), '')"
}

func chNumeric(expr string) string {
	return `if(match(` + expr + `, '^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$'), toFloat64OrNull(replaceRegexpAll(` + expr + `, '^\\s+|\\s+$', '')), NULL)`
}

// chWhereOf is rawWhere for ClickHouse: the scope's condition on kind k's
// table over the ranges.
func (s *scope) chWhereOf(k kind, ranges []timeRange) (*chWhere, bool) {
	var w chWhere
	w.add("workspace_id = " + chstore.Quote(s.wsID))
	// The primary key is (workspace_id, time): each range bounds time as
	// well as ts, so only its own granules are read. One bound around all
	// ranges would read the whole window for the two partial hours at its
	// ends (8.2M rows for a 30-day window at 100M clicks a year).
	var ors []string
	for _, r := range ranges {
		if r.empty() {
			continue
		}
		from, to := ceilMicros(r.from), ceilMicros(r.to)
		op := "<"
		if r.toIncl {
			op, to = "<=", r.to.UnixMicro() // floor
		}
		ors = append(ors, fmt.Sprintf("(time >= toDateTime(%d) AND time <= toDateTime(%d) AND ts >= %d AND ts %s %d)",
			floorDiv(from, 1e6), floorDiv(to, 1e6), from, op, to))
	}
	if len(ors) == 0 {
		return nil, false
	}
	w.add("(" + strings.Join(ors, " OR ") + ")")
	if s.linksSet {
		w.in("link_id", Filter{Values: s.links})
	}
	w.in("link_id", s.q.LinkID)
	chEventFilters(&w, s.q, k, s.wsID)
	return &w, true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// chEventFilters is eventFilters in ClickHouse SQL.
func chEventFilters(w *chWhere, q *Query, k kind, wsID string) {
	ws := chstore.Quote(wsID)
	if q.CustomerID != "" {
		if k == kClick {
			w.add("click_id IN (SELECT click_id FROM lead_events WHERE workspace_id = " + ws + " AND customer_id = " + chstore.Quote(q.CustomerID) + ")")
		} else {
			w.add("customer_id = " + chstore.Quote(q.CustomerID))
		}
	}
	w.in("country", q.Country)
	if q.Region != "" {
		w.add("region = " + chstore.Quote(q.Region))
	}
	w.in("city", q.City)
	w.in("continent", q.Continent)
	w.in("device", q.Device)
	w.in("browser", q.Browser)
	w.in("os", q.OS)
	w.in("trigger", q.Trigger)
	w.in("referer", q.Referer)
	w.in(chstore.CutAtQuery("referer_url"), q.RefererURL)
	w.in(chstore.CutAtQuery("url"), q.URL)
	for _, u := range []struct {
		param string
		f     Filter
	}{{"utm_source", q.UTMSource}, {"utm_medium", q.UTMMedium}, {"utm_campaign", q.UTMCampaign}, {"utm_term", q.UTMTerm}, {"utm_content", q.UTMContent}} {
		if !u.f.Set() {
			continue
		}
		var ors []string
		for _, v := range u.f.Values {
			ors = append(ors, "position(url, "+chstore.Quote(u.param+"="+url.QueryEscape(v))+") > 0")
		}
		cond := "(" + strings.Join(ors, " OR ") + ")"
		if len(ors) == 0 {
			cond = "0"
		}
		if u.f.Negate {
			cond = "NOT " + cond
		}
		w.add(cond)
	}
	if k == kSale && q.SaleType != "" {
		op := "IN"
		if q.SaleType == SaleRecurring {
			op = "NOT IN"
		}
		w.add("(link_id, customer_id, ts) " + op + " (SELECT link_id, customer_id, min(ts) FROM sale_events WHERE workspace_id = " + ws + " GROUP BY link_id, customer_id)")
	}
	if k == kClick {
		return
	}
	for _, c := range q.Metadata {
		if !c.IsMetadata() {
			continue
		}
		expr := chMetadataValue(c.Key())
		switch c.Op {
		case OpEq:
			w.add(expr + " = " + chstore.Quote(c.Value))
		case OpNe:
			w.add(expr + " != " + chstore.Quote(c.Value))
		default:
			b, ok := Numeric(c.Value)
			if !ok {
				w.add("0")
				continue
			}
			op := map[Op]string{OpGt: ">", OpLt: "<", OpGte: ">=", OpLte: "<="}[c.Op]
			w.add(chNumeric(expr) + " " + op + " " + strconv.FormatFloat(b, 'g', -1, 64))
		}
	}
}

// chCount is fromRaw over ClickHouse: kind k's events in the ranges,
// grouped by key. No FINAL: every event row is inserted once
// (chstore.InsertOnce), so the raw rows count as they are.
func (e *SQLEngine) chCount(ctx context.Context, s *scope, k kind, key keySpec, ranges []timeRange) (map[string]counts, error) {
	e.rawReads.Add(1)
	out := map[string]counts{}
	w, ok := s.chWhereOf(k, ranges)
	if !ok {
		return out, nil
	}
	amount := "0"
	if k == kSale {
		amount = "sum(amount)"
	}
	var cols []string
	switch key.kind {
	case keyTime:
		if s.hourAligned() {
			cols = []string{"intDiv(ts, 3600000000) * 3600"}
		} else {
			cols = []string{"intDiv(ts, 60000000) * 60"}
		}
	case keyLink:
		cols = []string{"link_id"}
	case keyDim:
		cols = models.AggregateDims[key.dim]
		if key.dim == models.DimURLQuery {
			cols = []string{chURLQuery("url")}
		}
	}
	sel, group := "''", ""
	if len(cols) > 0 {
		sel = strings.Join(cols, ", ")
		group = " GROUP BY " + sel
	}
	q := "SELECT " + sel + ", count(), " + amount + " FROM " + k.table + " WHERE " + w.sql() + group
	n := max(len(cols), 1)
	err := e.CH.Query(ctx, q, func(row []string) error {
		if len(row) != n+2 {
			return fmt.Errorf("count %s in clickhouse: %d columns, want %d", k.table, len(row), n+2)
		}
		var c counts
		var err error
		if c.n, err = strconv.ParseInt(row[n], 10, 64); err != nil {
			return fmt.Errorf("count %s in clickhouse: %w", k.table, err)
		}
		if c.amount, err = strconv.ParseInt(row[n+1], 10, 64); err != nil {
			return fmt.Errorf("count %s in clickhouse: %w", k.table, err)
		}
		gk := strings.Join(row[:n], models.KeySep)
		if key.kind == keyTime {
			sec, err := strconv.ParseInt(gk, 10, 64)
			if err != nil {
				return fmt.Errorf("count %s in clickhouse: time bucket %q: %w", k.table, gk, err)
			}
			gk = bucketKey(s.win.Floor(time.Unix(sec, 0).UTC()))
		}
		o := out[gk]
		o.n += c.n
		o.amount += c.amount
		out[gk] = o
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count %s: %w", k.table, err)
	}
	return out, nil
}

// chEventColumns are eventRow's columns in ClickHouse, per kind.
const chClickCols = "click_id, ts, '', '', '', click_id, link_id, url, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, qr, ip, 0, '', ''"

// chEventRows is eventRows over ClickHouse.
func (e *SQLEngine) chEventRows(ctx context.Context, s *scope, k kind, after *eventRow) ([]eventRow, error) {
	w, ok := s.chWhereOf(k, []timeRange{{s.win.Start, s.win.End, true}})
	if !ok {
		return nil, nil
	}
	cols, idCol := chClickCols, "click_id"
	switch k {
	case kLead:
		cols, idCol = "event_id, ts, event_name, customer_id, metadata, click_id, link_id, url, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, qr, ip, 0, '', ''", "event_id"
	case kSale:
		cols, idCol = "event_id, ts, event_name, customer_id, metadata, click_id, link_id, url, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, qr, ip, amount, payment_processor, invoice_id", "event_id"
	}
	dir := "DESC"
	if s.q.SortOrder == "asc" {
		dir = "ASC"
	}
	offset := (s.q.Page - 1) * s.q.Limit
	if after != nil { // a keyset page (EachEvent)
		cmp := "<"
		if dir == "ASC" {
			cmp = ">"
		}
		at := after.Timestamp.UnixMicro()
		w.add(fmt.Sprintf("(ts %s %d OR (ts = %d AND %s %s %s))", cmp, at, at, idCol, cmp, chstore.Quote(after.ID)))
		offset = 0
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s ORDER BY ts %s, %s %s LIMIT %d, %d", cols, k.table, w.sql(),
		dir, idCol, dir, offset, s.q.Limit)
	var rows []eventRow
	err := e.CH.Query(ctx, q, func(c []string) error {
		if len(c) != 24 {
			return fmt.Errorf("%d columns, want 24", len(c))
		}
		ts, err := strconv.ParseInt(c[1], 10, 64)
		if err != nil {
			return fmt.Errorf("ts %q: %w", c[1], err)
		}
		amount, err := strconv.ParseInt(c[21], 10, 64)
		if err != nil {
			return fmt.Errorf("amount %q: %w", c[21], err)
		}
		r := eventRow{ID: c[0], Timestamp: time.UnixMicro(ts).UTC(), EventName: c[2], CustomerID: c[3], ClickID: c[5],
			LinkID: c[6], URL: c[7], Continent: c[8], Country: c[9], Region: c[10], City: c[11], Device: c[12],
			Browser: c[13], OS: c[14], UA: c[15], Trigger: c[16], Referer: c[17], RefererURL: c[18], QR: c[19] == "1",
			IP: c[20], Amount: amount, PaymentProcessor: c[22], InvoiceID: c[23]}
		if k != kClick {
			md := c[4]
			r.Metadata = &md
		}
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", k.table, err)
	}
	return rows, nil
}

// chFromAggregates is fromAggregates over ClickHouse: the whole hours of
// the window from the rollups (event_aggregates, migration 01550) by the
// same signed cover of hourly, daily and weekly rows — and four-week rows
// for the link- and URL-keyed dims (chCoverSpans) — the partial hours at
// either end from the raw table.
func (e *SQLEngine) chFromAggregates(ctx context.Context, s *scope, k kind, key keySpec, df *dimFilter) (map[string]counts, error) {
	h0 := s.win.Start.Truncate(time.Hour)
	if h0.Before(s.win.Start) {
		h0 = h0.Add(time.Hour)
	}
	h1 := s.win.End.Add(time.Nanosecond).Truncate(time.Hour) // exclusive
	if s.endExcl {
		h1 = s.win.End.Truncate(time.Hour)
	}
	if !h0.Before(h1) {
		return e.chCount(ctx, s, k, key, []timeRange{s.whole()})
	}
	dim := s.aggDim(key, df)
	var spans []span
	edges := []timeRange{{s.win.Start, h0, false}, {h1, s.win.End, !s.endExcl}}
	if key.kind == keyTime || dim == models.DimTotal {
		e.aggReads.Add(1)
		c := coverer{now: e.Now()}
		spans = c.cover(h0, h1, hourly).spans
	} else {
		cv, err := e.chCoverSpansChecked(ctx, s, k, dim, false)
		if err != nil {
			return nil, err
		}
		spans, edges = cv.spans, cv.edges
		if cv.totals == nil && e.keepsDim(s, k, dim) {
			// The other dims have no four-week rows and no checks: only
			// the blocks' totals, which key their closed sums kept.
			if _, _, cv.totals, err = e.chChecks(ctx, s, k, timeRange{}, timeRange{}, hullOf(spans), false); err != nil {
				return nil, err
			}
		}
		if cv.totals != nil {
			return e.chReadKept(ctx, s, k, key, dim, cv, df)
		}
	}
	out, err := e.chReadAggregates(ctx, s, k, key, dim, spans, df)
	if err != nil {
		return nil, err
	}
	ec, err := e.chCount(ctx, s, k, key, edges)
	if err != nil {
		return nil, err
	}
	addCounts(out, ec)
	return out, nil
}

// chReadAggregates is readAggregates over ClickHouse's rollups: one
// statement, a UNION ALL of the spans' primary-key range reads.
func (e *SQLEngine) chReadAggregates(ctx context.Context, s *scope, k kind, key keySpec, dim string, spans []span, df *dimFilter) (map[string]counts, error) {
	parts := e.chSpanSelects(s, k, dim, spans, df, "toUInt32(hour) AS h, value")
	out := map[string]counts{}
	if len(parts) == 0 {
		return out, nil
	}
	sel, group := "''", ""
	switch key.kind {
	case keyTime:
		sel, group = "h", " GROUP BY h"
	case keyLink, keyDim:
		sel, group = "value", " GROUP BY value"
	}
	q := "SELECT " + sel + ", sum(n), sum(a) FROM (" + strings.Join(parts, " UNION ALL ") + ")" + group
	err := e.CH.Query(ctx, q, func(row []string) error {
		c, err := countsOf(row)
		if err != nil {
			return err
		}
		if c.n == 0 && c.amount == 0 {
			return nil // all of the value's events fell in subtracted spans
		}
		gk := row[0]
		if key.kind == keyTime {
			sec, err := strconv.ParseInt(gk, 10, 64)
			if err != nil {
				return fmt.Errorf("hour %q: %w", gk, err)
			}
			gk = bucketKey(s.win.Floor(time.Unix(sec, 0).UTC()))
		}
		o := out[gk]
		o.n += c.n
		o.amount += c.amount
		out[gk] = o
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s rollups: %w", k.agg, err)
	}
	return out, nil
}

// chSpanSelects are the SELECTs of dim's rollup rows over the signed spans
// (empty ones left out): the columns cols, then count and amount (negated
// when the span subtracts) as n and a; per-link rows restricted to the
// scope's links, and to the filter df's values when set. It counts the
// reads.
func (e *SQLEngine) chSpanSelects(s *scope, k kind, dim string, spans []span, df *dimFilter, cols string) []string {
	return e.chSpanSelectsFrom("event_aggregates", s, k, dim, spans, df, cols)
}

// chSpanSelectsFrom is chSpanSelects over table: event_aggregates, or
// url_aggregates for the URL dims (migration 01590).
func (e *SQLEngine) chSpanSelectsFrom(table string, s *scope, k kind, dim string, spans []span, df *dimFilter, cols string) []string {
	var parts []string
	for _, sp := range spans {
		if !sp.from.Before(sp.to) {
			continue
		}
		var w chWhere
		w.add("workspace_id = " + chstore.Quote(s.wsID))
		w.add("event = " + chstore.Quote(k.agg))
		w.add("dim = " + chstore.Quote(dim+sp.grain.suffix()))
		w.add(fmt.Sprintf("hour >= toDateTime(%d) AND hour < toDateTime(%d)", sp.from.Unix(), sp.to.Unix()))
		if dim == models.DimLink {
			if s.linksSet {
				w.in("value", Filter{Values: s.links})
			}
			w.in("value", s.q.LinkID)
		}
		if df != nil {
			w.in("value", df.f)
		}
		e.spanReads[sp.grain].Add(1)
		sign := ""
		if sp.neg {
			e.subtracted.Add(1)
			sign = "-"
		}
		parts = append(parts, "SELECT "+cols+", "+sign+"count AS n, "+sign+"amount AS a FROM "+table+" WHERE "+w.sql())
	}
	return parts
}

// chFourWeekDims are the dimensions with four-week rollup rows in
// ClickHouse (migration 01580): the link- and URL-keyed ones, whose many
// values made a year of weekly rows the slowest reads.
var chFourWeekDims = map[string]bool{models.DimLink: true, "url": true}

// chCoverSpans is coverSpans over ClickHouse's rollups for kind k's rows of
// dim: for the link- and URL-keyed dims the cover may use four-week blocks,
// but only the blocks whose four-week rows are complete (chChecks); any
// other block of the cover is read as its four weeks. It counts the
// aggregate read as coverSpans does.
func (e *SQLEngine) chCoverSpans(ctx context.Context, s *scope, k kind, dim string) ([]span, []timeRange, error) {
	cv, err := e.chCoverSpansChecked(ctx, s, k, dim, false)
	return cv.spans, cv.edges, err
}

// chCover is a checked cover: its spans, the raw edges, per span whether
// url_aggregates holds its events (nil: not checked), and the hourly
// totals' sum of each four-week block the checks read, by block start.
type chCover struct {
	spans  []span
	edges  []timeRange
	hashed []bool
	totals map[int64]string
}

// chCoverSpansChecked is chCoverSpans, and with hashes set also reports per
// span whether url_aggregates holds its events (chChecks; the URL rankings
// by hash, chRankURLs): both checks in one statement. The report is nil
// when the cover has no four-week block: the window is too short for the
// hashes to pay.
func (e *SQLEngine) chCoverSpansChecked(ctx context.Context, s *scope, k kind, dim string, hashes bool) (chCover, error) {
	if !chFourWeekDims[dim] {
		spans, edges := e.coverSpans(s)
		return chCover{spans: spans, edges: edges}, nil
	}
	spans, edges := e.coverSpansWith(s, &coverer{now: e.Now()}, fourWeekly)
	var four, all timeRange
	for _, sp := range spans {
		if !sp.from.Before(sp.to) {
			continue
		}
		all = widen(all, sp.from, sp.to)
		if sp.grain == fourWeekly {
			four = widen(four, sp.from, sp.to)
		}
	}
	// The hashes pay for their check and their strings' lookup over long
	// windows only: a window without a whole four-week block groups few
	// rows per URL, and there the strings were as fast (bench/README.md,
	// "Issue 34 item 3: URL rankings by hash").
	if four.from.IsZero() {
		return chCover{spans: spans, edges: edges}, nil
	}
	hull := all
	if !hashes {
		all = timeRange{}
	}
	complete, short, totals, err := e.chChecks(ctx, s, k, four, all, hull, false)
	if err != nil {
		return chCover{}, err
	}
	var out []span
	for _, sp := range spans {
		if sp.grain != fourWeekly {
			out = append(out, sp)
			continue
		}
		for b := sp.from; b.Before(sp.to); b = fourWeekly.next(b) {
			g := fourWeekly
			if !complete[b.Unix()] {
				g = weekly // the same four weeks
			}
			if n := len(out) - 1; n >= 0 && out[n].grain == g && out[n].neg == sp.neg && out[n].to.Equal(b) {
				out[n].to = fourWeekly.next(b)
				continue
			}
			out = append(out, span{b, fourWeekly.next(b), g, sp.neg})
		}
	}
	if !hashes {
		return chCover{spans: out, edges: edges, totals: totals}, nil
	}
	hashed := make([]bool, len(out))
	for i, sp := range out {
		hashed[i] = true
		for _, h := range short {
			if sp.from.Unix() <= h && h < sp.to.Unix() {
				hashed[i] = false
				break
			}
		}
	}
	return chCover{spans: out, edges: edges, hashed: hashed, totals: totals}, nil
}

// widen is r extended to [from, to).
func widen(r timeRange, from, to time.Time) timeRange {
	if r.from.IsZero() || from.Before(r.from) {
		r.from = from
	}
	if to.After(r.to) {
		r.to = to
	}
	return r
}

// chChecks reads, in one statement, the checks the cover's rows need: which
// four-week blocks in four are complete, and which hours in hashes (zero:
// none) url_aggregates falls short in.
//
// Four-week blocks: a block's rows count every event of kind k in it when
// its link rows' counts sum to the block's hourly totals. Four-week rows
// are written only from the moment their materialized views exist
// (migration 01580 adds no rows for the events stored before it; `relink
// clickhouse rebuild-rollups` computes them), so a block's rows can lack
// events but never hold one twice: equal sums mean every event is there. A
// block with rows missing is read from its weeks, and the answer stays
// exact either way. The link rows stand for the URL rows, which every
// writer writes in the same insert (01580's views: one ARRAY JOIN): 5,000
// links' rows are read instead of 25,000 URLs' (at 100M clicks a year a
// check on the URL rows took 46 ms of server time; the link rows are about
// a fifth as many).
//
// URL hashes (migration 01590): url_aggregates' hourly totals, written in
// the same block as its URL rows, against event_aggregates'. Its writers
// add rows only from the migration on (the rebuild computes older months),
// so an hour's rows can lack events but not hold one twice, and equal
// totals mean every event of the hour has its URL rows. Only the totals are
// read: a row per hour, 8,760 a year per table.
//
// Closed blocks found complete are kept between queries (chchecks.go) and,
// unless fresh is set, taken from there: for them only the hourly totals
// are read again and compared with the ones they were found complete with;
// a kept block whose totals moved is dropped, and the check runs again
// fresh. The totals are read for every block of hull (the whole cover) and
// returned: they key the closed blocks' sums (chclosed.go).
func (e *SQLEngine) chChecks(ctx context.Context, s *scope, k kind, four, hashes, hull timeRange, fresh bool) (map[int64]bool, []int64, map[int64]string, error) {
	base := fmt.Sprintf("workspace_id = %s AND event = %s", chstore.Quote(s.wsID), chstore.Quote(k.agg))
	inAny := func(rs []timeRange) string {
		conds := make([]string, len(rs))
		for i, r := range rs {
			conds[i] = fmt.Sprintf("hour >= toDateTime(%d) AND hour < toDateTime(%d)", r.from.Unix(), r.to.Unix())
		}
		return base + " AND (" + strings.Join(conds, " OR ") + ")"
	}
	if err := e.chRebuilds(ctx); err != nil {
		return nil, nil, nil, err
	}
	p := e.planChecks(s.wsID, k.agg, four, hashes, fresh)
	total := " AND dim = " + chstore.Quote(models.DimTotal)
	// The totals of every block the cover (hull) touches: those of four
	// check its blocks, all of them key the closed blocks' sums
	// (chclosed.go).
	blockTotals := four
	if !hull.from.IsZero() {
		blockTotals = widen(four, fourWeekly.floor(hull.from), fourWeekly.ceil(hull.to))
	}
	parts := []string{"SELECT 't', toUInt32(intDiv(toUInt32(hour) - 345600, 2419200) * 2419200 + 345600) AS h, sum(count) FROM event_aggregates WHERE " +
		inAny([]timeRange{blockTotals}) + total + " GROUP BY h"}
	if len(p.links) > 0 {
		parts = append(parts, "SELECT 'b', toUInt32(hour) AS h, sum(count) FROM event_aggregates WHERE "+inAny(p.links)+" AND dim = "+
			chstore.Quote(models.DimLink+fourWeekly.suffix())+" GROUP BY h")
	}
	if len(p.urls) > 0 {
		parts = append(parts, "SELECT 'u', h, sum(n) AS d FROM (SELECT toUInt32(hour) AS h, count AS n FROM url_aggregates WHERE "+inAny(p.urls)+total+
			" UNION ALL SELECT toUInt32(hour) AS h, -count AS n FROM event_aggregates WHERE "+inAny(p.urls)+total+") GROUP BY h HAVING d != 0")
	}
	blocks, totals := map[int64]string{}, map[int64]string{}
	var short []int64
	err := e.CH.Query(ctx, strings.Join(parts, " UNION ALL "), func(row []string) error {
		if len(row) != 3 {
			return fmt.Errorf("%d columns, want 3", len(row))
		}
		h, err := strconv.ParseInt(row[1], 10, 64)
		if err != nil {
			return fmt.Errorf("block %q: %w", row[1], err)
		}
		switch row[0] {
		case "b":
			blocks[h] = row[2]
		case "t":
			totals[h] = row[2]
		default:
			short = append(short, h)
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("check %s rollups: %w", k.agg, err)
	}
	for b, ce := range p.kept {
		if totals[b] != ce.total {
			// Events were added to a block kept complete (an import, a
			// late event): check it again, with every other.
			e.checksStale.Add(1)
			e.checks.drop(checkKey{s.wsID, k.agg, b})
			fresh = true
		}
	}
	if fresh && len(p.kept) > 0 {
		return e.chChecks(ctx, s, k, four, hashes, hull, true)
	}
	for b := blockTotals.from; b.Before(blockTotals.to); b = fourWeekly.next(b) {
		if _, ok := totals[b.Unix()]; !ok {
			totals[b.Unix()] = "" // read, and no events
		}
	}
	now := e.Now()
	complete := map[int64]bool{}
	for b := four.from; b.Before(four.to); b = fourWeekly.next(b) {
		end := fourWeekly.next(b)
		if ce, ok := p.kept[b.Unix()]; ok {
			e.checksKept.Add(1)
			complete[b.Unix()] = true
			if ce.urls || !within(hashes, b, end) {
				continue
			}
		} else if complete[b.Unix()] = blocks[b.Unix()] == totals[b.Unix()]; !complete[b.Unix()] {
			continue
		}
		if end.After(now) {
			continue // still open: its totals move with every event
		}
		urls := within(hashes, b, end)
		for _, h := range short {
			urls = urls && (h < b.Unix() || h >= end.Unix())
		}
		e.checks.put(checkKey{s.wsID, k.agg, b.Unix()}, checkEntry{total: totals[b.Unix()], urls: urls})
	}
	return complete, short, totals, nil
}

// countsOf reads a ClickHouse answer row (key, n, amount).
func countsOf(row []string) (counts, error) {
	if len(row) != 3 {
		return counts{}, fmt.Errorf("%d columns, want 3", len(row))
	}
	var c counts
	var err error
	if c.n, err = strconv.ParseInt(row[1], 10, 64); err != nil {
		return c, err
	}
	if c.amount, err = strconv.ParseInt(row[2], 10, 64); err != nil {
		return c, err
	}
	return c, nil
}
