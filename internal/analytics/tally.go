package analytics

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/relinkhq/relink/models"
)

// TallyBy is how a Tally groups its counts.
type TallyBy int

// Tally groupings.
const (
	TallyTotal  TallyBy = iota // one row
	TallyLink                  // one row per link with events
	TallyBucket                // one row per bucket with events
)

// TallyQuery counts the events of a fixed set of links in a half-open
// window: GET /partners/analytics and the embedded dashboard's charts,
// whose windows and buckets are their own (conversions.AnalyticsQuery),
// not /analytics's.
type TallyQuery struct {
	LinkIDs     []string
	From, To    time.Time // From ≤ timestamp < To
	By          TallyBy
	Granularity Granularity    // TallyBucket: Hour, Day or Month
	TZ          *time.Location // TallyBucket: the zone buckets are aligned in; nil is UTC
}

// Tally is one row of a TallyQuery's answer.
type Tally struct {
	LinkID string    // TallyLink
	Start  time.Time // TallyBucket: FloorLocal of the events' timestamps
	Counters
}

// FloorLocal is the start of the bucket holding t: its wall-clock time in
// tz truncated to the hour, day or month (time.Date in tz).
func FloorLocal(t time.Time, g Granularity, tz *time.Location) time.Time {
	if tz == nil {
		tz = time.UTC
	}
	t = t.In(tz)
	switch g {
	case Hour:
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, tz)
	case Day:
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, tz)
	}
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, tz)
}

// Tally answers a TallyQuery with the same planner as Analytics: the
// per-link hourly aggregates (with daily and weekly rollups when buckets do
// not matter) for the whole hours, the raw rows for the partial hours at
// either end and for zones whose buckets do not start on a UTC hour. Rows
// with no events are left out; the order is unspecified.
func (e *SQLEngine) Tally(ctx context.Context, ws *models.Workspace, q TallyQuery) ([]Tally, error) {
	out := []Tally{}
	if len(q.LinkIDs) == 0 || !q.From.Before(q.To) {
		return out, nil
	}
	tz := q.TZ
	if tz == nil {
		tz = time.UTC
	}
	s := &scope{
		wsID: ws.ID, q: &Query{Event: Composite, LinkID: Filter{Values: q.LinkIDs}},
		win: Window{Start: q.From.UTC(), End: q.To.UTC(), Granularity: q.Granularity, TZ: tz},
		d:   dialect(e.DB.Dialect), endExcl: true,
	}
	key := keySpec{kind: keyTotal}
	switch q.By {
	case TallyLink:
		key.kind = keyLink
	case TallyBucket:
		key.kind = keyTime
	}
	ms, err := e.measureAll(ctx, s, key)
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, k := range kindsOf(Composite) {
		for raw, v := range ms[i] {
			if v.n == 0 && v.amount == 0 {
				continue
			}
			t := Tally{}
			switch q.By {
			case TallyLink:
				t.LinkID = raw
			case TallyBucket:
				sec, err := strconv.ParseInt(raw, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("tally: bucket %q: %w", raw, err)
				}
				// Two hours of a DST fall-back fold into one local hour.
				t.Start = FloorLocal(time.Unix(sec, 0), q.Granularity, tz)
				raw = strconv.FormatInt(t.Start.Unix(), 10)
			}
			j, ok := idx[raw]
			if !ok {
				j = len(out)
				idx[raw] = j
				out = append(out, t)
			}
			out[j].add(k, v)
		}
	}
	return out, nil
}
