package analytics

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/relinkhq/relink/models"
)

// The groupings keyed by link or by URL (top_links, top_urls,
// top_base_urls and the link-attribute groupings) have one group per link,
// or one per link attribute mapped from per-link rows: tens of thousands of
// values in a large workspace. Reading them the way the dimension groupings
// are read (every value's sum sent to Go, folded, sorted, and every link of
// the workspace loaded to map attributes) made their cost grow with the
// number of links (bench/README.md, "Analytics cost against links"). Here
// the database sums, maps through the links' CURRENT attributes (a join
// with links, link_tags and program_enrollments as they are now, so a link
// moved to another folder, retagged or given to another partner counts
// where it is now, exactly as the raw path maps it), ranks and cuts at
// RowLimit; only the returned rows travel, and only their entities are
// loaded.

// rankedGroup says how the database folds and ranks one grouping.
type rankedGroup struct {
	dim string // aggregate dimension the sums come from (link or url)
	// key is the SQL of the output key over the summed rows v (value, n, a)
	// and the joins; join and cond restrict and map them.
	key, join, cond string
	wsJoin          bool // join binds the workspace id
	// attr is the link-attribute rollup (models.DimLinkFolder …) that holds
	// the grouping's sums per value, for queries without link filters.
	attr string
}

// rankedGroups lists the groupings the database ranks.
func (d dialect) rankedGroups(g GroupBy) (rankedGroup, bool) {
	links := " JOIN links l ON l.id = v.value AND l.workspace_id = ?"
	switch g {
	case TopLinks:
		return rankedGroup{dim: models.DimLink, key: "v.value"}, true
	case TopURLs:
		return rankedGroup{dim: "url", key: "v.value", cond: "v.value NOT IN ('', 'Unknown')"}, true
	case TopBaseURLs:
		k := d.cutQuery("v.value")
		return rankedGroup{dim: "url", key: k, cond: k + " NOT IN ('', 'Unknown')"}, true
	case TopDomains:
		return rankedGroup{dim: models.DimLink, key: "l.domain", join: links, wsJoin: true, attr: models.DimLinkDomain}, true
	case TopFolders:
		return rankedGroup{dim: models.DimLink, key: "l.folder_id", join: links, wsJoin: true,
			cond: "l.folder_id IS NOT NULL AND l.folder_id <> ''", attr: models.DimLinkFolder}, true
	case TopPartners:
		return rankedGroup{dim: models.DimLink, key: "l.partner_id", join: links, wsJoin: true,
			cond: "l.partner_id IS NOT NULL AND l.partner_id <> ''", attr: models.DimLinkPartner}, true
	case TopLinkTags:
		return rankedGroup{dim: models.DimLink, key: "lt.tag_id", wsJoin: true,
			join: links + " JOIN link_tags lt ON lt.link_id = l.id", attr: models.DimLinkTag}, true
	case TopGroups:
		return rankedGroup{dim: models.DimLink, key: "pe.group_id", wsJoin: true, cond: "pe.group_id IS NOT NULL",
			join: links + " JOIN program_enrollments pe ON pe.program_id = l.program_id AND pe.partner_id = l.partner_id", attr: models.DimLinkGroup}, true
	}
	return rankedGroup{}, false
}

// cutQuery is col cut at its first '?' (the whole value when it has none).
// The '?' is spelled as a character code, so no SQL builder takes it for a
// bind parameter.
func (d dialect) cutQuery(col string) string {
	if d == "postgres" {
		return "split_part(" + col + ", chr(63), 1)"
	}
	return "(CASE WHEN instr(" + col + ", char(63)) > 0 THEN substr(" + col + ", 1, instr(" + col + ", char(63)) - 1) ELSE " + col + " END)"
}

// byteOrder is the collation that sorts text as Go compares strings.
func (d dialect) byteOrder() string {
	if d == "postgres" {
		return ` COLLATE "C"`
	}
	return " COLLATE BINARY"
}

