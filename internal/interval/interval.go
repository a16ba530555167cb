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
