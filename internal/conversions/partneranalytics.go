package conversions

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
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
		start = q.Start.In(loc)
		if q.End != nil {
			end = q.End.In(loc)
		}
		switch d := end.Sub(start); {
		case d <= 48*time.Hour:
			step = "hour"
		case d <= 90*24*time.Hour:
			step = "day"
		default:
			step = "month"
		}
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

// eventRow is one event of any kind, reduced to what analytics sums.
type eventRow struct {
	LinkID    string
	Timestamp time.Time
	Amount    int64
}

// partnerEvents loads the partner's clicks, leads, sales and sale
// earnings in [start, end), in that order (the kinds partnerAnalytics adds).
func (s *Service) partnerEvents(ctx context.Context, wsID, progID, partnerID string, linkIDs []string, start, end time.Time) ([][]eventRow, error) {
	load := func(table, amountCol string, extra string, args ...any) ([]eventRow, error) {
		var rows []eventRow
		if len(linkIDs) == 0 {
			return rows, nil
		}
		sel := "link_id, timestamp, 0 AS amount"
		if amountCol != "" {
			sel = "link_id, timestamp, " + amountCol + " AS amount"
		}
		tx := s.DB.WithContext(ctx).Table(table).Select(sel).
			Where("workspace_id = ? AND link_id IN ? AND timestamp >= ? AND timestamp < ?", wsID, linkIDs, start.UTC(), end.UTC())
		if extra != "" {
			tx = tx.Where(extra, args...)
		}
		if err := tx.Scan(&rows).Error; err != nil {
			return nil, fmt.Errorf("partner analytics %s: %w", table, err)
		}
		return rows, nil
	}
	clicks, err := load("clicks", "", "")
	if err != nil {
		return nil, err
	}
	leads, err := load("lead_events", "", "")
	if err != nil {
		return nil, err
	}
	sales, err := load("sale_events", "amount", "")
	if err != nil {
		return nil, err
	}
	earned, err := s.DB.PartnerSaleEarnings(ctx, wsID, progID, partnerID, start, end, "")
	if err != nil {
		return nil, err
	}
	commissions := make([]eventRow, len(earned))
	for i, p := range earned {
		commissions[i] = eventRow{LinkID: p.LinkID, Timestamp: p.CreatedAt, Amount: p.Earnings}
	}
	return [][]eventRow{clicks, leads, sales, commissions}, nil
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
	if !start.Before(end) {
		return nil, apierr.Validation("custom", "", "The start date must be before the end date.")
	}
	all, err := s.partnerEvents(ctx, ws.ID, prog.ID, e.PartnerID, linkIDs, start, end)
	if err != nil {
		return nil, err
	}
	out := &PartnerAnalytics{}
	add := func(r *AnalyticsRow, kind int, ev eventRow) {
		switch kind {
		case 0:
			r.Clicks++
		case 1:
			r.Leads++
		case 2:
			r.Sales++
			r.SaleAmount += ev.Amount
		case 3:
			r.Earnings += ev.Amount
		}
	}
	switch q.GroupBy {
	case "timeseries":
		idx := map[time.Time]int{}
		for t := truncate(start, step, loc); t.Before(end); t = next(t, step) {
			idx[t] = len(out.Timeseries)
			out.Timeseries = append(out.Timeseries, AnalyticsRow{Start: t})
		}
		for kind, rows := range all {
			for _, ev := range rows {
				if i, ok := idx[truncate(ev.Timestamp, step, loc)]; ok {
					add(&out.Timeseries[i], kind, ev)
				}
			}
		}
	case "top_links":
		byLink := map[string]*TopLink{}
		for _, l := range links {
			byLink[l.ID] = &TopLink{Link: l}
		}
		for kind, rows := range all {
			for _, ev := range rows {
				if t := byLink[ev.LinkID]; t != nil {
					add(&t.AnalyticsRow, kind, ev)
				}
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
		for kind, rows := range all {
			for _, ev := range rows {
				add(&out.Count, kind, ev)
			}
		}
	}
	return out, nil
}
