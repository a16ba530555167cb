package models

import (
	"context"
	"fmt"
	"time"
)

// Limits are a plan's monthly caps; 0 means unlimited.
type Limits struct {
	Events int64 // clicks, leads and sales recorded in the month ("usage")
	Links  int64 // links created in the month ("linksUsage")
}

// PlanLimits are upstream's per-plan monthly limits. They apply only when
// the operator turns them on (RELINK_USAGE_LIMITS=plan).
func PlanLimits(p Plan) Limits {
	switch p {
	case PlanFree:
		return Limits{Events: 1_000, Links: 25}
	case PlanPro:
		return Limits{Events: 50_000, Links: 1_000}
	case PlanBusiness:
		return Limits{Events: 250_000, Links: 10_000}
	case PlanAdvanced:
		return Limits{Events: 1_000_000, Links: 50_000}
	}
	return Limits{}
}

// UsagePeriodStart is the start of the usage period containing now: the
// calendar month in UTC (a self-hosted workspace has no billing cycle).
func UsagePeriodStart(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// EventUsage counts the workspace's clicks, leads and sales since since (a
// whole UTC hour) from the hourly 'total' aggregates: a few hundred index
// rows a month, never the event tables, and nothing added to the click
// path. Lead quantities count as they are aggregated.
func (db *DB) EventUsage(ctx context.Context, workspaceID string, since time.Time) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Raw("SELECT COALESCE(SUM(count), 0) FROM event_aggregates WHERE workspace_id = ? AND dim = ? AND hour >= ?",
		workspaceID, DimTotal, since.UTC()).Scan(&n).Error
	if err != nil {
		return 0, fmt.Errorf("event usage of workspace %s: %w", workspaceID, err)
	}
	return n, nil
}

// LinksUsage counts the links the workspace created since since that
// still exist (links are deleted for good; upstream's counter, unlike this
// count, does not go down when a link is deleted).
func (db *DB) LinksUsage(ctx context.Context, workspaceID string, since time.Time) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND created_at >= ?", workspaceID, since.UTC()).Count(&n).Error
	if err != nil {
		return 0, fmt.Errorf("links usage of workspace %s: %w", workspaceID, err)
	}
	return n, nil
}
