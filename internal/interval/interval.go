// Package interval is the one table of named analytics intervals ("24h",
// "7d", … "all"): where each starts and the timeseries granularity it uses.
// GET /analytics, /events, GET /partners/analytics, the commissions list and
// the embed's analytics and earnings all read it.
//
// What "7d" means. Two tables used to disagree: the analytics engine started
// 7d at now − 7 days (same wall time, 8 daily buckets, the first partial),
// the partner endpoints at midnight six days ago (7 whole days). The wire
// contract settles it for the analytics engine (spec/analytics.md §3.3, Case C:
// "now − 7 days (same wall time) … 8 (first partial)", and "the presets
// 7d/30d/90d/1y start at the current wall-clock time N days/months ago, not
// at midnight"), and spec/partners-and-embed.md §3.6 describes
// GET /partners/analytics as the same analytics over the partner's links.
// Dub computes both with one function (apps/web/lib/analytics/utils:
// getStartEndDates → INTERVAL_DATA, where "7d" is Date.now() − 604800000).
// So there is one meaning: the analytics one, below.
package interval

import "time"

// Granularity is a timeseries bucket size.
type Granularity string

// Granularities.
const (
	Hour  Granularity = "hour"
	Day   Granularity = "day"
	Month Granularity = "month"
)

// All is the interval without a start of its own (each endpoint says where
// "all" begins: Dub's founding date, the workspace's or the enrollment's
// first day).
const All = "all"

// Names are the accepted intervals in the schema's order.
var Names = []string{"24h", "7d", "30d", "90d", "1y", "mtd", "qtd", "ytd", All}

// preset is one row: the start at now in tz, and the granularity.
type preset struct {
	start func(now time.Time) time.Time // now is already in tz
	gran  Granularity
}

// table is THE interval table (spec/analytics.md §3.3, Case C).
var table = map[string]preset{
	"24h": {func(n time.Time) time.Time { return n.Add(-24 * time.Hour) }, Hour}, // exact instant
	"7d":  {func(n time.Time) time.Time { return n.AddDate(0, 0, -7) }, Day},     // same wall time 7 days ago: 8 buckets, the first partial
	"30d": {func(n time.Time) time.Time { return n.AddDate(0, 0, -30) }, Day},
	"90d": {func(n time.Time) time.Time { return n.AddDate(0, 0, -90) }, Day},
	"1y":  {func(n time.Time) time.Time { return n.AddDate(0, -12, 0) }, Month},
	"mtd": {func(n time.Time) time.Time { return time.Date(n.Year(), n.Month(), 1, 0, 0, 0, 0, n.Location()) }, Day},
	"qtd": {func(n time.Time) time.Time {
		return time.Date(n.Year(), time.Month((int(n.Month())-1)/3*3+1), 1, 0, 0, 0, 0, n.Location())
	}, Day},
	"ytd": {func(n time.Time) time.Time { return time.Date(n.Year(), 1, 1, 0, 0, 0, 0, n.Location()) }, Month},
	All:   {nil, Month},
}

// Start is where interval name starts at now in tz (nil: UTC), and its
// granularity. ok is false for "all" and unknown names, which have no start
// of their own.
func Start(name string, now time.Time, tz *time.Location) (start time.Time, g Granularity, ok bool) {
	p, known := table[name]
	if !known || p.start == nil {
		return time.Time{}, p.gran, false
	}
	if tz == nil {
		tz = time.UTC
	}
	return p.start(now.In(tz)), p.gran, true
}

// Founding is the earliest instant a window may start at (Dub's founding
// date, spec/analytics.md §3.1).
var Founding = time.Date(2022, 9, 22, 0, 0, 0, 0, time.UTC)

// Latest bounds start and end from above (Relink's rule; Dub has none):
// with the granularity rules (hour up to 2 days, day up to 180, month
// beyond) no timeseries of any endpoint has more than about 930 buckets,
// whatever dates a caller types.
var Latest = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)

// Bounds are the messages of a date outside [Founding, Latest), worded as
// Dub's founding-date one ("" when t is inside).
func Bounds(param string, t time.Time) string {
	switch {
	case param == "start" && t.Before(Founding):
		return "The start date cannot be earlier than September 22, 2022."
	case !t.Before(Latest):
		return "The " + param + " date cannot be later than December 31, 2099."
	}
	return ""
}

// Custom is the window of an explicit start and end (now when the caller
// sent none) as Dub's getStartEndDates computes it
// (apps/web/lib/analytics/utils/get-start-end-dates.ts): start at the start
// of its day and end at the end of its day (23:59:59.999) in tz, swapped
// when start is after end; the granularity is hour up to 2 calendar days,
// day up to 180, month beyond. One difference: Dub picks the granularity
// before the swap, so every reversed range is hourly (start=9999-12-31
// answered 100,001 buckets); here it follows the range the window covers,
// so no timeseries has more buckets than the forward range would
// (spec/analytics.md §9 quirk 3, fixed). GET /analytics, /events, the
// console, GET /partners/analytics and the embed's earnings all use it.
func Custom(start, end time.Time, tz *time.Location) (from, to time.Time, g Granularity) {
	if tz == nil {
		tz = time.UTC
	}
	from, to = StartOfDay(start, tz), EndOfDay(end, tz)
	if from.After(to) {
		from, to = to, from
	}
	switch d := calendarDays(from, to, tz); {
	case d <= 2:
		g = Hour
	case d > 180:
		g = Month
	default:
		g = Day
	}
	return from, to, g
}

// calendarDays is the whole days from start's local date to end's local
// date (date-fns differenceInDays of the day-rounded bounds).
func calendarDays(start, end time.Time, tz *time.Location) int {
	a, b := start.In(tz), end.In(tz)
	da := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
	db := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
	return int(db.Sub(da).Hours() / 24)
}

// StartOfDay is local midnight of t's day in tz, in UTC.
func StartOfDay(t time.Time, tz *time.Location) time.Time {
	l := t.In(tz)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, tz).UTC()
}

// EndOfDay is the last millisecond of t's day in tz, in UTC.
func EndOfDay(t time.Time, tz *time.Location) time.Time {
	l := t.In(tz)
	return time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, tz).Add(-time.Millisecond).UTC()
}
