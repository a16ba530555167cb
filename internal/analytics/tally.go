package analytics

import (
	"context"
	"fmt"
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

// Tally answers a TallyQuery from the raw event tables: grouped in SQL by
// link or by UTC minute (every zone's offset is whole minutes), folded
// into local buckets in Go. Rows come back in no particular order.
func (e *SQLEngine) Tally(ctx context.Context, ws *models.Workspace, q TallyQuery) ([]Tally, error) {
	out := []Tally{}
	if len(q.LinkIDs) == 0 || !q.From.Before(q.To) {
		return out, nil
	}
	d := dialect(e.DB.Dialect)
	sel, group := "''", ""
	switch q.By {
	case TallyLink:
		sel, group = "link_id", " GROUP BY link_id"
	case TallyBucket:
		sel, group = d.truncTime("timestamp", true), " GROUP BY 1"
	}
	idx := map[string]int{}
	for _, k := range []kind{kClick, kLead, kSale} {
		amount := "0"
		if k == kSale {
			amount = "COALESCE(SUM(amount), 0)"
		}
		sql := "SELECT " + sel + ", COUNT(*), " + amount + " FROM " + k.table +
			" WHERE workspace_id = ? AND link_id IN ? AND timestamp >= ? AND timestamp < ?" + group
		rows, err := e.DB.WithContext(ctx).Raw(sql, ws.ID, q.LinkIDs, q.From.UTC(), q.To.UTC()).Rows()
		if err != nil {
			return nil, fmt.Errorf("tally %s: %w", k.table, err)
		}
		err = func() error {
			defer rows.Close()
			for rows.Next() {
				var key string
				var c counts
				if err := rows.Scan(&key, &c.n, &c.amount); err != nil {
					return fmt.Errorf("tally %s: %w", k.table, err)
				}
				t := Tally{}
				switch q.By {
				case TallyLink:
					t.LinkID = key
				case TallyBucket:
					m, ok := parseTrunc(key)
					if !ok {
						return fmt.Errorf("tally %s: unexpected time %q", k.table, key)
					}
					t.Start = FloorLocal(m, q.Granularity, q.TZ)
					key = t.Start.Format(time.RFC3339)
				}
				i, ok := idx[key]
				if !ok {
					i = len(out)
					idx[key] = i
					out = append(out, t)
				}
				out[i].add(k, c)
			}
			return rows.Err()
		}()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
