package analytics

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/relinkhq/relink/models"
)

// Aggregate vectors (migration 01700, docs/analytics.md "Aggregate
// vectors"). top_links, top_urls and top_base_urls rank every link or URL
// with events in the window: at 50,000 links a 30-day window summed about
// 175,000 per-link rows of weeks and days, and a year 520,000, in the
// database (130–460 ms; bench/README.md "Aggregate vectors"). A vector is
// one day's or one week's per-link (or per-URL) rows packed into one blob,
// so a sealed block, one that has ended, costs one row read and a tight
// decoding loop instead of one row per link. The blocks still open (today,
// this week) and the partial hours at the window's ends are read as rows,
// as before.
//
// A vector is built from the event_aggregates rows of its block the first
// time a query needs it, in one statement that also sums the block's
// revision rows (models.DimRevision: every aggregate write counts one per
// day it touches). A reader uses a vector only while that sum is unchanged,
// and rebuilds it otherwise, so an answer is always exactly what the rows
// say, whatever wrote them and when.

// vecUnit is one block read as a vector, added or (neg) subtracted.
type vecUnit struct {
	grain grain
	from  time.Time
	neg   bool
}

func (u vecUnit) end() time.Time { return u.grain.next(u.from) }

// vecDim is the aggregate dimension of dim's vectors (and rows) of g.
func vecDim(dim string, g grain) string { return dim + g.suffix() }

// splitSealed splits the cover's spans into the sealed blocks read as
// vectors (whole days and weeks that ended by now) and the spans left to
// read as rows (hours, and the blocks not yet ended).
func splitSealed(spans []span, now time.Time) ([]vecUnit, []span) {
	var units []vecUnit
	var rows []span
	for _, sp := range spans {
		if sp.grain == hourly {
			rows = append(rows, sp)
			continue
		}
		b := sp.from
		for ; b.Before(sp.to) && !sp.grain.next(b).After(now); b = sp.grain.next(b) {
			units = append(units, vecUnit{sp.grain, b, sp.neg})
		}
		if b.Before(sp.to) {
			rows = append(rows, span{b, sp.to, sp.grain, sp.neg})
		}
	}
	return units, rows
}

// vecOK reports whether rankFromVectors answers the ranking of rg (the
// groupings keyed by link or URL themselves: top_links, top_urls,
// top_base_urls).
func (e *SQLEngine) vecOK(rg rankedGroup) bool {
	return !e.NoVectors && rg.join == "" && rg.attr == ""
}

// rankFromVectors is rankInDB for top_links, top_urls and top_base_urls:
// the sums of the sealed blocks from their vectors, added by value number
// into one array, the rest from rows summed by the database; then folded,
// filtered and ranked in Go as the SQL statement would (same keys, same
// order, same cut).
func (e *SQLEngine) rankFromVectors(ctx context.Context, s *scope, k kind, rg rankedGroup, ordered bool) (ranked, error) {
	fail := func(err error) (ranked, error) {
		return ranked{}, fmt.Errorf("rank %s by %s: %w", k.table, s.q.GroupBy, err)
	}
	c := coverer{now: e.Now(), vec: true}
	spans, edges := e.coverSpansWith(s, &c, weekly)
	units, rowSpans := splitSealed(spans, c.now)
	vecs, err := e.vectors(ctx, s.wsID, k, rg.dim, units)
	if err != nil {
		return fail(err)
	}
	// Every number in the vectors is in the dictionary read after them.
	d, keys, err := e.dictKeys(ctx, s.wsID, rg.dim)
	if err != nil {
		return fail(err)
	}
	byID := make([]counts, len(keys))
	for i, u := range units {
		e.vecReads.Add(1)
		if err := addPacked(byID, vecs[i], u.neg); err != nil {
			return fail(fmt.Errorf("vector %s %s %s: %w", k.agg, vecDim(rg.dim, u.grain), u.from.Format(time.RFC3339), err))
		}
	}
	src, args := e.spanSource(s, k, rg.dim, rowSpans, edges)
	var rowVals []string
	var rowSums []counts
	rows, err := e.DB.WithContext(ctx).Raw("SELECT value, SUM(count), SUM(amount) FROM ("+src+") s GROUP BY value", args...).Rows()
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		var v string
		var c counts
		if err := rows.Scan(&v, &c.n, &c.amount); err != nil {
			return fail(err)
		}
		rowVals, rowSums = append(rowVals, v), append(rowSums, c)
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	other := newSumSet() // values no vector has numbered yet
	d.mu.Lock()
	for i, v := range rowVals {
		if id, ok := d.idx[v]; ok && int(id) < len(byID) {
			byID[id].n += rowSums[i].n
			byID[id].amount += rowSums[i].amount
		} else {
			other.add(v, rowSums[i].n, rowSums[i].amount)
		}
	}
	d.mu.Unlock()
	// The dictionary's values (byID, by number) and those not numbered yet
	// (other) are two lists with no key in both, ranked without copying.
	lists := []sumList{{keys, byID}, {other.keys, other.vals}}
	var keep func(string) bool
	switch s.q.GroupBy {
	case TopURLs:
		keep = func(v string) bool { return dropUnknown(v) != "" }
	case TopBaseURLs:
		folded := foldBaseURLs(lists)
		lists = []sumList{{folded.keys, folded.vals}}
	}
	if f := s.linkFilter(); f != nil && rg.dim == models.DimLink {
		keep = f
	}
	return rankSums(k, lists, keep, ordered), nil
}

