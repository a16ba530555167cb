package analytics

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestVectorCoverSealsEndedBlocks: with vectors, a 30-day window reads the
// weeks and days that ended as vectors, and rows only for the open week's
// days still running and the hours of today; the split keeps every hour
// exactly once.
func TestVectorCoverSealsEndedBlocks(t *testing.T) {
	now := time.Date(2026, 11, 18, 12, 53, 0, 0, time.UTC) // a Wednesday
	from := time.Date(2026, 10, 19, 13, 0, 0, 0, time.UTC)
	to := time.Date(2026, 11, 18, 13, 0, 0, 0, time.UTC)
	c := coverer{now: now, vec: true}
	p := c.cover(from, to, weekly)
	checkCover(t, from, to, p)
	units, rows := splitSealed(p.spans, now)
	var split plan
	for _, u := range units {
		split.spans = append(split.spans, span{u.from, u.end(), u.grain, u.neg})
	}
	split.spans = append(split.spans, rows...)
	checkCover(t, from, to, split)
	var weeks, days int
	for _, u := range units {
		if u.end().After(now) {
			t.Fatalf("unit %+v has not ended by %s", u, now)
		}
		if u.grain == weekly {
			weeks++
		} else {
			days++
		}
	}
	// Rows are read for today and at most a day's hours at the start.
	rowHours := 0.0
	for _, r := range rows {
		if r.grain != hourly && !r.grain.next(r.from).After(now) {
			t.Fatalf("row span %+v holds an ended block", r)
		}
		if r.from.Before(now) {
			rowHours += minTime(r.to, now).Sub(r.from).Hours()
		}
	}
	if weeks < 3 || days == 0 || rowHours > 24+13 {
		t.Fatalf("units %+v rows %+v: %d weeks, %d days, %.1f row hours", units, rows, weeks, days, rowHours)
	}
}

// TestPackedRoundTrip: packed sums add and subtract back to what went in,
// whatever order the values came in.
func TestPackedRoundTrip(t *testing.T) {
	ids := []int32{7, 0, 300, 2}
	sums := []counts{{3, 0}, {1, 0}, {2, 1500}, {-1, -20}}
	data := packSums(ids, sums)
	byID := make([]counts, 301)
	if err := addPacked(byID, data, false); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if byID[id] != sums[i] {
			t.Fatalf("value %d: %v, want %v", id, byID[id], sums[i])
		}
	}
	if err := addPacked(byID, data, true); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(byID, func(c counts) bool { return c != counts{} }) {
		t.Fatalf("after subtracting: %v", byID)
	}
	if err := addPacked(byID, packSums(nil, nil), false); err != nil {
		t.Fatalf("empty vector: %v", err)
	}
	for _, bad := range [][]byte{nil, {}, {2}, {vecFormat, 1}, {vecFormat, 1, 2}, {vecFormat, 0x80}} {
		if err := addPacked(byID, bad, false); err == nil {
			t.Fatalf("%v: no error", bad)
		}
	}
	if err := addPacked(make([]counts, 300), data, false); err == nil {
		t.Fatal("a value past the dictionary: no error")
	}
	vals := []string{"link_a", "", "https://x.example/?a=1", "link_ü"}
	if got, err := unpackValues(packValues(vals)); err != nil || !slices.Equal(got, vals) {
		t.Fatalf("values: %q, %v", got, err)
	}
	for _, bad := range [][]byte{nil, {2}, {vecFormat, 2, 1, 'a'}, {vecFormat, 1, 5, 'a'}} {
		if _, err := unpackValues(bad); err == nil {
			t.Fatalf("values %v: no error", bad)
		}
	}
}

// FuzzPacked: no input panics the decoders, and what they accept re-packs
// to the same sums and values.
func FuzzPacked(f *testing.F) {
	f.Add(packSums([]int32{3, 1}, []counts{{2, 0}, {1, 500}}))
	f.Add([]byte{vecFormat})
	f.Add(packValues([]string{"a", "bc"}))
	f.Add([]byte{vecFormat, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		if vals, err := unpackValues(data); err == nil {
			if again, err := unpackValues(packValues(vals)); err != nil || !slices.Equal(vals, again) {
				t.Fatalf("values re-packed: %q, %v", again, err)
			}
		}
		byID := make([]counts, 64)
		if err := addPacked(byID, data, false); err != nil {
			return
		}
		var ids []int32
		var sums []counts
		for id, c := range byID {
			if c != (counts{}) {
				ids, sums = append(ids, int32(id)), append(sums, c)
			}
		}
		again := make([]counts, 64)
		if err := addPacked(again, packSums(ids, sums), false); err != nil || !slices.Equal(byID, again) {
			t.Fatalf("re-packed: %v, %v", again, err)
		}
	})
}

// naiveRank is the ranking by its definition: every group with events,
// fully sorted (main counter descending, key ascending), cut at RowLimit.
func naiveRank(k kind, m map[string]counts) ranked {
	var keys []string
	for key, c := range m {
		if c.n > 0 || c.amount != 0 {
			keys = append(keys, key)
		}
	}
	main := func(key string) int64 {
		if k == kSale {
			return m[key].amount
		}
		return m[key].n
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(main(b), main(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	keys = keys[:min(len(keys), RowLimit)]
	return ranked{keys: keys, vals: m}
}

// TestRankSumsIsRank: the cut-first ranking equals the full sort's, ties at
// the cut included, for every kind.
func TestRankSumsIsRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 10, RowLimit, RowLimit + 1, 3 * RowLimit} {
		for _, spread := range []int{1, 3, 50} {
			set, m := newSumSet(), map[string]counts{}
			for i := range size {
				k := fmt.Sprintf("k%05d", rng.IntN(4*size+1))
				if i%7 == 0 {
					k = fmt.Sprintf("k%05d", i) // unique keys too
				}
				n, a := int64(rng.IntN(spread+1)-1), int64(rng.IntN(spread*100+1)-50)
				set.add(k, n, a)
				c := m[k]
				m[k] = counts{c.n + n, c.amount + a}
			}
			for _, k := range []kind{kClick, kSale} {
				want, got := naiveRank(k, m), rankSums(k, []sumList{{set.keys, set.vals}}, nil, true)
				if !slices.Equal(want.keys, got.keys) {
					t.Fatalf("size %d spread %d %s: keys differ (%d vs %d)", size, spread, k.agg, len(want.keys), len(got.keys))
				}
				unordered := rankSums(k, []sumList{{set.keys[:len(set.keys)/2], set.vals[:len(set.keys)/2]}, {set.keys[len(set.keys)/2:], set.vals[len(set.keys)/2:]}}, nil, false)
				if a, b := slices.Sorted(slices.Values(unordered.keys)), slices.Sorted(slices.Values(want.keys)); !slices.Equal(a, b) {
					t.Fatalf("size %d spread %d %s: unordered top list differs", size, spread, k.agg)
				}
				for _, key := range got.keys {
					if got.vals[key] != want.vals[key] {
						t.Fatalf("%s: %v, want %v", key, got.vals[key], want.vals[key])
					}
				}
			}
		}
	}
}

func TestNthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for range 500 {
		vs := make([]int64, 1+rng.IntN(300))
		for i := range vs {
			vs[i] = int64(rng.IntN(1 + rng.IntN(40)))
		}
		n := 1 + rng.IntN(len(vs))
		sorted := slices.Clone(vs)
		slices.Sort(sorted)
		if got, want := nthLargest(vs, n), sorted[len(sorted)-n]; got != want {
			t.Fatalf("%d-th largest of %v: %d, want %d", n, sorted, got, want)
		}
	}
}