// rankable reports whether kind k of the scope's grouping can be ranked by
// the database: the sums come from the aggregates (the planner's rule) and
// the grouping is one rankedGroups knows.
func (e *SQLEngine) rankable(s *scope, k kind) (rankedGroup, bool) {
	if e.ForceRaw || e.CH != nil { // ClickHouse: chRankAll
		return rankedGroup{}, false
	}
	rg, ok := s.d.rankedGroups(s.q.GroupBy)
	if !ok {
		return rankedGroup{}, false
	}
	key := keySpec{kind: keyDim, dim: rg.dim}
	if rg.dim == models.DimLink {
		key = keySpec{kind: keyLink}
	}
	if ok, df := e.aggregatable(s, k, key); !ok || df != nil {
		return rankedGroup{}, false
	}
	return rg, true
}

// rankAll ranks every event kind of the query in the database (in parallel
// on PostgreSQL, as measureAll does, and wherever vectors answer; over
// ClickHouse, chRankAll). ok is false when some kind cannot be ranked
// there; the caller then takes the general path.
func (e *SQLEngine) rankAll(ctx context.Context, s *scope) (map[kind]ranked, bool, error) {
	if e.CH != nil {
		return e.chRankAll(ctx, s)
	}
	kinds := kindsOf(s.q.Event)
	rgs := make([]rankedGroup, len(kinds))
	for i, k := range kinds {
		rg, ok := e.rankable(s, k)
		if !ok {
			return nil, false, nil
		}
		rgs[i] = rg
	}
	// The vectors' work is mostly decoding in Go: in parallel on SQLite too.
	parallel := s.d == "postgres" || e.vecOK(rgs[0])
	per, err := rankKinds(kinds, parallel, func(i int, k kind) (ranked, error) {
		return e.rankInDB(ctx, s, k, rgs[i], i == 0)
	})
	if err != nil {
		return nil, false, err
	}
	return per, true, nil
}

// rankKinds ranks each event kind with rank, in parallel when asked and
// there is more than one, and keys the answers by kind.
func rankKinds(kinds []kind, parallel bool, rank func(i int, k kind) (ranked, error)) (map[kind]ranked, error) {
	out := make([]ranked, len(kinds))
	if !parallel || len(kinds) == 1 {
		for i, k := range kinds {
			var err error
			if out[i], err = rank(i, k); err != nil {
				return nil, err
			}
		}
	} else {
		errs := make([]error, len(kinds))
		var wg sync.WaitGroup
		for i, k := range kinds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i], errs[i] = rank(i, k)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}
	per := make(map[kind]ranked, len(kinds))
	for i, k := range kinds {
		per[k] = out[i]
	}
	return per, nil
}

// rankInDB sums kind k's events per value of the grouping over the window
// (whole hours from the aggregates' cheapest signed cover, the partial
// hours at either end from the raw table, all in one statement), keeps the
// groups with events, orders them as rank does (main counter descending,
// key ascending byte-wise) and returns the first RowLimit.
func (e *SQLEngine) rankInDB(ctx context.Context, s *scope, k kind, rg rankedGroup, ordered bool) (ranked, error) {
	e.rankedReads.Add(1)
	var q string
	var args []any
	rollup := rg.attr != "" && !s.linkConstrained()
	if rollup {
		e.rollupReads.Add(1)
		q, args = e.rollupSource(s, k, rg)
	} else if e.vecOK(rg) {
		return e.rankFromVectors(ctx, s, k, rg, ordered)
	} else {
		src, a := e.rankedSource(s, k, rg.dim)
		args = a
		inner := "SELECT value, SUM(count) AS n, SUM(amount) AS a FROM (" + src + ") s GROUP BY value"
		q = "SELECT " + rg.key + " AS k, SUM(v.n) AS n, SUM(v.a) AS a FROM (" + inner + ") v" + rg.join
		if rg.wsJoin {
			args = append(args, s.wsID)
		}
		if rg.cond != "" {
			q += " WHERE " + rg.cond
		}
		q += " GROUP BY " + rg.key + " HAVING SUM(v.n) > 0 OR SUM(v.a) <> 0"
	}
	main := "n"
	if k == kSale {
		main = "a"
	}
	q = "SELECT k, n, a FROM (" + q + ") g ORDER BY " + main + " DESC, k" + s.d.byteOrder() + " LIMIT " + strconv.Itoa(RowLimit)
	r := ranked{vals: map[string]counts{}}
	err := e.tuned(ctx, s.d, !rollup, func(db *models.DB) error {
		rows, err := db.Raw(q, args...).Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var key string
			var c counts
			if err := rows.Scan(&key, &c.n, &c.amount); err != nil {
				return err
			}
			r.keys = append(r.keys, key)
			r.vals[key] = c
		}
		return rows.Err()
	})
	if err != nil {
		return ranked{}, fmt.Errorf("rank %s by %s: %w", k.table, s.q.GroupBy, err)
	}
	return r, nil
}