// sumList is counters per key, each key once.
type sumList struct {
	keys []string
	vals []counts
}

// foldBaseURLs sums the URLs per base URL (cut at '?'), dropping the
// unknown ones, as the ranked statement's key and condition do.
func foldBaseURLs(lists []sumList) *sumSet {
	out := newSumSet()
	for _, l := range lists {
		for i, c := range l.vals {
			if c.n == 0 && c.amount == 0 {
				continue
			}
			if v := dropUnknown(cutQuery(l.keys[i])); v != "" {
				out.add(v, c.n, c.amount)
			}
		}
	}
	return out
}

// sumSet is counters per key, added with one map lookup per entry.
type sumSet struct {
	idx  map[string]int32
	keys []string
	vals []counts
}

func newSumSet() *sumSet { return &sumSet{idx: map[string]int32{}} }

func (t *sumSet) add(k string, n, a int64) {
	if i, ok := t.idx[k]; ok {
		t.vals[i].n += n
		t.vals[i].amount += a
		return
	}
	t.idx[k] = int32(len(t.keys))
	t.keys = append(t.keys, k)
	t.vals = append(t.vals, counts{n, a})
}

// rankSums is rank over lists whose keys are distinct across them: the
// groups with events (and, when keep is set, a key it accepts), main
// counter descending then key ascending byte-wise, cut at RowLimit. It
// allocates for what can make the cut only: the main counters alone find
// the RowLimit-th value, the groups above it are sorted, and of the groups
// tied at it only the first keys are kept. Unless ordered, the kept groups
// are not sorted.
func rankSums(k kind, lists []sumList, keep func(string) bool, ordered bool) ranked {
	type entry struct {
		key  string
		main int64
		c    counts
	}
	main := func(c counts) int64 {
		if k == kSale {
			return c.amount
		}
		return c.n
	}
	in := func(l sumList, i int) bool {
		c := l.vals[i]
		return (c.n > 0 || c.amount != 0) && (keep == nil || keep(l.keys[i]))
	}
	total := 0
	for _, l := range lists {
		total += len(l.vals)
	}
	mains := make([]int64, 0, total)
	for _, l := range lists {
		for i := range l.vals {
			if in(l, i) {
				mains = append(mains, main(l.vals[i]))
			}
		}
	}
	cut := int64(math.MinInt64)
	if len(mains) > RowLimit {
		cut = nthLargest(mains, RowLimit)
	}
	var above, tied []entry
	for _, l := range lists {
		for i, c := range l.vals {
			if m := main(c); m >= cut && in(l, i) {
				if m > cut {
					above = append(above, entry{l.keys[i], m, c})
				} else {
					tied = append(tied, entry{l.keys[i], m, c})
				}
			}
		}
	}
	slices.SortFunc(tied, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	es := append(above, tied[:min(len(tied), RowLimit-len(above))]...)
	if ordered {
		slices.SortFunc(es, func(a, b entry) int {
			if a.main != b.main {
				return cmp.Compare(b.main, a.main)
			}
			return strings.Compare(a.key, b.key)
		})
	}
	r := ranked{keys: make([]string, len(es)), vals: make(map[string]counts, len(es))}
	for i, e := range es {
		r.keys[i] = e.key
		r.vals[e.key] = e.c
	}
	return r
}

// linkFilter is the scope's link restriction of per-link values, as the
// per-link rows' WHERE applies it; nil when there is none.
func (s *scope) linkFilter() func(string) bool {
	if !s.linkConstrained() {
		return nil
	}
	var set map[string]bool
	if s.linksSet {
		set = make(map[string]bool, len(s.links))
		for _, id := range s.links {
			set[id] = true
		}
	}
	f := s.q.LinkID
	return func(id string) bool {
		if set != nil && !set[id] {
			return false
		}
		if f.Set() && slices.Contains(f.Values, id) == f.Negate {
			return false
		}
		return true
	}
}

// nthLargest returns the n-th largest of vs (1-based; n <= len(vs)),
// reordering vs: a quickselect, linear on average where sorting 50,000
// counters was the ranking's largest step.
func nthLargest(vs []int64, n int) int64 {
	k := len(vs) - n // its index in ascending order
	lo, hi := 0, len(vs)-1
	for lo < hi {
		p := vs[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for vs[i] < p {
				i++
			}
			for vs[j] > p {
				j--
			}
			if i <= j {
				vs[i], vs[j] = vs[j], vs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return vs[k]
		}
	}
	return vs[k]
}

// storedVector is a vector as read back: its revision and packed sums.
type storedVector struct {
	rev  int64
	data []byte
}

type vecKey struct {
	grain grain
	from  int64
}

// vectors returns the packed sums of the units, in their order,
// rebuilding the vectors that are missing or stale.
func (e *SQLEngine) vectors(ctx context.Context, wsID string, k kind, dim string, units []vecUnit) ([][]byte, error) {
	if len(units) == 0 {
		return nil, nil
	}
	revs, err := e.revisions(ctx, wsID, k, units)
	if err != nil {
		return nil, err
	}
	stored, err := e.loadVectors(ctx, wsID, k, dim, units)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(units))
	for i, u := range units {
		key := vecKey{u.grain, u.from.Unix()}
		v, ok := stored[key]
		if !ok || v.rev != revs[key] {
			if ok {
				e.vecStale.Add(1)
			}
			if v, err = e.buildVector(ctx, wsID, k, dim, u); err != nil {
				return nil, err
			}
			stored[key] = v
		}
		out[i] = v.data
	}
	return out, nil
}

// revisions sums the revision rows of each unit's days.
func (e *SQLEngine) revisions(ctx context.Context, wsID string, k kind, units []vecUnit) (map[vecKey]int64, error) {
	lo, hi := units[0].from, units[0].end()
	for _, u := range units[1:] {
		lo, hi = minTime(lo, u.from), maxTime(hi, u.end())
	}
	var rows []struct {
		Hour  time.Time
		Count int64
	}
	err := e.DB.WithContext(ctx).Raw("SELECT hour, count FROM event_aggregates WHERE workspace_id = ? AND event = ? AND dim = ? AND hour >= ? AND hour < ?",
		wsID, k.agg, models.DimRevision, lo.UTC(), hi.UTC()).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read revisions: %w", err)
	}
	out := make(map[vecKey]int64, len(units))
	for _, u := range units {
		var sum int64
		for _, r := range rows {
			if !r.Hour.Before(u.from) && r.Hour.Before(u.end()) {
				sum += r.Count
			}
		}
		out[vecKey{u.grain, u.from.Unix()}] = sum
	}
	return out, nil
}

