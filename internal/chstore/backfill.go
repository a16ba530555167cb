package chstore

import (
	"context"
	"fmt"
	"time"

	"github.com/relinkhq/relink/models"
)

// BackfillProgress is reported after every batch of a Backfill.
type BackfillProgress struct {
	Table       string // clicks, attribution_clicks, lead_events, sale_events
	Done, Total int64  // rows of Table copied (resumed runs included) and in the SQL store
}

// Backfill copies the SQL store's events into ClickHouse, table by table
// in (workspace, timestamp, id) order, batch rows at a time. After each
// batch the cursor is saved in ClickHouse (backfill_cursor), so a
// backfill stopped for any reason resumes after the last batch copied;
// rows copied twice (the live path writes new events too) are harmless.
type Backfill struct {
	SQL      *models.DB
	CH       *Client
	Batch    int // rows per insert (default 10,000)
	Progress func(BackfillProgress)
	// Restart ignores saved cursors.
	Restart bool
}

type cursor struct {
	done        int64
	ws, ts, id  string
	initialized bool
}

var backfillTables = []struct{ table, id, cols string }{
	{"clicks", "click_id", ""},
	// The attribution table's rows are written beside their ClickHouse
	// insert, so ClickHouse holds them; copied too in case one was lost
	// (ClickTrim keeps the rows ClickHouse does not hold).
	{models.AttributionTable, "click_id", ""},
	{"lead_events", "event_id", leadColumns},
	{"sale_events", "event_id", saleColumns},
}

// Run copies every table.
func (b *Backfill) Run(ctx context.Context) error {
	if b.Batch <= 0 {
		b.Batch = 10000
	}
	for _, t := range backfillTables {
		if err := b.table(ctx, t.table, t.id, t.cols); err != nil {
			return fmt.Errorf("backfill %s: %w", t.table, err)
		}
	}
	return nil
}

func (b *Backfill) loadCursor(ctx context.Context, table string) (cursor, error) {
	var c cursor
	if b.Restart {
		return c, nil
	}
	err := b.CH.Query(ctx, "SELECT done, workspace_id, ts, id FROM backfill_cursor WHERE tbl = "+Quote(table)+" ORDER BY seq DESC LIMIT 1",
		func(cols []string) error {
			if _, err := fmt.Sscan(cols[0], &c.done); err != nil {
				return fmt.Errorf("cursor: %w", err)
			}
			c.ws, c.ts, c.id, c.initialized = cols[1], cols[2], cols[3], true
			return nil
		})
	return c, err
}

func (b *Backfill) table(ctx context.Context, table, idCol, cols string) error {
	var total int64
	if err := b.SQL.WithContext(ctx).Raw("SELECT COUNT(*) FROM " + table).Scan(&total).Error; err != nil {
		return fmt.Errorf("count: %w", err)
	}
	cur, err := b.loadCursor(ctx, table)
	if err != nil {
		return err
	}
	report := func() {
		if b.Progress != nil {
			b.Progress(BackfillProgress{Table: table, Done: min(cur.done, total), Total: total})
		}
	}
	report()
	attr := table == models.AttributionTable
	for {
		q := b.SQL.WithContext(ctx).Table(table).Order("workspace_id, timestamp, " + idCol).Limit(b.Batch)
		if attr {
			// In its key's order: (workspace_id, day, click_id).
			q = b.SQL.WithContext(ctx).Table(table).Select(models.AttributionSelect).Order("workspace_id, day, click_id").Limit(b.Batch)
		}
		if cur.initialized {
			at, err := time.Parse(time.RFC3339Nano, cur.ts)
			if err != nil {
				return fmt.Errorf("cursor time %q: %w", cur.ts, err)
			}
			if attr {
				d := models.ClickDay(at)
				q = q.Where("workspace_id > ? OR (workspace_id = ? AND (day > ? OR (day = ? AND click_id > ?)))",
					cur.ws, cur.ws, d, d, cur.id)
			} else {
				q = q.Where("workspace_id > ? OR (workspace_id = ? AND (timestamp > ? OR (timestamp = ? AND "+idCol+" > ?)))",
					cur.ws, cur.ws, at, at, cur.id)
			}
		}
		var rows []any
		var cs []models.Click
		var last struct {
			ws, id string
			at     time.Time
		}
		if table == "clicks" || attr {
			if err := q.Find(&cs).Error; err != nil {
				return fmt.Errorf("read: %w", err)
			}
			if n := len(cs); n > 0 {
				last.ws, last.at, last.id = cs[n-1].WorkspaceID, cs[n-1].Timestamp, cs[n-1].ClickID
			}
		} else {
			var es []EventRow
			if err := q.Select(cols).Scan(&es).Error; err != nil {
				return fmt.Errorf("read: %w", err)
			}
			conv := LeadRow
			if table == "sale_events" {
				conv = SaleRow
			}
			for i := range es {
				rows = append(rows, conv(&es[i]))
			}
			if n := len(es); n > 0 {
				last.ws, last.at, last.id = es[n-1].WorkspaceID, es[n-1].Timestamp, es[n-1].EventID
			}
		}
		n := len(rows) + len(cs)
		if n == 0 {
			report()
			return nil
		}
		if cs != nil {
			err = b.CH.InsertClicks(ctx, cs)
		} else {
			err = b.CH.InsertOnce(ctx, table, rows)
		}
		if err != nil {
			return err
		}
		cur = cursor{done: cur.done + int64(n), ws: last.ws, ts: last.at.UTC().Format(time.RFC3339Nano), id: last.id, initialized: true}
		if err := b.CH.Exec(ctx, fmt.Sprintf("INSERT INTO backfill_cursor (tbl, seq, done, workspace_id, ts, id) VALUES (%s, %d, %d, %s, %s, %s)",
			Quote(table), time.Now().UnixNano(), cur.done, Quote(cur.ws), Quote(cur.ts), Quote(cur.id))); err != nil {
			return fmt.Errorf("save cursor: %w", err)
		}
		report()
	}
}