// tuned runs fn in a transaction with per-statement settings for one large
// grouped read on PostgreSQL: no JIT (compiling the expressions took ~100 ms
// of a query that runs in tens), enough work_mem for the per-value hash to
// stay in memory (it spilled to disk at the default 4 MB), and one process
// (a parallel plan's partial aggregates, sort and merge measured 750 ms
// against 550 ms serial for 45,000 links on a busy 2-core machine), and no
// nested loops: the planner guesses 200 rows for the per-value sums and
// joins 45,000 of them to links by 45,000 index lookups (1.1 s of a 1.9 s
// statement) where a hash join over the workspace's links takes ~0.2 s.
// Reads of the link-attribute rollups (manyLinks false) keep nested loops:
// they join only the links of the raw edge rows (minutes of events), where
// index lookups beat hashing every link of the workspace.
func (e *SQLEngine) tuned(ctx context.Context, d dialect, manyLinks bool, fn func(db *models.DB) error) error {
	if d != "postgres" {
		return fn(&models.DB{DB: e.DB.WithContext(ctx), Dialect: e.DB.Dialect, Timeout: e.DB.Timeout})
	}
	nestloop := "on"
	if manyLinks {
		nestloop = "off"
	}
	return e.DB.Tx(ctx, func(tx *models.DB) error {
		if err := tx.Exec("SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true), set_config('max_parallel_workers_per_gather', '0', true), set_config('enable_nestloop', ?, true)", nestloop).Error; err != nil {
			return fmt.Errorf("tune: %w", err)
		}
		return fn(tx)
	})
}

// rollupSource is the SQL of kind k's (k, n, a) sums per value of a
// link-attribute grouping over the scope's window, from the attribute's own
// rollup rows (models.DimLinkFolder …: one row per value per block, however
// many links share it) for the whole hours, and the raw rows of the partial
// hours at the window's ends mapped through the links' current attributes as
// the per-link path maps them. The triggers of migration 01650 keep the
// rollups keyed by the links' current attributes, so both parts agree.
func (e *SQLEngine) rollupSource(s *scope, k kind, rg rankedGroup) (string, []any) {
	spans, edges := e.coverSpans(s)
	var parts []string
	var args []any
	for _, sp := range spans {
		q, a := e.spanSelect(s, k, rg.attr, sp, "value AS k", "n", "a", nil)
		parts, args = append(parts, q), append(args, a...)
	}
	e.rawReads.Add(1)
	if w, ok := s.rawWhere(k, edges); ok {
		amount := "0"
		if k == kSale {
			amount = "COALESCE(SUM(amount), 0)"
		}
		v := "SELECT link_id AS value, COUNT(*) AS n, " + amount + " AS a FROM " + k.table + " WHERE " + w.sql() + " GROUP BY link_id"
		args = append(args, w.args...)
		q := "SELECT " + rg.key + " AS k, v.n, v.a FROM (" + v + ") v" + rg.join
		args = append(args, s.wsID)
		if rg.cond != "" {
			q += " WHERE " + rg.cond
		}
		parts = append(parts, q)
	}
	if len(parts) == 0 {
		parts = []string{"SELECT value AS k, count AS n, amount AS a FROM event_aggregates WHERE 1 = 0"}
	}
	return "SELECT k, SUM(n) AS n, SUM(a) AS a FROM (" + strings.Join(parts, " UNION ALL ") + ") x GROUP BY k HAVING SUM(n) > 0 OR SUM(a) <> 0", args
}

