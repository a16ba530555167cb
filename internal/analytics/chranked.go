package analytics

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
)

// Rankings in ClickHouse (issue 34 item 3). top_links, top_urls and
// top_base_urls have one group per link or URL: at 100M clicks a year,
// 25,000 URLs per event kind, each with a rollup row per week of a 1y
// window. Summed in ClickHouse and folded and ranked in Go (measure, then
// foldDimension), every kind sent all 25,000 sums over HTTP to be parsed,
// hashed into a map and ranked, and composite did it three times, to keep
// 5,000 of each (bench/README.md, "ClickHouse at 100M clicks, a year
// (issue 34 item 3)").
// Here ClickHouse sums, folds (the grouping's key and its dropped values),
// orders as rank does (main counter descending, then key ascending
// byte-wise: ClickHouse compares String as bytes, as Go does) and cuts at
// RowLimit in the same statement; only the rows combine uses travel.

// chRankedKey is a ranked grouping's key over the rollups' value column
// and the condition its groups meet: the groupings' folds in dimSpecs drop
// "" and, for URLs, "Unknown".
func chRankedKey(g GroupBy) (key, cond string, ok bool) {
	switch g {
	case TopLinks:
		return "value", "value != ''", true
	case TopURLs:
		return "value", "value NOT IN ('', 'Unknown')", true
	case TopBaseURLs:
		k := chstore.CutAtQuery("value")
		return k, k + " NOT IN ('', 'Unknown')", true
	}
	return "", "", false
}

// chRankAll is rankAll over ClickHouse: each event kind of the query
// ranked by one statement, the kinds of composite in parallel (as
// measureAll runs them). ok is false for the groupings chRankedKey does not
// know; they are summed and folded in Go.
func (e *SQLEngine) chRankAll(ctx context.Context, s *scope) (map[kind]ranked, bool, error) {
	gkey, cond, ok := chRankedKey(s.q.GroupBy)
	if !ok {
		return nil, false, nil
	}
	key := keySpec{kind: keyDim, dim: dimSpecs[s.q.GroupBy].dim}
	if s.q.GroupBy == TopLinks {
		key = keySpec{kind: keyLink}
	}
	per, err := rankKinds(kindsOf(s.q.Event), true, func(_ int, k kind) (ranked, error) {
		if s.q.GroupBy == TopURLs || s.q.GroupBy == TopBaseURLs {
			r, ok, err := e.chRankURLs(ctx, s, k, key, s.q.GroupBy == TopBaseURLs)
			if err != nil || ok {
				return r, err
			}
		}
		return e.chRank(ctx, s, k, key, gkey, cond)
	})
	if err != nil {
		return nil, false, err
	}
	return per, true, nil
}

// chRank ranks kind k's events by the grouping whose key and condition
// chRankedKey gives, over the rows of key (links or URLs) that measure
// would sum: the rollups' signed cover of the window's whole hours and the
// raw rows of the partial hours at its ends when the planner allows the
// rollups, the raw rows of the whole window otherwise.
func (e *SQLEngine) chRank(ctx context.Context, s *scope, k kind, key keySpec, gkey, cond string) (ranked, error) {
	e.rankedReads.Add(1)
	r := ranked{vals: map[string]counts{}}
	if s.linksSet && len(s.links) == 0 {
		return r, nil
	}
	if key.kind == keyLink && !e.ForceRaw && s.spansClosedBlock(e.Now()) {
		// Ranked in Go from the sums, whose closed blocks are kept
		// (chReadKept): a window holding a closed four-week block sums it
		// from memory, and 5,000 links of a workspace's 5,000 travel
		// either way. Shorter windows rank in ClickHouse, which sends only
		// the 5,000 ranked of however many links.
		if agg, df := e.aggregatable(s, k, key); agg && df == nil {
			m, err := e.chFromAggregates(ctx, s, k, key, nil)
			if err != nil {
				return ranked{}, fmt.Errorf("rank %s by %s: %w", k.table, s.q.GroupBy, err)
			}
			return rankSums(k, []sumList{listOf(m)}, func(v string) bool { return v != "" }, true), nil
		}
	}
	src, ok, err := e.chRankSource(ctx, s, k, key)
	if err != nil || !ok {
		return r, err
	}
	main := "sn"
	if k == kSale {
		main = "sa"
	}
	q := "SELECT " + gkey + " AS g, sum(n) AS sn, sum(a) AS sa FROM (" + src + ") WHERE " + cond +
		" GROUP BY g HAVING sn > 0 OR sa != 0 ORDER BY " + main + " DESC, g LIMIT " + strconv.Itoa(RowLimit)
	if err := e.CH.Query(ctx, q, r.add); err != nil {
		return ranked{}, fmt.Errorf("rank %s by %s: %w", k.table, s.q.GroupBy, err)
	}
	return r, nil
}

