package analytics

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
)

// URL rankings with the closed blocks' sums kept (issue 34 item 3;
// bench/README.md, "Issue 34 item 3: the closed blocks' sums kept"). With
// the checks kept (chchecks.go) a 1y ranking by URL hash still summed a
// year of rollup rows, 25,000 URLs a block, and joined the sums with the
// URL strings, every query, though only the open four-week block and the
// raw edge hours can change between two queries: each kind cost about the
// same fixed 55–60 ms, and composite three times that.
//
// Here the sums of the cover's spans that lie in closed blocks are kept in
// memory, keyed by the spans and by the hourly totals of their blocks that
// the checks read in the same query: rollup rows are only ever added (see
// checkCache; a rebuild, which replaces rows, drops them: chRebuilds), so
// blocks whose totals have not moved hold the same sums.
// Each query reads only the open block's spans and the raw edge hours,
// adds the kept sums, and ranks in Go as ClickHouse did (main counter
// descending, then the URL byte-wise, cut at RowLimit), with the URL
// strings kept per workspace (a hash's string never changes; a hash not
// kept reloads them once, and one still missing falls back as before).
// The link-keyed groupings (top_links, and those summed by link and folded
// in Go) keep their closed sums by link the same way (chReadKept), and
// top_links is ranked in Go from them.

// sumsCache keeps the closed spans' sums by key (closedKey): by URL hash
// (the URL rankings) or by value (chReadKept).
type sumsCache[K comparable] struct {
	mu sync.Mutex
	m  map[string]map[K]counts
}

// maxSums bounds the sums kept (each about 25,000 entries at 100M clicks a
// year): past it, the cache starts over. Sums over more than maxSumKeys
// URLs are used once and not kept.
const (
	maxSums    = 32
	maxSumKeys = 1 << 17
)

