package models

import (
	"context"
	"time"
)

// Retention bounds of Workspace.EventRetentionDays: 0 keeps raw events
// forever; otherwise at least MinRetentionDays, so that a lead can still be
// attributed to its click within the 90-day attribution window.
const (
	MinRetentionDays = 90
	MaxRetentionDays = 3650
)

// SetPrivacy saves the workspace's privacy settings.
func (db *DB) SetPrivacy(ctx context.Context, workspaceID string, keepIPs bool, retentionDays int) error {
	err := db.WithContext(ctx).Model(&Workspace{}).Where("id = ?", workspaceID).
		Updates(map[string]any{"keep_ips": keepIPs, "event_retention_days": retentionDays}).Error
	return dbErr(err, "save privacy settings", "", "")
}

// WorkspacesKeepingIPs lists the ids of the workspaces whose clicks keep IP
// addresses.
func (db *DB) WorkspacesKeepingIPs(ctx context.Context) ([]string, error) {
	var ids []string
	err := db.WithContext(ctx).Model(&Workspace{}).Where("keep_ips = ?", true).Pluck("id", &ids).Error
	return ids, dbErr(err, "list workspaces keeping IPs", "", "")
}

// RetentionPolicies lists the workspaces with a raw-event retention period.
func (db *DB) RetentionPolicies(ctx context.Context) ([]Workspace, error) {
	var ws []Workspace
	err := db.WithContext(ctx).Select("id", "event_retention_days").Where("event_retention_days > 0").Find(&ws).Error
	return ws, dbErr(err, "list retention policies", "", "")
}

// DeleteClicksBefore deletes up to limit of the workspace's raw clicks older
// than before — in clicks, then in the attribution table (the ClickHouse
// event store's slim rows, kept for the attribution window, which can be
// longer than the retention period) — and says how many went. The event
// aggregates are not touched, so unfiltered analytics keep counting them.
func (db *DB) DeleteClicksBefore(ctx context.Context, workspaceID string, before time.Time, limit int) (int64, error) {
	res := db.WithContext(ctx).Exec(`DELETE FROM clicks WHERE click_id IN (
		SELECT click_id FROM clicks WHERE workspace_id = ? AND timestamp < ? LIMIT ?)`, workspaceID, before.UTC(), limit)
	if err := dbErr(res.Error, "delete old clicks", "", ""); err != nil || res.RowsAffected >= int64(limit) {
		return res.RowsAffected, err
	}
	n, err := db.DeleteAttributionBefore(ctx, workspaceID, before, limit-int(res.RowsAffected))
	return res.RowsAffected + n, err
}
