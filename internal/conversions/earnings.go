package conversions

import (
	"context"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// EarningsQuery is an earnings timeseries request over one enrollment: the
// window as in GET /partners/analytics, optionally one of the partner's links
// only, optionally broken down per link.
type EarningsQuery struct {
	Interval    string // 24h 7d 30d 90d 1y mtd qtd ytd all
	Start, End  *time.Time
	Location    *time.Location
	LinkID      string // "" = all the partner's links
	GroupByLink bool
}

// EarningsBucket is one bucket of an earnings timeseries: the sale
// commission earnings in cents, and per link when grouped (every link of the
// partner present, zero-filled).
type EarningsBucket struct {
	Start    time.Time
	Earnings int64
	ByLink   map[string]int64
}

// MsgLinkNotFound answers a link id that is not one of the partner's links.
const MsgLinkNotFound = "Link not found."

// EarningsTimeseries sums the enrollment's sale commission earnings (§3.6:
// status pending, processed or paid) per bucket, zero-filled, buckets aligned
// in the query's time zone. The same windows as PartnerAnalytics: hours for
// 24h, days up to 90 days, months beyond; "all" starts at the month of the
// enrollment or the partner's first link.
func (s *Service) EarningsTimeseries(ctx context.Context, ws *models.Workspace, prog *models.Program, e *models.Enrollment, q EarningsQuery) ([]EarningsBucket, error) {
	links, err := s.DB.PartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID)
	if err != nil {
		return nil, err
	}
	earliest := e.CreatedAt
	var linkIDs []string
	found := q.LinkID == ""
	for _, l := range links {
		if l.CreatedAt.Before(earliest) {
			earliest = l.CreatedAt
		}
		if q.LinkID == "" || l.ID == q.LinkID {
			linkIDs = append(linkIDs, l.ID)
			found = found || l.ID == q.LinkID
		}
	}
	if !found {
		return nil, apierr.New(apierr.NotFound, MsgLinkNotFound)
	}
	loc := q.Location
	if loc == nil {
		loc = time.UTC
	}
	aq := AnalyticsQuery{Interval: q.Interval, Start: q.Start, End: q.End, Location: loc}
	var points []models.EarningsPoint
	if _, bounded := IntervalStart(q.Interval, s.now(), loc); !bounded && q.Start == nil {
		// "all": from the earliest of the enrollment, its links and its
		// commissions (imported ones may predate both).
		if points, err = s.DB.PartnerSaleEarnings(ctx, ws.ID, prog.ID, e.PartnerID, time.Unix(0, 0), s.now().Add(time.Second), q.LinkID); err != nil {
			return nil, err
		}
		if len(points) > 0 && points[0].CreatedAt.Before(earliest) {
			earliest = points[0].CreatedAt
		}
	}
	start, end, step := window(aq, s.now(), earliest)
	if points == nil {
		if points, err = s.DB.PartnerSaleEarnings(ctx, ws.ID, prog.ID, e.PartnerID, start, end, q.LinkID); err != nil {
			return nil, err
		}
	}
	var out []EarningsBucket
	idx := map[time.Time]int{}
	for t := truncate(start, step, loc); t.Before(end); t = next(t, step) {
		b := EarningsBucket{Start: t}
		if q.GroupByLink {
			b.ByLink = make(map[string]int64, len(linkIDs))
			for _, id := range linkIDs {
				b.ByLink[id] = 0
			}
		}
		idx[t] = len(out)
		out = append(out, b)
	}
	for _, p := range points {
		i, ok := idx[truncate(p.CreatedAt, step, loc)]
		if !ok {
			continue
		}
		out[i].Earnings += p.Earnings
		if q.GroupByLink && p.LinkID != "" {
			out[i].ByLink[p.LinkID] += p.Earnings
		}
	}
	return out, nil
}
