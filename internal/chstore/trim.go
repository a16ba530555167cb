package chstore

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/relinkhq/relink/models"
)

// TrimPeriod is how often the "clickhouse click trim" job runs.
const TrimPeriod = time.Hour

// trimBatch is the slim rows read, checked and deleted at a time.
const trimBatch = 1000

// ClickTrim is the job that keeps the SQL store's clicks to the attribution
// window when ClickHouse holds them (docs/clickhouse.md, "One copy of each
// click"): a click older than Window can no longer be attributed a lead
// (conversions look it up no further back, models.DB.AttributionClick), so its
// slim row goes — from the attribution table, and from clicks (the slim
// rows of releases before the attribution table, clicks written outside
// the pipeline). Only rows ClickHouse holds are deleted: clicks stored
// before the event store was turned on stay in the SQL store until
// `relink clickhouse backfill` has copied them (the job logs how many
// wait), so the trim never loses a click.
type ClickTrim struct {
	SQL    *models.DB
	CH     *Client
	Window time.Duration
	Now    func() time.Time
	Log    *slog.Logger
}

// TrimResult is what one run did.
type TrimResult struct {
	Deleted     int64 // slim rows deleted (both tables)
	Attribution int64 // of which from the attribution table
	Waiting     int64 // rows past the window ClickHouse does not hold (not deleted)
}

// Run deletes, workspace by workspace, the SQL store's clicks older than
// the window that ClickHouse holds.
func (t *ClickTrim) Run(ctx context.Context) error {
	_, err := t.Trim(ctx)
	return err
}

// Trim is Run with its counts.
func (t *ClickTrim) Trim(ctx context.Context) (TrimResult, error) {
	var res TrimResult
	cut := t.Now().Add(-t.Window).UTC()
	var wss []string
	// Workspace by workspace: each read is a range of the clicks'
	// (workspace_id, timestamp) index.
	if err := t.SQL.WithContext(ctx).Raw("SELECT id FROM workspaces ORDER BY id").Scan(&wss).Error; err != nil {
		return res, fmt.Errorf("click trim: workspaces: %w", err)
	}
	for _, ws := range wss {
		if err := t.workspace(ctx, ws, cut, &res); err != nil {
			return res, fmt.Errorf("click trim of workspace %s: %w", ws, err)
		}
		if err := t.attribution(ctx, ws, cut, &res); err != nil {
			return res, fmt.Errorf("click trim of workspace %s's attribution table: %w", ws, err)
		}
	}
	if res.Deleted > 0 || res.Waiting > 0 {
		t.Log.Info("clickhouse click trim", "deleted", res.Deleted, "waiting_for_backfill", res.Waiting, "before", cut)
	}
	if res.Waiting > 0 {
		t.Log.Warn("clicks past the attribution window are not in ClickHouse yet; run `relink clickhouse backfill` to copy them", "clicks", res.Waiting)
	}
	return res, nil
}

// attribution trims one workspace's rows of the attribution table before
// cut, in key order (day, click id), in batches: the rows ClickHouse holds
// are deleted (by day and ids: key lookups), the others stepped over.
func (t *ClickTrim) attribution(ctx context.Context, ws string, cut time.Time, res *TrimResult) error {
	type row struct {
		Day       int64
		ClickID   string
		Timestamp time.Time
	}
	var after *row
	for ctx.Err() == nil {
		q := t.SQL.WithContext(ctx).Table(models.AttributionTable).Select("day, click_id, timestamp").
			Where("workspace_id = ? AND day <= ? AND timestamp < ?", ws, models.ClickDay(cut), cut)
		if after != nil {
			q = q.Where("(day, click_id) > (?, ?)", after.Day, after.ClickID)
		}
		var rows []row
		if err := q.Order("day, click_id").Limit(trimBatch).Scan(&rows).Error; err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		ids := make([]string, len(rows))
		lo, hi := rows[0].Timestamp, rows[0].Timestamp
		for i, r := range rows {
			ids[i] = r.ClickID
			if r.Timestamp.Before(lo) {
				lo = r.Timestamp
			}
			if r.Timestamp.After(hi) {
				hi = r.Timestamp
			}
		}
		held, err := t.CH.storedIDs(ctx, "clicks", []string{ws}, Micros(lo), Micros(hi), ids)
		if err != nil {
			return err
		}
		gone := map[int64][]string{}
		var days []int64
		kept := 0
		for _, r := range rows {
			if !held[r.ClickID] {
				kept++
				continue
			}
			if gone[r.Day] == nil {
				days = append(days, r.Day)
			}
			gone[r.Day] = append(gone[r.Day], r.ClickID)
		}
		for _, d := range days {
			n, err := t.SQL.DeleteAttributionClicks(ctx, ws, d, gone[d])
			if err != nil {
				return err
			}
			res.Deleted += n
			res.Attribution += n
		}
		res.Waiting += int64(kept)
		last := rows[len(rows)-1]
		after = &last
		if len(rows) < trimBatch {
			return nil
		}
	}
	return ctx.Err()
}

// workspace trims one workspace's rows before cut, oldest first, in
// batches: the rows ClickHouse holds are deleted, the others are stepped
// over (the cursor moves past them).
func (t *ClickTrim) workspace(ctx context.Context, ws string, cut time.Time, res *TrimResult) error {
	type row struct {
		ClickID   string
		Timestamp time.Time
	}
	var after *row
	for ctx.Err() == nil {
		q := t.SQL.WithContext(ctx).Table("clicks").Select("click_id, timestamp").
			Where("workspace_id = ? AND timestamp < ?", ws, cut)
		if after != nil {
			q = q.Where("(timestamp > ? OR (timestamp = ? AND click_id > ?))", after.Timestamp.UTC(), after.Timestamp.UTC(), after.ClickID)
		}
		var rows []row
		if err := q.Order("timestamp, click_id").Limit(trimBatch).Scan(&rows).Error; err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.ClickID
		}
		held, err := t.CH.storedIDs(ctx, "clicks", []string{ws}, Micros(rows[0].Timestamp), Micros(rows[len(rows)-1].Timestamp), ids)
		if err != nil {
			return err
		}
		gone := make([]string, 0, len(held))
		for _, id := range ids {
			if held[id] {
				gone = append(gone, id)
			}
		}
		if len(gone) > 0 {
			d := t.SQL.WithContext(ctx).Exec("DELETE FROM clicks WHERE click_id IN ?", gone)
			if d.Error != nil {
				return fmt.Errorf("delete: %w", d.Error)
			}
			res.Deleted += d.RowsAffected
		}
		res.Waiting += int64(len(rows) - len(gone))
		last := rows[len(rows)-1]
		after = &last
		if len(rows) < trimBatch {
			return nil
		}
	}
	return ctx.Err()
}

// EventUsage counts the workspace's clicks, leads and sales since since (a
// whole UTC hour) from the rollups' totals: models.DB.EventUsage for the
// ClickHouse event store, where the SQL store has no click aggregates.
func (c *Client) EventUsage(ctx context.Context, workspaceID string, since time.Time) (int64, error) {
	var n int64
	q := fmt.Sprintf("SELECT sum(count) FROM event_aggregates WHERE workspace_id = %s AND dim = 'total' AND hour >= toDateTime(%d, 'UTC')",
		Quote(workspaceID), since.Unix())
	err := c.Query(ctx, q, func(cols []string) error {
		_, err := fmt.Sscan(cols[0], &n)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("event usage of workspace %s: %w", workspaceID, err)
	}
	return n, nil
}
