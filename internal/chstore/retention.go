package chstore

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// DeleteClicksBefore removes a workspace's raw clicks older than before from
// the event store, as the retention job does in the SQL store
// (internal/privacy, docs/privacy.md); the rollups (event_aggregates) stay,
// so analytics from aggregates keep their totals.
//
// ClickHouse deletes with a mutation (ALTER TABLE … DELETE, 18.16 and
// newer), which rewrites the affected parts in the background: the call
// returns once it is scheduled and reports how many clicks it matched. A
// round that finds nothing to delete, or a mutation for this workspace still
// running, schedules none, so an hourly job does not pile mutations up.
func (c *Client) DeleteClicksBefore(ctx context.Context, workspaceID string, before time.Time) (int64, error) {
	us := strconv.FormatInt(before.UnixMicro(), 10)
	// time (whole seconds, the primary key's second column) bounds the read;
	// ts (microseconds) is the exact cut.
	cond := "workspace_id = " + Quote(workspaceID) + " AND time <= toDateTime(" +
		strconv.FormatInt(before.Unix(), 10) + ", 'UTC') AND ts < " + us
	var matched string
	if err := c.Query(ctx, "SELECT count() FROM clicks WHERE "+cond, func(cols []string) error {
		matched = cols[0]
		return nil
	}); err != nil {
		return 0, fmt.Errorf("clickhouse retention: count: %w", err)
	}
	n, err := strconv.ParseInt(matched, 10, 64)
	if err != nil || n == 0 {
		return 0, err
	}
	running := ""
	q := "SELECT count() FROM system.mutations WHERE database = currentDatabase() AND table = 'clicks' AND is_done = 0 AND position(command, " +
		Quote(Quote(workspaceID)) + ") > 0"
	if err := c.Query(ctx, q, func(cols []string) error { running = cols[0]; return nil }); err != nil {
		return 0, fmt.Errorf("clickhouse retention: mutations: %w", err)
	}
	if running != "0" {
		return 0, nil
	}
	// Recorded first: a rebuild of the rollups must keep this workspace's
	// rollups before the cut (Rebuild), even if the delete is retried.
	if err := c.Exec(ctx, fmt.Sprintf("INSERT INTO trimmed (workspace_id, before_ts) VALUES (%s, %s)", Quote(workspaceID), us)); err != nil {
		return 0, fmt.Errorf("clickhouse retention: record the cut: %w", err)
	}
	if err := c.Exec(ctx, "ALTER TABLE clicks DELETE WHERE "+cond); err != nil {
		return 0, fmt.Errorf("clickhouse retention: delete: %w", err)
	}
	return n, nil
}