func (c *sumsCache[K]) get(key string) map[K]counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *sumsCache[K]) put(key string, v map[K]counts) {
	if len(v) > maxSumKeys {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxSums {
		c.m = map[string]map[K]counts{}
	}
	c.m[key] = v
}

// nameCache keeps each workspace's URL strings by hash (the urls table),
// and which workspaces have too many to keep.
type nameCache struct {
	mu  sync.Mutex
	m   map[string]map[uint64]string
	big map[string]bool
}

func (c *nameCache) tooMany(ws string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.big[ws]
}

// maxNames bounds the strings kept for one workspace (a workspace with more
// URLs ranks with the join in ClickHouse; a variable for the test of that),
// maxNameSets the workspaces.
var maxNames = 1 << 17

const maxNameSets = 8

// chRankURLsKept is chRankURLs with the closed blocks' sums kept; ok is
// false when it does not apply: no span lies wholly in closed blocks whose
// totals the checks read, or one such span is not hashed (then the whole
// ranking is left to ClickHouse), or a ranked hash has no string.
func (e *SQLEngine) chRankURLsKept(ctx context.Context, s *scope, k kind, dim string, base bool, cv chCover) (ranked, bool, error) {
	if e.names.tooMany(s.wsID) {
		return ranked{}, false, nil
	}
	open := fourWeekly.floor(e.Now())
	closed, rest, restHashed, closedHashed := splitAt(cv.spans, cv.hashed, open)
	if !closedHashed {
		return ranked{}, false, nil
	}
	key, ok := closedKey(s.wsID, k, dim, base, closed, cv.totals, open)
	if !ok {
		return ranked{}, false, nil
	}
	sums := e.closed.get(key)
	if sums == nil {
		var err error
		if sums, err = e.chHashSums(ctx, e.chURLParts(s, k, dim, closed, trues(len(closed)), nil, base)); err != nil {
			return ranked{}, false, fmt.Errorf("sum %s by %s hash over closed blocks: %w", k.table, s.q.GroupBy, err)
		}
		e.closedBuilds.Add(1)
		e.closed.put(key, sums)
	} else {
		e.closedKept.Add(1)
	}
	all, err := e.chHashSums(ctx, e.chURLParts(s, k, dim, rest, restHashed, cv.edges, base))
	if err != nil {
		return ranked{}, false, fmt.Errorf("rank %s by %s hash: %w", k.table, s.q.GroupBy, err)
	}
	addCounts(all, sums)
	e.rankedReads.Add(1)
	e.urlHashRanks.Add(1)
	return e.rankHashes(ctx, s, k, all)
}

// closedKey is the key of the sums of the closed spans: the workspace,
// kind, dim, base, the spans, and the totals of the blocks from the first
// span's to open. ok is false when no span is closed or a block's totals
// were not read (the cover reaches outside the checked blocks).
func closedKey(ws string, k kind, dim string, base bool, closed []span, totals map[int64]string, open time.Time) (string, bool) {
	if len(closed) == 0 {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%v|", ws, k.agg, dim, base)
	first := closed[0].from
	for _, sp := range closed {
		if sp.from.Before(first) {
			first = sp.from
		}
		fmt.Fprintf(&b, "%d-%d-%d-%v,", sp.from.Unix(), sp.to.Unix(), sp.grain, sp.neg)
	}
	b.WriteByte('|')
	for blk := fourWeekly.floor(first); blk.Before(open); blk = fourWeekly.next(blk) {
		t, ok := totals[blk.Unix()]
		if !ok {
			return "", false
		}
		b.WriteString(t)
		b.WriteByte(',')
	}
	return b.String(), true
}

// splitAt divides spans (empty ones left out) at open: the parts before it
// (closed) and from it (rest), a span across it cut in two; restHashed are
// rest's flags of hashed (nil when hashed is), and closedHashed whether
// every closed part's span is hashed (true when hashed is nil).
func splitAt(spans []span, hashed []bool, open time.Time) (closed, rest []span, restHashed []bool, closedHashed bool) {
	closedHashed = true
	for i, sp := range spans {
		if !sp.from.Before(sp.to) {
			continue
		}
		h := hashed == nil || hashed[i]
		if sp.from.Before(open) {
			closedHashed = closedHashed && h
			if !sp.to.After(open) {
				closed = append(closed, sp)
				continue
			}
			closed = append(closed, span{sp.from, open, sp.grain, sp.neg})
			sp.from = open // the rest of it
		}
		rest = append(rest, sp)
		if hashed != nil {
			restHashed = append(restHashed, h)
		}
	}
	return closed, rest, restHashed, closedHashed
}

func trues(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// chHashSums runs the (h, n, a) SELECTs parts as one UNION ALL and returns
// the sums by hash.
func (e *SQLEngine) chHashSums(ctx context.Context, parts []string) (map[uint64]counts, error) {
	out := map[uint64]counts{}
	if len(parts) == 0 {
		return out, nil
	}
	q := "SELECT h, sum(n), sum(a) FROM (" + strings.Join(parts, " UNION ALL ") + ") GROUP BY h"
	err := e.CH.Query(ctx, q, func(row []string) error {
		c, err := countsOf(row)
		if err != nil {
			return err
		}
		h, err := strconv.ParseUint(row[0], 10, 64)
		if err != nil {
			return fmt.Errorf("hash %q: %w", row[0], err)
		}
		out[h] = c
		return nil
	})
	return out, err
}

// rankHashes ranks sums by their URL strings: the groups with events, ""
// and "Unknown" left out, as chRankURLs' statement does. ok is false when a
// hash with events has no string (counted and logged by the caller's
// fallback).
func (e *SQLEngine) rankHashes(ctx context.Context, s *scope, k kind, sums map[uint64]counts) (ranked, bool, error) {
	names, err := e.urlNames(ctx, s.wsID, sums)
	if err != nil || names == nil {
		return ranked{}, false, err
	}
	l := sumList{keys: make([]string, 0, len(sums)), vals: make([]counts, 0, len(sums))}
	for h, c := range sums {
		if c.n <= 0 && c.amount == 0 {
			continue
		}
		name, ok := names[h]
		if !ok {
			return ranked{}, false, nil // chRankURLs meets it too, and falls back
		}
		l.keys, l.vals = append(l.keys, name), append(l.vals, c)
	}
	return rankSums(k, []sumList{l}, func(name string) bool { return name != "" && name != "Unknown" }, true), true, nil
}

// urlNames returns the workspace's URL strings by hash, reloaded from urls
// when a hash of sums with events is not kept; nil when the workspace has
// more than maxNames.
func (e *SQLEngine) urlNames(ctx context.Context, ws string, sums map[uint64]counts) (map[uint64]string, error) {
	e.names.mu.Lock()
	names := e.names.m[ws]
	e.names.mu.Unlock()
	if names != nil {
		complete := true
		for h, c := range sums {
			if _, ok := names[h]; !ok && (c.n > 0 || c.amount != 0) {
				complete = false
				break
			}
		}
		if complete {
			return names, nil
		}
	}
	names = map[uint64]string{}
	err := e.CH.Query(ctx, "SELECT value_hash, any(name) FROM urls WHERE workspace_id = "+chstore.Quote(ws)+" GROUP BY value_hash", func(row []string) error {
		if len(row) != 2 {
			return fmt.Errorf("%d columns, want 2", len(row))
		}
		h, err := strconv.ParseUint(row[0], 10, 64)
		if err != nil {
			return fmt.Errorf("hash %q: %w", row[0], err)
		}
		names[h] = row[1]
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read URL strings: %w", err)
	}
	e.names.mu.Lock()
	defer e.names.mu.Unlock()
	if len(names) > maxNames {
		if e.names.big == nil {
			e.names.big = map[string]bool{}
		}
		e.names.big[ws] = true
		return nil, nil
	}
	if e.names.m == nil || len(e.names.m) >= maxNameSets {
		e.names.m = map[string]map[uint64]string{}
	}
	e.names.m[ws] = names
	return names, nil
}

// chReadKept is chFromAggregates' read of a cover whose blocks' totals were
// read (the link- and URL-keyed rollups' checked covers, and those of the
// other dims keepsDim keeps) with the sums of its closed spans kept, as
// chRankURLsKept keeps the URL rankings': keyed also by the grouping and
// by everything chSpanSelects restricts the rows by (the scope's links, the
// linkId filter, the dimension filter).
func (e *SQLEngine) chReadKept(ctx context.Context, s *scope, k kind, key keySpec, dim string, cv chCover, df *dimFilter) (map[string]counts, error) {
	open := fourWeekly.floor(e.Now())
	closed, rest, _, _ := splitAt(cv.spans, nil, open)
	ck, ok := closedKey(s.wsID, k, dim, false, closed, cv.totals, open)
	var kept map[string]counts
	if ok {
		ck += fmt.Sprintf("|%d|%s", key.kind, scopeSig(s, df))
		if kept = e.closedVals.get(ck); kept == nil {
			var err error
			if kept, err = e.chReadAggregates(ctx, s, k, key, dim, closed, df); err != nil {
				return nil, err
			}
			e.closedBuilds.Add(1)
			e.closedVals.put(ck, kept)
			// Judged on unrestricted scopes only: a filtered one can hold
			// few of a many-valued dim's values.
			unrestricted := !s.linksSet && len(s.q.LinkID.Values) == 0 && df == nil
			if !chFourWeekDims[dim] && unrestricted && len(kept) < minKeptValues {
				e.fewValues.Store(keptDimKey(s, k, dim), true)
			}
		} else {
			e.closedKept.Add(1)
		}
	} else {
		rest = cv.spans
	}
	out, err := e.chReadAggregates(ctx, s, k, key, dim, rest, df)
	if err != nil {
		return nil, err
	}
	ec, err := e.chCount(ctx, s, k, key, cv.edges)
	if err != nil {
		return nil, err
	}
	addCounts(out, kept)
	addCounts(out, ec)
	return out, nil
}

// scopeSig is a digest of what restricts the rollup rows chSpanSelects
// reads beyond the workspace, kind, dim and hours.
func scopeSig(s *scope, df *dimFilter) string {
	h := fnv.New64a()
	w := func(vs ...string) {
		for _, v := range vs {
			h.Write([]byte(v))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	w(strconv.FormatBool(s.linksSet))
	w(s.links...)
	w(strconv.FormatBool(s.q.LinkID.Negate))
	w(s.q.LinkID.Values...)
	if df != nil {
		w(df.dim, strconv.FormatBool(df.f.Negate))
		w(df.f.Values...)
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// KeptStats is what the ClickHouse engine keeps between queries
// (chchecks.go, chclosed.go), for /metrics.
type KeptStats struct {
	ChecksKept  int64 // four-week blocks whose checks were kept …
	ChecksStale int64 // … and kept blocks found changed, checked again
	SumsKept    int64 // rankings answered with their closed blocks' sums kept …
	SumsBuilt   int64 // … and closed blocks' sums read to be kept
	Rebuilds    int64 // times everything kept was dropped: a rebuild replaced rollups
	Blocks      int   // closed four-week blocks kept as complete now
	Sums        int   // closed blocks' sums kept now (by URL hash and by link or value)
	SumKeys     int   // the keys (URLs, links, values) in those sums
	URLNames    int   // URL strings kept (all workspaces)
}

// Kept reports what the engine keeps between queries and how often it
// served.
func (e *SQLEngine) Kept() KeptStats {
	ks := KeptStats{ChecksKept: e.checksKept.Load(), ChecksStale: e.checksStale.Load(),
		SumsKept: e.closedKept.Load(), SumsBuilt: e.closedBuilds.Load(), Rebuilds: e.keptDropped.Load()}
	ks.Blocks = e.checks.size()
	ks.Sums, ks.SumKeys = e.closed.size()
	n, k := e.closedVals.size()
	ks.Sums, ks.SumKeys = ks.Sums+n, ks.SumKeys+k
	e.names.mu.Lock()
	for _, m := range e.names.m {
		ks.URLNames += len(m)
	}
	e.names.mu.Unlock()
	return ks
}

// clear drops every sum kept.
func (c *sumsCache[K]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// size is how many sums are kept and their keys in all.
func (c *sumsCache[K]) size() (sums, keys int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.m {
		keys += len(m)
	}
	return len(c.m), keys
}

// minKeptValues: a dim without four-week rows whose closed sums hold fewer
// values than this (devices, countries, …) is not worth their extra
// statement (the blocks' totals): its year of weekly rows is a few
// thousand at most. The many-valued ones (cities, referrer URLs, UTM
// values) are: composite cities at 1y read a quarter of a million weekly
// rows per kind at 100M clicks. (A variable for the tests.)
var minKeptValues = 1000

// keepsDim reports whether the closed sums of dim, which has no four-week
// rows, are kept for s: its window holds a closed four-week block, and the
// dim was not found to have few values in s's workspace.
func (e *SQLEngine) keepsDim(s *scope, k kind, dim string) bool {
	if chFourWeekDims[dim] || e.ForceRaw || !s.spansClosedBlock(e.Now()) {
		return false
	}
	_, few := e.fewValues.Load(keptDimKey(s, k, dim))
	return !few
}

func keptDimKey(s *scope, k kind, dim string) string { return s.wsID + "|" + k.agg + "|" + dim }

// hullOf is the hours spans cover, from the first start to the last end.
func hullOf(spans []span) timeRange {
	var r timeRange
	for _, sp := range spans {
		if sp.from.Before(sp.to) {
			r = widen(r, sp.from, sp.to)
		}
	}
	return r
}
