package analytics

import (
	"time"

	"github.com/relinkhq/relink/models"
)

// grain is one resolution of the event aggregates: hourly rows, daily
// rollups ("@day"), weekly rollups ("@week", ISO weeks in UTC) or, in
// ClickHouse's link- and URL-keyed rollups only, four-week rollups
// ("@4week", models.FourWeekStart).
type grain int

const (
	hourly grain = iota
	daily
	weekly
	fourWeekly
)

func (g grain) suffix() string {
	switch g {
	case daily:
		return models.DaySuffix
	case weekly:
		return models.WeekSuffix
	case fourWeekly:
		return models.FourWeekSuffix
	}
	return ""
}

// floor returns the start of g's block holding t (t on a whole hour).
func (g grain) floor(t time.Time) time.Time {
	switch g {
	case daily:
		return models.DayStart(t)
	case weekly:
		return models.WeekStart(t)
	case fourWeekly:
		return models.FourWeekStart(t)
	}
	return t.UTC().Truncate(time.Hour)
}

// ceil returns the start of the first block of g at or after t.
func (g grain) ceil(t time.Time) time.Time {
	f := g.floor(t)
	if f.Equal(t) {
		return f
	}
	return g.next(f)
}

// next returns the start of the block after the one starting at b.
func (g grain) next(b time.Time) time.Time {
	switch g {
	case daily:
		return b.AddDate(0, 0, 1)
	case weekly:
		return b.AddDate(0, 0, 7)
	case fourWeekly:
		return b.AddDate(0, 0, 28)
	}
	return b.Add(time.Hour)
}

// Relative cost of reading one block of each grain, in rows per value: a
// value busy enough to matter has a row in most hours, in nearly every day
// and in every week, so a day costs about what three or four hours do and a
// week about what a day does, and four weeks a little more than a week.
// spanCost is the fixed price of one more range read (an index descent and
// a UNION ALL branch).
var grainCost = [...]float64{hourly: 1, daily: 3, weekly: 4, fourWeekly: 5}

const spanCost = 0.5

// span is a stretch of whole blocks of one grain, added to the answer or,
// when neg, subtracted from it.
type span struct {
	from, to time.Time
	grain    grain
	neg      bool
}

// plan is a signed set of spans and its estimated cost.
type plan struct {
	spans []span
	cost  float64
}

func (p *plan) add(o plan, neg bool) {
	for _, s := range o.spans {
		s.neg = s.neg != neg
		p.spans = append(p.spans, s)
	}
	p.cost += o.cost
}

// coverer finds the cheapest signed cover of a range of whole hours by
// hourly, daily and weekly blocks. Blocks starting at or after now hold no
// events yet and cost nothing, so "the whole day minus the hours still to
// come" is as cheap as it should be.
type coverer struct {
	now time.Time
	// vec prices the whole days and weeks that ended by now as vectors
	// (vectors.go): one packed row per block instead of a row per value.
	vec bool
}

// vecCost is the price of a sealed block read as a vector, as a fraction of
// reading its rows: decoding a packed entry costs a small part of what the
// database spends on a row.
const vecCost = 0.1

// vecRowFactor scales an hour's price by grain when vec is set.
var vecRowFactor = [...]float64{hourly: 1, daily: 0.9, weekly: 0.8, fourWeekly: 0.8}

// blocks prices n consecutive blocks of g from `from`.
func (c *coverer) blocks(g grain, from, to time.Time) float64 {
	end := to
	if c.now.Before(end) {
		end = c.now
	}
	if !from.Before(end) {
		return spanCost
	}
	size := g.next(from).Sub(from) // UTC blocks have fixed lengths
	n := float64((end.Sub(from) + size - 1) / size)
	if !c.vec {
		return n*grainCost[g] + spanCost
	}
	// Vectors serve workspaces with many values, most of them quiet: there
	// a block's rows (and a vector's entries) grow with the hours it spans,
	// not with its grain. The hours of blocks that ended by now are read as
	// vectors, the others as rows; coarser rows win a tie.
	hours := end.Sub(from).Hours()
	sealed := 0.0
	if s := g.floor(c.now); g != hourly && s.After(from) {
		sealed = min(hours, s.Sub(from).Hours())
	}
	return (sealed*vecCost+hours-sealed)*vecRowFactor[g] + spanCost
}

// cover returns the cheapest plan whose signed spans sum to exactly the
// hours in [from, to) (both on whole hours), using grains up to g.
func (c *coverer) cover(from, to time.Time, g grain) plan {
	if !from.Before(to) {
		return plan{}
	}
	if g == hourly {
		return plan{spans: []span{{from, to, hourly, false}}, cost: c.blocks(hourly, from, to)}
	}
	best := c.cover(from, to, g-1)
	for _, s := range []time.Time{g.floor(from), g.ceil(from)} {
		for _, e := range []time.Time{g.floor(to), g.ceil(to)} {
			if !s.Before(e) {
				continue
			}
			p := plan{spans: []span{{s, e, g, false}}, cost: c.blocks(g, s, e)}
			if p.cost >= best.cost {
				continue
			}
			// The blocks [s, e) differ from [from, to) at both ends: add the
			// hours they miss, subtract the ones they overreach.
			if s.Before(from) {
				p.add(c.cover(s, from, g-1), true)
			} else {
				p.add(c.cover(from, s, g-1), false)
			}
			if e.After(to) {
				p.add(c.cover(to, e, g-1), true)
			} else {
				p.add(c.cover(e, to, g-1), false)
			}
			if p.cost < best.cost {
				best = p
			}
		}
	}
	return best
}