// loadVectors reads the stored vectors of the units.
func (e *SQLEngine) loadVectors(ctx context.Context, wsID string, k kind, dim string, units []vecUnit) (map[vecKey]storedVector, error) {
	hours := map[grain][]time.Time{}
	for _, u := range units {
		hours[u.grain] = append(hours[u.grain], u.from.UTC())
	}
	var conds []string
	args := []any{wsID, k.agg}
	for _, g := range []grain{daily, weekly} {
		if len(hours[g]) > 0 {
			conds = append(conds, "(dim = ? AND hour IN ?)")
			args = append(args, vecDim(dim, g), hours[g])
		}
	}
	var rows []struct {
		Dim  string
		Hour time.Time
		Rev  int64
		Data []byte
	}
	err := e.DB.WithContext(ctx).Raw("SELECT dim, hour, rev, data FROM aggregate_vectors WHERE workspace_id = ? AND event = ? AND ("+
		strings.Join(conds, " OR ")+")", args...).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("read aggregate vectors: %w", err)
	}
	out := make(map[vecKey]storedVector, len(rows))
	for _, r := range rows {
		g := daily
		if r.Dim == vecDim(dim, weekly) {
			g = weekly
		}
		out[vecKey{g, r.Hour.Unix()}] = storedVector{r.Rev, r.Data}
	}
	return out, nil
}

