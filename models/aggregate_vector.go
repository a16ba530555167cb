package models

import (
	"context"
	"fmt"
	"time"
)

// DimRevision is the aggregate dimension that counts writes (migration
// 01700): one row per workspace, event kind and UTC day (hour = 00:00 UTC,
// empty value), whose count every AddEventAggregates call that changes the
// day's per-link or per-URL rows increments by one. The analytics engine's
// aggregate vectors (internal/analytics/vectors.go: packed copies of a
// day's or a week's per-link and per-URL rows) remember the sum of their
// days' revisions when built, and are used only while it is unchanged.
const DimRevision = "rev"

// revisionRows returns one DimRevision row (count 1) per workspace, event
// kind and UTC day that rows change per-link or per-URL values of.
func revisionRows(rows []EventAggregate) []EventAggregate {
	type day struct {
		ws, event string
		at        time.Time
	}
	seen := map[day]bool{}
	var out []EventAggregate
	for _, r := range rows {
		if r.Dim != DimLink && r.Dim != "url" {
			continue
		}
		d := day{r.WorkspaceID, r.Event, DayStart(r.Hour)}
		if seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, EventAggregate{WorkspaceID: d.ws, Event: d.event, Dim: DimRevision, Hour: d.at, Count: 1})
	}
	return out
}

// DeleteAggregateVectors drops the sealed blocks of the given workspaces:
// for writers that change per-link or per-URL rows without counting
// revisions (a rebuild, the demo's bulk loader).
func (db *DB) DeleteAggregateVectors(ctx context.Context, workspaceIDs ...string) error {
	if len(workspaceIDs) == 0 {
		return nil
	}
	if err := db.WithContext(ctx).Exec("DELETE FROM aggregate_vectors WHERE workspace_id IN ?", workspaceIDs).Error; err != nil {
		return fmt.Errorf("delete aggregate vectors: %w", err)
	}
	return nil
}
