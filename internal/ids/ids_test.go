package ids

import (
	"strings"
	"testing"
	"time"
)

func TestNewShapeAndOrder(t *testing.T) {
	t.Cleanup(func() { now = time.Now })
	now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	a := New(Link)
	now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 1e6, time.UTC) }
	b := New(Link)
	for _, id := range []string{a, b} {
		if !strings.HasPrefix(id, "link_1") || len(id) != len("link_")+25 {
			t.Fatalf("bad id %q", id)
		}
		for _, r := range id[5:] {
			if !strings.ContainsRune(crockford, r) {
				t.Fatalf("id %q has %q outside Crockford base32", id, r)
			}
		}
	}
	if a >= b {
		t.Fatalf("ids not time-sortable: %s >= %s", a, b)
	}
}

func TestRandomAlphabetAndLength(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		s := Nano(24)
		if len(s) != 24 || strings.Trim(s, Alphanumeric) != "" {
			t.Fatalf("bad nanoid %q", s)
		}
		if seen[s] {
			t.Fatalf("duplicate nanoid %q", s)
		}
		seen[s] = true
	}
	if c := CUID(); len(c) != 25 || c[0] != 'c' {
		t.Fatalf("bad cuid %q", c)
	}
}

// Alphabets whose size divides 256 (such as Crockford's 32) must not loop
// forever in the rejection sampling, and must cover the whole alphabet.
func TestRandomPowerOfTwoAlphabets(t *testing.T) {
	for _, alphabet := range []string{"01", "0123", crockford, Alphanumeric + "-_"} {
		s := Random(alphabet, 2000)
		if len(s) != 2000 || strings.Trim(s, alphabet) != "" {
			t.Fatalf("Random(%q) = %q", alphabet, s[:20])
		}
		for _, c := range alphabet {
			if !strings.ContainsRune(s, c) {
				t.Errorf("Random(%q) never drew %q in 2000 characters", alphabet, c)
			}
		}
	}
}

func TestClickShapeAndOrder(t *testing.T) {
	t.Cleanup(func() { now = time.Now })
	base := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var prev string
	seen := map[string]bool{}
	for i := range 2000 {
		now = func() time.Time { return base.Add(time.Duration(i/10) * time.Millisecond) }
		id := Click()
		if len(id) != 16 {
			t.Fatalf("click id %q: length %d, want 16", id, len(id))
		}
		for _, r := range id {
			if !strings.ContainsRune(Alphanumeric, r) {
				t.Fatalf("click id %q has %q outside the alphanumeric alphabet", id, r)
			}
		}
		if seen[id] {
			t.Fatalf("click id %q repeated", id)
		}
		seen[id] = true
		// A later millisecond sorts after every id of an earlier one.
		if i%10 == 0 && prev != "" && id[:7] <= prev[:7] {
			t.Fatalf("click id prefix %q (ms %d) does not sort after %q", id[:7], i/10, prev[:7])
		}
		prev = id
	}
	// The same millisecond shares the 7-character prefix; the rest is random.
	now = func() time.Time { return base }
	a, b := Click(), Click()
	if a[:7] != b[:7] || a[7:] == b[7:] {
		t.Fatalf("same-millisecond ids %q and %q: want a shared prefix and different random parts", a, b)
	}
}

func TestFastShape(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := Fast(16)
		if len(id) != 16 || strings.Trim(id, Alphanumeric) != "" || seen[id] {
			t.Fatalf("Fast(16) = %q: want 16 fresh alphanumerics", id)
		}
		seen[id] = true
	}
}

// TestFastSpread: every position of a Fast id takes every character, and
// no two neighbours are equal much more often than chance (1 in 62).
func TestFastSpread(t *testing.T) {
	const n = 62 * 300
	var seen [16][128]int
	same := 0
	for range n {
		id := Fast(16)
		for i := range 16 {
			seen[i][id[i]]++
			if i > 0 && id[i] == id[i-1] {
				same++
			}
		}
	}
	for i := range 16 {
		for _, c := range []byte(Alphanumeric) {
			if k := seen[i][c]; k < 150 || k > 500 {
				t.Fatalf("position %d: %q seen %d times in %d ids (expected about 300)", i, c, k, n)
			}
		}
	}
	if limit := n * 15 / 62 * 2; same > limit {
		t.Fatalf("neighbouring characters equal %d times (chance: about %d)", same, n*15/62)
	}
}
