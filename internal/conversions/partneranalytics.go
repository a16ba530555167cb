package conversions

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/interval"
	"github.com/relinkhq/relink/models"
)

// AnalyticsQuery is a validated GET /partners/analytics request (§3.6).
type AnalyticsQuery struct {
	PartnerSelector
	GroupBy    string // count | timeseries | top_links
	Interval   string // 24h 7d 30d 90d 1y mtd qtd ytd all
	Start, End *time.Time
	Location   *time.Location
}

// AnalyticsRow is one bucket (or the total) of partner analytics.
type AnalyticsRow struct {
	Start                                      time.Time
	Clicks, Leads, Sales, SaleAmount, Earnings int64
}

// TopLink is one row of top_links.
type TopLink struct {
	Link models.Link
	AnalyticsRow
}

// PartnerAnalytics is the answer for one groupBy.
type PartnerAnalytics struct {
	Count      AnalyticsRow
	Timeseries []AnalyticsRow
	TopLinks   []TopLink
}

// Intervals accepted by GET /partners/analytics (the one interval table).
var Intervals = interval.Names

// IntervalStart is where a named interval starts at now in loc
// (internal/interval); "all" (or an unknown name) has no start.
func IntervalStart(name string, now time.Time, loc *time.Location) (time.Time, bool) {
	start, _, ok := interval.Start(name, now, loc)
	return start, ok
}

// window resolves the time range and bucket size in loc; "all" starts at
// the month of earliest.
func window(q AnalyticsQuery, now time.Time, earliest time.Time) (start, end time.Time, step string) {
	loc := q.Location
	if loc == nil {
		loc = time.UTC
	}
	end = now.In(loc)
	var ok bool
	var g interval.Granularity
	if start, g, ok = interval.Start(q.Interval, now, loc); !ok {
		e := earliest.In(loc)
		start = time.Date(e.Year(), e.Month(), 1, 0, 0, 0, 0, loc)
	}
	step = string(g)
	if step == "" {
		step = "month"
	}
	if q.Start != nil {
		// An explicit range is Dub's getStartEndDates, as on /analytics:
		// whole days in loc, a reversed range swapped, hours up to 2 days,
		// days up to 180, months beyond (interval.Custom).
		if q.End != nil {
			end = *q.End
		}
		start, end, g = interval.Custom(*q.Start, end, loc)
		start, end, step = start.In(loc), end.In(loc), string(g)
	}
	return start, end, step
}

func truncate(t time.Time, step string, loc *time.Location) time.Time {
	t = t.In(loc)
	switch step {
	case "hour":
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, loc)
	case "day":
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	}
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
}

func next(t time.Time, step string) time.Time {
	switch step {
	case "hour":
		return t.Add(time.Hour)
	case "day":
		return t.AddDate(0, 0, 1)
	}
	return t.AddDate(0, 1, 0)
}

// PartnerAnalytics computes clicks, leads, sales, sale amount and sale
// commission earnings over the partner's links in the window.
func (s *Service) PartnerAnalytics(ctx context.Context, ws *models.Workspace, q AnalyticsQuery) (*PartnerAnalytics, error) {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	e, err := s.ResolveEnrollment(ctx, s.DB, ws, prog, q.PartnerSelector)
	if err != nil {
		return nil, err
	}
	loc := q.Location
	if loc == nil {
		loc = time.UTC
	}
	links, err := s.DB.PartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID)
	if err != nil {
		return nil, err
	}
	earliest := e.CreatedAt
	linkIDs := make([]string, len(links))
	for i, l := range links {
		linkIDs[i] = l.ID
		if l.CreatedAt.Before(earliest) {
			earliest = l.CreatedAt
		}
	}
	start, end, step := window(q, s.now(), earliest)
	earned, err := s.DB.PartnerSaleEarnings(ctx, ws.ID, prog.ID, e.PartnerID, start, end, "")
	if err != nil {
		return nil, err
	}
	tq := analytics.TallyQuery{LinkIDs: linkIDs, From: start, To: end, TZ: loc}
	switch q.GroupBy {
	case "timeseries":
		tq.By, tq.Granularity = analytics.TallyBucket, analytics.Granularity(step)
	case "top_links":
		tq.By = analytics.TallyLink
	}
	if s.Analytics == nil {
		return nil, fmt.Errorf("partner analytics: no analytics engine")
	}
	tallies, err := s.Analytics.Tally(ctx, ws, tq)
	if err != nil {
		return nil, err
	}
	return foldPartnerAnalytics(q.GroupBy, links, tallies, earned, start, end, step, loc), nil
}

// foldPartnerAnalytics lays the engine's tallies and the commission
// earnings out as the answer for groupBy.
func foldPartnerAnalytics(groupBy string, links []models.Link, tallies []analytics.Tally, earned []models.EarningsPoint, start, end time.Time, step string, loc *time.Location) *PartnerAnalytics {
	out := &PartnerAnalytics{}
	add := func(r *AnalyticsRow, t analytics.Tally) {
		r.Clicks += t.Clicks
		r.Leads += t.Leads
		r.Sales += t.Sales
		r.SaleAmount += t.SaleAmount
	}
	switch groupBy {
	case "timeseries":
		idx := map[time.Time]int{}
		for t := truncate(start, step, loc); t.Before(end); t = next(t, step) {
			idx[t] = len(out.Timeseries)
			out.Timeseries = append(out.Timeseries, AnalyticsRow{Start: t})
		}
		for _, t := range tallies {
			if i, ok := idx[t.Start]; ok {
				add(&out.Timeseries[i], t)
			}
		}
		for _, p := range earned {
			if i, ok := idx[truncate(p.CreatedAt, step, loc)]; ok {
				out.Timeseries[i].Earnings += p.Earnings
			}
		}
	case "top_links":
		byLink := map[string]*TopLink{}
		for _, l := range links {
			byLink[l.ID] = &TopLink{Link: l}
		}
		for _, t := range tallies {
			if tl := byLink[t.LinkID]; tl != nil {
				add(&tl.AnalyticsRow, t)
			}
		}
		for _, p := range earned {
			if tl := byLink[p.LinkID]; tl != nil {
				tl.Earnings += p.Earnings
			}
		}
		for _, l := range links {
			out.TopLinks = append(out.TopLinks, *byLink[l.ID])
		}
		sort.SliceStable(out.TopLinks, func(i, j int) bool {
			a, b := out.TopLinks[i], out.TopLinks[j]
			if a.SaleAmount != b.SaleAmount {
				return a.SaleAmount > b.SaleAmount
			}
			return a.Clicks > b.Clicks
		})
	default:
		for _, t := range tallies {
			add(&out.Count, t)
		}
		for _, p := range earned {
			out.Count.Earnings += p.Earnings
		}
	}
	return out
}