// buildVector packs the block's rows and its revision, read by one
// statement (one snapshot), and stores them. A concurrent build or a write
// between the read and the store is harmless: the stored revision is the
// one the rows had, and a reader that finds another rebuilds.
func (e *SQLEngine) buildVector(ctx context.Context, wsID string, k kind, dim string, u vecUnit) (storedVector, error) {
	e.vecBuilds.Add(1)
	d := vecDim(dim, u.grain)
	from, to := u.from.UTC(), u.end().UTC()
	rows, err := e.DB.WithContext(ctx).Raw("SELECT dim, value, count, amount FROM event_aggregates WHERE workspace_id = ? AND event = ? AND "+
		"((dim = ? AND hour >= ? AND hour < ?) OR (dim = ? AND hour >= ? AND hour < ?))",
		wsID, k.agg, d, from, to, models.DimRevision, from, to).Rows()
	if err != nil {
		return storedVector{}, fmt.Errorf("build vector %s %s: %w", d, from.Format(time.DateOnly), err)
	}
	var rev int64
	var values []string
	var sums []counts
	for rows.Next() {
		var rd, value string
		var n, a int64
		if err := rows.Scan(&rd, &value, &n, &a); err != nil {
			rows.Close()
			return storedVector{}, fmt.Errorf("build vector %s: %w", d, err)
		}
		if rd == models.DimRevision {
			rev += n
		} else if n != 0 || a != 0 {
			values = append(values, value)
			sums = append(sums, counts{n, a})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return storedVector{}, fmt.Errorf("build vector %s: %w", d, err)
	}
	ids, err := e.intern(ctx, wsID, dim, values)
	if err != nil {
		return storedVector{}, fmt.Errorf("build vector %s: %w", d, err)
	}
	v := storedVector{rev: rev, data: packSums(ids, sums)}
	err = e.DB.WithContext(ctx).Exec("INSERT INTO aggregate_vectors (workspace_id, event, dim, hour, rev, data) VALUES (?, ?, ?, ?, ?, ?) "+
		"ON CONFLICT (workspace_id, event, dim, hour) DO UPDATE SET rev = excluded.rev, data = excluded.data",
		wsID, k.agg, d, from, v.rev, v.data).Error
	if err != nil {
		return storedVector{}, fmt.Errorf("store vector %s %s: %w", d, from.Format(time.DateOnly), err)
	}
	return v, nil
}

// The packed form: a format byte, then per value (by ascending number) the
// gap from the previous number (uvarint), its count and its amount
// (varints).
const vecFormat = 1

// packSums packs the sums of the numbered values.
func packSums(ids []int32, sums []counts) []byte {
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ids[a], ids[b]) })
	buf := make([]byte, 1, 1+len(ids)*4)
	buf[0] = vecFormat
	prev := int32(0)
	for _, i := range order {
		buf = binary.AppendUvarint(buf, uint64(ids[i]-prev))
		buf = binary.AppendVarint(buf, sums[i].n)
		buf = binary.AppendVarint(buf, sums[i].amount)
		prev = ids[i]
	}
	return buf
}

var errPacked = errors.New("corrupt packed sums")

// addPacked adds a vector's sums into byID by value number (subtracts them
// when neg).
func addPacked(byID []counts, data []byte, neg bool) error {
	if len(data) == 0 || data[0] != vecFormat {
		return errPacked
	}
	sign := int64(1)
	if neg {
		sign = -1
	}
	id := uint64(0)
	for i := 1; i < len(data); {
		gap, w := binary.Uvarint(data[i:])
		if w <= 0 {
			return errPacked
		}
		i += w
		n, w := binary.Varint(data[i:])
		if w <= 0 {
			return errPacked
		}
		i += w
		a, w := binary.Varint(data[i:])
		if w <= 0 {
			return errPacked
		}
		i += w
		if id += gap; id >= uint64(len(byID)) {
			return fmt.Errorf("%w: value %d past the dictionary's %d", errPacked, id, len(byID))
		}
		byID[id].n += sign * n
		byID[id].amount += sign * a
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// VectorStats reports how many sealed blocks were read as vectors, how many
// vectors were built for them, and how many of those builds replaced a
// stale one, since the engine started.
func (e *SQLEngine) VectorStats() (reads, builds, stale int64) {
	return e.vecReads.Load(), e.vecBuilds.Load(), e.vecStale.Load()
}
