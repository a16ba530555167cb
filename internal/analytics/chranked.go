package analytics

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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
		k := chCutQuery("value")
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
	err = e.CH.Query(ctx, q, func(row []string) error {
		c, err := countsOf(row)
		if err != nil {
			return err
		}
		r.keys = append(r.keys, row[0])
		r.vals[row[0]] = c
		return nil
	})
	if err != nil {
		return ranked{}, fmt.Errorf("rank %s by %s: %w", k.table, s.q.GroupBy, err)
	}
	return r, nil
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
