package analytics

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Closed four-week blocks found complete, kept between queries (issue 34
// item 3; bench/README.md, "Issue 34 item 3: the checks kept between
// queries"). At 100M clicks a year, chChecks' reading of the link rows'
// four-week sums and url_aggregates' hourly totals cost a third of a 1y
// ranking, and every query read them again for the same closed blocks.
//
// A block found complete stays complete while its hourly totals do not
// change: rollup rows are only ever added — by an insert that writes the
// block's four-week, URL and total rows together — so the link rows cannot
// lose an event the totals keep, and an event added to the block changes
// its totals. The one writer that replaces rows, a rebuild, is seen by its
// rebuild_cursor rows (chRebuilds), and everything kept is dropped then.
// Each query still reads the totals (one branch, a row per hour) and compares them with the ones kept; a block
// whose totals moved is dropped and checked again in the same query. Only
// complete blocks are kept: a block found lacking rows is checked every
// time, so the rows a rebuild adds are used as soon as they are there.
type checkCache struct {
	mu sync.Mutex
	m  map[checkKey]checkEntry
}

type checkKey struct {
	ws, event string
	block     int64 // the four-week block's start, unix seconds
}

type checkEntry struct {
	total string // the block's hourly totals' sum when it was found complete
	urls  bool   // url_aggregates then held every event of the block too
}

// maxChecks bounds the cache (13 blocks a year per workspace and event
// kind): past it, it starts over.
const maxChecks = 100000

func (c *checkCache) get(k checkKey) (checkEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ce, ok := c.m[k]
	return ce, ok
}

func (c *checkCache) put(k checkKey, ce checkEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxChecks {
		c.m = map[checkKey]checkEntry{}
	}
	c.m[k] = ce
}

// size is how many blocks are kept.
func (c *checkCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// clear drops every block kept.
func (c *checkCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// dropKept drops every check and closed sum kept (a rebuild; a restart in
// the tests). The URL strings stay: a hash's string never changes.
func (e *SQLEngine) dropKept() {
	e.checks.clear()
	e.closed.clear()
	e.closedVals.clear()
}

func (c *checkCache) drop(k checkKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// checkPlan is what one chChecks statement reads: the hourly totals of every
// block of four (always: they validate the kept blocks), the link rows of
// the blocks not kept, and url_aggregates' totals over the hours of hashes
// outside the blocks kept with their URL rows complete.
type checkPlan struct {
	kept  map[int64]checkEntry // blocks kept, by start
	links []timeRange          // blocks to check, adjacent ones joined
	urls  []timeRange          // hours whose URL rows to check
}

// planChecks looks the blocks of four up in the cache (none when fresh is
// set) and returns what is left to read.
func (e *SQLEngine) planChecks(wsID, event string, four, hashes timeRange, fresh bool) checkPlan {
	p := checkPlan{kept: map[int64]checkEntry{}}
	cur := hashes.from
	for b := four.from; b.Before(four.to); b = fourWeekly.next(b) {
		ce, ok := e.checks.get(checkKey{wsID, event, b.Unix()})
		if !ok || fresh {
			p.links = joinRange(p.links, b, fourWeekly.next(b))
			continue
		}
		p.kept[b.Unix()] = ce
		if ce.urls && !hashes.from.IsZero() {
			if cur.Before(b) {
				p.urls = append(p.urls, timeRange{from: cur, to: b})
			}
			cur = fourWeekly.next(b)
		}
	}
	if !hashes.from.IsZero() && cur.Before(hashes.to) {
		p.urls = append(p.urls, timeRange{from: cur, to: hashes.to})
	}
	return p
}

// joinRange appends [from, to) to rs, extending the last range when they
// meet.
func joinRange(rs []timeRange, from, to time.Time) []timeRange {
	if n := len(rs) - 1; n >= 0 && rs[n].to.Equal(from) {
		rs[n].to = to
		return rs
	}
	return append(rs, timeRange{from: from, to: to})
}

// within reports whether the hours [from, to) lie in r.
func within(r timeRange, from, to time.Time) bool {
	return !r.from.IsZero() && !from.Before(r.from) && !to.After(r.to)
}

// keptRecheck is how often (at most) the kept checks and sums ask whether a
// rebuild replaced rollup rows since they were read (a variable for the
// tests).
var keptRecheck = 10 * time.Second

// rebuildMark is the last rebuild_cursor entry seen, and when it was read.
type rebuildMark struct {
	mu   sync.Mutex
	seq  string
	read time.Time
}

// chRebuilds drops every check and sum kept when `relink clickhouse
// rebuild-rollups` has replaced a month since they were read. A rebuild
// recomputes a month's rollups from the raw rows: where the rows it replaces
// were wrong (the reason to run it), the new ones can differ with the same
// hourly totals, which is all the kept entries are compared by. Each month
// it replaces adds a rebuild_cursor row (a new seq), read here at most every
// keptRecheck: answers reflect a rebuild within that time, without a
// restart. Entries read after the mark was taken but before a swap are
// dropped at the next look as well, so none outlives the rows it summed.
func (e *SQLEngine) chRebuilds(ctx context.Context) error {
	m := &e.rebuilt
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.read.IsZero() && time.Since(m.read) < keptRecheck {
		return nil
	}
	var seq string
	if err := e.CH.Query(ctx, "SELECT toString(max(seq)) FROM rebuild_cursor", func(c []string) error {
		seq = c[0]
		return nil
	}); err != nil {
		return fmt.Errorf("rebuild position: %w", err)
	}
	if !m.read.IsZero() && seq != m.seq {
		e.dropKept()
		e.keptDropped.Add(1)
	}
	m.seq, m.read = seq, time.Now()
	return nil
}