// add appends a ClickHouse ranking's row (key, n, amount) to r.
func (r *ranked) add(row []string) error {
	c, err := countsOf(row)
	if err != nil {
		return err
	}
	r.keys = append(r.keys, row[0])
	r.vals[row[0]] = c
	return nil
}

// chRankURLs ranks kind k's events by URL (base: by the URL cut at '?',
// top_base_urls) as chRank does, grouping by the URLs' hashes instead of
// their strings (migration 01590; docs/clickhouse.md, "Rankings by URL
// hash"): the spans of the rollups' cover whose url_aggregates rows are
// complete (chChecks) read those, the others event_aggregates with the
// strings hashed as they are read, the raw edge hours the raw rows the same
// way; the sums are grouped by hash, the strings of the groups looked up in
// urls, and the order by string and the cut applied after the lookup, so
// the answer is chRank's. ok is false when this does not apply — a filter
// on the URLs, no rollups for the scope, ForceRaw, a window without a whole
// four-week block (short windows rank as fast by the strings), or a ranked
// hash missing from urls (logged; chRank then ranks by the strings).
func (e *SQLEngine) chRankURLs(ctx context.Context, s *scope, k kind, key keySpec, base bool) (ranked, bool, error) {
	agg, df := e.aggregatable(s, k, key)
	if !agg || df != nil || e.ForceRaw || e.NoURLHashes || s.linksSet && len(s.links) == 0 {
		return ranked{}, false, nil
	}
	dim := s.aggDim(key, df)
	cv, err := e.chCoverSpansChecked(ctx, s, k, dim, true)
	if err != nil || cv.hashed == nil {
		return ranked{}, false, err
	}
	spans, edges, hashed := cv.spans, cv.edges, cv.hashed
	if r, ok, err := e.chRankURLsKept(ctx, s, k, dim, base, cv); err != nil || ok {
		return r, ok, err
	}
	parts := e.chURLParts(s, k, dim, spans, hashed, edges, base)
	e.rankedReads.Add(1)
	e.urlHashRanks.Add(1)
	r := ranked{vals: map[string]counts{}}
	if len(parts) == 0 {
		return r, true, nil
	}
	main := "sn"
	if k == kSale {
		main = "sa"
	}
	q := "SELECT if(found = 1, name, '') AS g, sn, sa, found FROM (SELECT h, sum(n) AS sn, sum(a) AS sa FROM (" +
		strings.Join(parts, " UNION ALL ") + ") GROUP BY h HAVING sn > 0 OR sa != 0) AS sums ANY LEFT JOIN " +
		"(SELECT value_hash AS h, name, toUInt8(1) AS found FROM urls WHERE workspace_id = " + chstore.Quote(s.wsID) + ") AS names USING h " +
		"WHERE found = 0 OR name NOT IN ('', 'Unknown') ORDER BY found, " + main + " DESC, g LIMIT " + strconv.Itoa(RowLimit)
	missing := false
	err = e.CH.Query(ctx, q, func(row []string) error {
		if len(row) != 4 {
			return fmt.Errorf("%d columns, want 4", len(row))
		}
		if row[3] != "1" {
			missing = true
			return nil
		}
		return r.add(row[:3])
	})
	if err != nil {
		return ranked{}, false, fmt.Errorf("rank %s by %s hash: %w", k.table, s.q.GroupBy, err)
	}
	if missing {
		// Logged at most once a minute: every ranking meets the same gap
		// until a rebuild fills it.
		if n := e.urlHashMisses.Add(1); n == 1 || time.Since(time.Unix(0, e.urlMissLogged.Load())) > time.Minute {
			e.urlMissLogged.Store(time.Now().UnixNano())
			slog.Warn("clickhouse: a ranked URL hash has no string in urls; ranking by the strings (relink clickhouse rebuild-rollups copies them)",
				"workspace", s.wsID, "event", k.agg, "groupBy", s.q.GroupBy, "since_start", n)
		}
		return ranked{}, false, nil
	}
	return r, true, nil
}