// spanSelect is the SELECT of one signed span of dim's aggregate rows: the
// key columns, then count and amount (negated when the span subtracts) as
// n and a, restricted further by restrict when set. It counts the read.
func (e *SQLEngine) spanSelect(s *scope, k kind, dim string, sp span, keys, n, a string, restrict func(*where)) (string, []any) {
	var w where
	w.add("workspace_id = ?", s.wsID)
	w.add("event = ?", k.agg)
	w.add("dim = ?", dim+sp.grain.suffix())
	w.add("hour >= ? AND hour < ?", sp.from.UTC(), sp.to.UTC())
	if restrict != nil {
		restrict(&w)
	}
	e.spanReads[sp.grain].Add(1)
	sign := ""
	if sp.neg {
		e.subtracted.Add(1)
		sign = "-"
	}
	return "SELECT " + keys + ", " + sign + "count AS " + n + ", " + sign + "amount AS " + a + " FROM event_aggregates WHERE " + w.sql(), w.args
}

// restrictLinks limits per-link rows to the scope's links.
func (s *scope) restrictLinks(w *where) {
	if s.linksSet {
		w.add("value IN ?", s.links)
	}
	w.in("value", s.q.LinkID)
}

// coverSpans splits the scope's window into the aggregate spans of its
// whole hours (the cheapest signed cover, empty spans left out) and the
// partial hours at either end, which only the raw rows hold.
func (e *SQLEngine) coverSpans(s *scope) ([]span, []timeRange) {
	return e.coverSpansWith(s, &coverer{now: e.Now()}, weekly)
}

// coverSpansWith is coverSpans with the coverer c and grains up to top.
func (e *SQLEngine) coverSpansWith(s *scope, c *coverer, top grain) ([]span, []timeRange) {
	h0 := s.win.Start.Truncate(time.Hour)
	if h0.Before(s.win.Start) {
		h0 = h0.Add(time.Hour)
	}
	h1 := s.win.End.Add(time.Nanosecond).Truncate(time.Hour)
	if s.endExcl {
		h1 = s.win.End.Truncate(time.Hour)
	}
	if !h0.Before(h1) {
		return nil, []timeRange{s.whole()}
	}
	e.aggReads.Add(1)
	var spans []span
	for _, sp := range c.cover(h0, h1, top).spans {
		if sp.from.Before(sp.to) {
			spans = append(spans, sp)
		}
	}
	return spans, []timeRange{{s.win.Start, h0, false}, {h1, s.win.End, !s.endExcl}}
}

// rankedSource is the SQL of kind k's (value, count, amount) rows of dim
// over the scope's window: the aggregate spans (subtracted ones negated)
// and the raw rows of the partial hours at the window's ends, grouped by
// the same value. It counts the reads as fromAggregates does.
func (e *SQLEngine) rankedSource(s *scope, k kind, dim string) (string, []any) {
	spans, edges := e.coverSpans(s)
	return e.spanSource(s, k, dim, spans, edges)
}

// spanSource is rankedSource over the given spans and edges.
func (e *SQLEngine) spanSource(s *scope, k kind, dim string, spans []span, edges []timeRange) (string, []any) {
	var parts []string
	var args []any
	var restrict func(*where)
	if dim == models.DimLink {
		restrict = s.restrictLinks
	}
	for _, sp := range spans {
		q, a := e.spanSelect(s, k, dim, sp, "value", "count", "amount", restrict)
		parts, args = append(parts, q), append(args, a...)
	}
	e.rawReads.Add(1)
	if w, ok := s.rawWhere(k, edges); ok {
		col := "url"
		if dim == models.DimLink {
			col = "link_id"
		}
		amount := "0"
		if k == kSale {
			amount = "COALESCE(SUM(amount), 0)"
		}
		parts = append(parts, "SELECT "+col+" AS value, COUNT(*) AS count, "+amount+" AS amount FROM "+k.table+" WHERE "+w.sql()+" GROUP BY "+col)
		args = append(args, w.args...)
	}
	if len(parts) == 0 {
		// An empty window: a source with no rows.
		return "SELECT value, count, amount FROM event_aggregates WHERE 1 = 0", nil
	}
	return strings.Join(parts, " UNION ALL "), args
}
