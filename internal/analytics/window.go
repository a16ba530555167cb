package analytics

import (
	"math"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/interval"
)

// Window is a resolved time range: Start ≤ event time ≤ End, with the
// timeseries granularity and zone.
type Window struct {
	Start, End  time.Time
	Granularity Granularity
	TZ          *time.Location
}

// Resolve computes the window (spec 3.3). allStart is where interval=all
// begins for a timeseries (the workspace's creation time).
func (q *Query) Resolve(now, allStart time.Time) Window {
	tz := q.TZ
	if tz == nil {
		tz = time.UTC
	}
	w := Window{TZ: tz}
	if q.Start != nil { // Case A; an end without a start is ignored (case B)
		end := now
		if q.End != nil {
			end = *q.End
		}
		// Dub's getStartEndDates, a reversed range swapped; its granularity
		// follows the range it covers (interval.Custom).
		start, end, g := interval.Custom(*q.Start, end, tz)
		w.Start, w.End, w.Granularity = start, end, Granularity(g)
		return w
	}
	eod := interval.EndOfDay(now, tz)
	w.End = eod
	iv := q.EffectiveInterval()
	start, g, ok := interval.Start(string(iv), now, tz)
	switch {
	case ok: // the one interval table (internal/interval, spec 3.3 Case C)
		w.Start, w.Granularity = start, Granularity(g)
		if iv == Interval24h {
			w.End = now
		}
	case iv == IntervalAll:
		if q.GroupBy == Timeseries && q.Endpoint == EndpointAnalytics {
			var g interval.Granularity
			w.Start, _, g = interval.Custom(allStart, w.End, tz)
			w.Granularity = Granularity(g)
		} else {
			w.Start, w.Granularity = FoundingDate, Month
		}
	}
	w.Start = w.Start.UTC()
	w.End = w.End.UTC()
	return w
}

// Plan limits on the window (spec 3.5).
const (
	freeRangeMessage = "You can only get analytics for up to 30 days on a Free plan. Upgrade to Pro or Business to get analytics for longer periods."
	proRangeMessage  = "You can only get analytics for up to 1 year on a Pro plan. Upgrade to Business to get analytics for longer periods."
)

// CheckPlanWindow answers 403 when the requested range exceeds what plan
// allows. plan is the workspace's plan name; created its creation time.
func (q *Query) CheckPlanWindow(plan string, now, created time.Time) error {
	end := now
	if q.End != nil {
		end = *q.End
	}
	var start *time.Time
	switch {
	case q.Start != nil:
		start = q.Start
	case q.Interval == IntervalAll:
		start = &created
	}
	days := 0
	if start != nil {
		days = int(math.Ceil(math.Abs(float64(end.Sub(*start).Milliseconds())) / 86400000))
	}
	switch plan {
	case "", "free":
		if q.Interval == Interval90d || q.Interval == Interval1y || q.Interval == IntervalYTD || (start != nil && days > 31) {
			return apierr.New(apierr.Forbidden, freeRangeMessage)
		}
	case "pro":
		if start != nil && days > 366 {
			return apierr.New(apierr.Forbidden, proRangeMessage)
		}
	}
	return nil
}

// Buckets lists the timeseries bucket starts covering w, oldest first.
func (w Window) Buckets() []time.Time {
	var out []time.Time
	b := w.Floor(w.Start)
	last := w.Floor(w.End)
	for !b.After(last) {
		out = append(out, b)
		b = w.next(b)
		if len(out) > 100000 { // a window this long is a bug upstream of here
			break
		}
	}
	return out
}

// Floor is the start of the bucket containing t, aligned in the zone.
func (w Window) Floor(t time.Time) time.Time {
	l := t.In(w.TZ)
	switch w.Granularity {
	case Hour:
		return t.Add(-time.Duration(l.Minute())*time.Minute - time.Duration(l.Second())*time.Second - time.Duration(l.Nanosecond())).UTC()
	case Month:
		return time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, w.TZ).UTC()
	}
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, w.TZ).UTC()
}

func (w Window) next(b time.Time) time.Time {
	l := b.In(w.TZ)
	var n time.Time
	switch w.Granularity {
	case Hour:
		n = w.Floor(b.Add(time.Hour))
		if !n.After(b) {
			n = b.Add(time.Hour)
		}
		return n
	case Month:
		n = time.Date(l.Year(), l.Month()+1, 1, 0, 0, 0, 0, w.TZ).UTC()
	default:
		n = time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, w.TZ).UTC()
	}
	if !n.After(b) { // a skipped local midnight can map back; never loop
		n = b.Add(time.Hour)
	}
	return n
}

// FormatBucket renders a bucket start as upstream does:
// 2025-03-09T00:00:00.000-0500 (offset without a colon).
func (w Window) FormatBucket(b time.Time) string {
	return b.In(w.TZ).Format("2006-01-02T15:04:05.000-0700")
}
