// Package privacy applies the workspaces' privacy settings (docs/privacy.md):
// which workspaces' clicks keep visitors' IP addresses, and the retention job
// that deletes raw click events past a workspace's retention period while
// the event aggregates stay.
package privacy

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/relinkhq/relink/internal/wsset"
	"github.com/relinkhq/relink/models"
)

// KeepingIPs is the set of workspaces whose clicks keep IP addresses.
func KeepingIPs(ctx context.Context, db *models.DB) (*wsset.Set, error) {
	return wsset.New(ctx, "workspaces keeping IP addresses", db.WorkspacesKeepingIPs)
}

// RetentionPeriod is how often the retention job runs.
const RetentionPeriod = time.Hour

// retentionChunk is how many clicks one DELETE removes, so that a first run
// over years of clicks holds no lock for long.
const retentionChunk = 10000

// EventStore is a second store of raw clicks (the ClickHouse event store,
// chstore.Client) that retention trims as well.
type EventStore interface {
	// DeleteClicksBefore removes (or schedules the removal of) a
	// workspace's raw clicks older than before and says how many.
	DeleteClicksBefore(ctx context.Context, workspaceID string, before time.Time) (int64, error)
}

// Retention deletes raw clicks past their workspace's retention period, in
// the SQL database and, when set, in the event store.
type Retention struct {
	DB     *models.DB
	Events EventStore // nil without RELINK_CLICKHOUSE_URL
	Now    func() time.Time
	Logger *slog.Logger
}

// Run is one round: for each workspace with a period, delete its clicks
// older than now minus the period, a chunk at a time. It returns how many
// were deleted.
func (r *Retention) Run(ctx context.Context) (int64, error) {
	policies, err := r.DB.RetentionPolicies(ctx)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, ws := range policies {
		before := r.Now().Add(-time.Duration(ws.EventRetentionDays) * 24 * time.Hour)
		for {
			n, err := r.DB.DeleteClicksBefore(ctx, ws.ID, before, retentionChunk)
			if err != nil {
				return total, fmt.Errorf("retention of workspace %s: %w", ws.ID, err)
			}
			total += n
			if n < retentionChunk {
				break
			}
		}
		if r.Events != nil {
			n, err := r.Events.DeleteClicksBefore(ctx, ws.ID, before)
			if err != nil {
				return total, fmt.Errorf("retention of workspace %s in the event store: %w", ws.ID, err)
			}
			if n > 0 {
				r.Logger.Info("retention: deleting raw clicks past their workspace's period from the event store", "workspace", ws.ID, "clicks", n)
			}
		}
	}
	if total > 0 {
		r.Logger.Info("retention: deleted raw clicks past their workspace's period", "clicks", total)
	}
	return total, nil
}