// chRankSource is the SQL of kind k's (value, n, a) rows of key (links or
// URLs) over the scope's window, as a UNION ALL; ok is false when the
// window holds nothing to read. It counts the reads as measure does.
func (e *SQLEngine) chRankSource(ctx context.Context, s *scope, k kind, key keySpec) (string, bool, error) {
	edges := []timeRange{s.whole()}
	var parts []string
	if ok, df := e.aggregatable(s, k, key); ok && !e.ForceRaw {
		dim := s.aggDim(key, df)
		var spans []span
		var err error
		if spans, edges, err = e.chCoverSpans(ctx, s, k, dim); err != nil {
			return "", false, err
		}
		parts = e.chSpanSelects(s, k, dim, spans, df, "value")
	}
	e.rawReads.Add(1)
	if w, ok := s.chWhereOf(k, edges); ok {
		col := "url" // top_urls, top_base_urls
		if key.kind == keyLink {
			col = "link_id"
		}
		amount := "toInt64(0)"
		if k == kSale {
			amount = "sum(amount)"
		}
		parts = append(parts, "SELECT "+col+" AS value, toInt64(count()) AS n, "+amount+" AS a FROM "+k.table+" WHERE "+w.sql()+" GROUP BY "+col)
	}
	if len(parts) == 0 {
		return "", false, nil
	}
	return strings.Join(parts, " UNION ALL "), true, nil
}

// chURLParts are the SELECTs of kind k's (hash, n, a) rows over spans —
// from url_aggregates' stored hashes where hashed says its rows are
// complete, from event_aggregates with the strings hashed as read
// elsewhere — and over the raw rows of the edges (none when edges is
// empty); base hashes the URLs cut at '?'. It counts the reads.
func (e *SQLEngine) chURLParts(s *scope, k kind, dim string, spans []span, hashed []bool, edges []timeRange, base bool) []string {
	stored, read, raw := "value_hash", "cityHash64(value)", "cityHash64(url)"
	if base {
		stored, read, raw = "base_hash", "cityHash64("+chstore.CutAtQuery("value")+")", "cityHash64("+chstore.CutAtQuery("url")+")"
	}
	var parts []string
	for i, sp := range spans {
		if hashed[i] {
			parts = append(parts, e.chSpanSelectsFrom("url_aggregates", s, k, dim, spans[i:i+1], nil, stored+" AS h")...)
			continue
		}
		e.urlSpansUnhashed.Add(1)
		parts = append(parts, e.chSpanSelects(s, k, dim, []span{sp}, nil, read+" AS h")...)
	}
	if len(edges) == 0 {
		return parts
	}
	e.rawReads.Add(1)
	if w, ok := s.chWhereOf(k, edges); ok {
		amount := "toInt64(0)"
		if k == kSale {
			amount = "sum(amount)"
		}
		parts = append(parts, "SELECT "+raw+" AS h, toInt64(count()) AS n, "+amount+" AS a FROM "+k.table+" WHERE "+w.sql()+" GROUP BY h")
	}
	return parts
}

// spansClosedBlock reports whether the scope's window holds a whole
// four-week block that ended by now: one whose sums chReadKept keeps.
func (s *scope) spansClosedBlock(now time.Time) bool {
	b := fourWeekly.ceil(s.win.Start)
	end := fourWeekly.next(b)
	return !end.After(fourWeekly.floor(now)) && !end.After(s.win.End)
}
