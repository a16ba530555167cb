package analytics

import (
	"math/rand/v2"
	"testing"
	"time"
)

// weights returns, for every hour a plan touches, how many times the plan
// counts it (subtracted spans count −1).
func weights(p plan) map[time.Time]int {
	w := map[time.Time]int{}
	for _, s := range p.spans {
		for b := s.from; b.Before(s.to); b = s.grain.next(b) {
			for h := b; h.Before(s.grain.next(b)); h = h.Add(time.Hour) {
				if s.neg {
					w[h]--
				} else {
					w[h]++
				}
			}
		}
	}
	return w
}

func checkCover(t *testing.T, from, to time.Time, p plan) {
	t.Helper()
	for _, s := range p.spans {
		if !s.grain.floor(s.from).Equal(s.from) || !s.grain.floor(s.to).Equal(s.to) || !s.from.Before(s.to) {
			t.Fatalf("[%s, %s): span %+v not on whole blocks", from, to, s)
		}
	}
	w := weights(p)
	for h, n := range w {
		in := !h.Before(from) && h.Before(to)
		if (in && n != 1) || (!in && n != 0) {
			t.Fatalf("[%s, %s): hour %s counted %d times by %+v", from, to, h, n, p.spans)
		}
	}
	for h := from; h.Before(to); h = h.Add(time.Hour) {
		if w[h] != 1 {
			t.Fatalf("[%s, %s): hour %s missing from %+v", from, to, h, p.spans)
		}
	}
}

// TestCoverIsExact: every plan's signed spans add up to exactly the hours
// of the range, for random ranges, grains and clocks.
func TestCoverIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 400; i++ {
		from := base.Add(time.Duration(rng.IntN(24*120)) * time.Hour)
		to := from.Add(time.Duration(rng.IntN(24*70)) * time.Hour)
		now := from.Add(time.Duration(rng.IntN(24*90)-24*10) * time.Hour).Add(time.Duration(rng.IntN(3600)) * time.Second)
		for _, vec := range []bool{false, true} {
			c := coverer{now: now, vec: vec}
			for g := hourly; g <= weekly; g++ {
				checkCover(t, from, to, c.cover(from, to, g))
			}
		}
	}
}

// TestCoverThirtyDays: a 30-day window reads weeks, subtracts where that is
// cheaper, and costs far less than thirty days of daily rows.
func TestCoverThirtyDays(t *testing.T) {
	now := time.Date(2026, 11, 18, 12, 53, 0, 0, time.UTC) // a Wednesday
	from := time.Date(2026, 10, 20, 3, 0, 0, 0, time.UTC)  // a Tuesday, 03:00
	to := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC)
	c := coverer{now: now}
	p := c.cover(from, to, weekly)
	checkCover(t, from, to, p)
	var weeks, days, hours, neg int
	for _, s := range p.spans {
		switch s.grain {
		case weekly:
			weeks += int(s.to.Sub(s.from) / (7 * 24 * time.Hour))
		case daily:
			days += int(s.to.Sub(s.from) / (24 * time.Hour))
		default:
			hours += int(s.to.Sub(s.from) / time.Hour)
		}
		if s.neg {
			neg++
		}
	}
	if weeks < 3 || days > 6 || neg == 0 {
		t.Fatalf("plan %+v: %d weeks, %d days, %d hours, %d subtracted spans", p.spans, weeks, days, hours, neg)
	}
	if old := c.cover(from, to, daily); p.cost*2 > old.cost {
		t.Fatalf("weekly plan costs %.1f, daily-only %.1f", p.cost, old.cost)
	}
	// Today so far: the whole day beats the hours, the rest of it is future.
	today := c.cover(time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC), to, daily)
	if len(today.spans) != 1 || today.spans[0].grain != daily {
		t.Fatalf("today: %+v", today.spans)
	}
}

func BenchmarkCover(b *testing.B) {
	now := time.Date(2026, 11, 18, 12, 53, 0, 0, time.UTC)
	c := coverer{now: now}
	from := time.Date(2025, 10, 20, 3, 0, 0, 0, time.UTC)
	for b.Loop() {
		c.cover(from, now.Truncate(time.Hour), weekly)
	}
}
