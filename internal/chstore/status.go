package chstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/migrations"
	"github.com/relinkhq/relink/models"
)

// Status is what `relink clickhouse status` reports.
type Status struct {
	Version    string
	Migrations []string // applied, and "NAME (waits for X.Y)"
	Tables     []TableSize
	Outbox     int64 // leads and sales waiting in the SQL store's outbox
	Backfill   []BackfillProgress
	Rebuild    string   // the last rebuild's position
	Unmerged   []Merged // closed months of the rollups in more than one part (Compaction)
}

// TableSize is one table's active parts.
type TableSize struct {
	Name  string
	Rows  int64
	Bytes int64 // on disk, compressed
}

// ReadStatus gathers the server version, the migrations, the tables' sizes,
// the outbox backlog and the backfill and rebuild positions.
func ReadStatus(ctx context.Context, c *Client, db *models.DB) (*Status, error) {
	st := &Status{}
	v, err := c.Version(ctx)
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	st.Version = strings.Join(parts, ".")
	if st.Migrations, err = c.migrationStates(ctx, v); err != nil {
		return nil, err
	}
	err = c.Query(ctx, "SELECT table, sum(rows), sum(bytes_on_disk) FROM system.parts WHERE database = currentDatabase() AND active GROUP BY table ORDER BY table",
		func(cols []string) error {
			t := TableSize{Name: cols[0]}
			t.Rows, _ = strconv.ParseInt(cols[1], 10, 64)
			t.Bytes, _ = strconv.ParseInt(cols[2], 10, 64)
			st.Tables = append(st.Tables, t)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("clickhouse status: sizes: %w", err)
	}
	if st.Outbox, err = (&Outbox{SQL: db}).Pending(ctx); err != nil {
		return nil, err
	}
	for _, t := range backfillTables {
		var total int64
		if err := db.WithContext(ctx).Raw("SELECT COUNT(*) FROM " + t.table).Scan(&total).Error; err != nil {
			return nil, fmt.Errorf("clickhouse status: count %s: %w", t.table, err)
		}
		b := &Backfill{SQL: db, CH: c}
		cur, err := b.loadCursor(ctx, t.table)
		if err != nil {
			return nil, fmt.Errorf("clickhouse status: backfill cursor: %w", err)
		}
		st.Backfill = append(st.Backfill, BackfillProgress{Table: t.table, Done: cur.done, Total: total})
	}
	st.Rebuild = "never run"
	err = c.Query(ctx, "SELECT from_month, month, toString(at) FROM rebuild_cursor ORDER BY seq DESC LIMIT 1", func(cols []string) error {
		from := "the oldest month"
		if cols[0] != "0" {
			from = cols[0][:4] + "-" + cols[0][4:]
		}
		if cols[1] == "0" {
			st.Rebuild = fmt.Sprintf("from %s: finished at %s UTC", from, cols[2])
		} else {
			st.Rebuild = fmt.Sprintf("from %s: stopped after %s-%s at %s UTC (run it again to resume)", from, cols[1][:4], cols[1][4:], cols[2])
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clickhouse status: rebuild cursor: %w", err)
	}
	if st.Unmerged, err = (&Compaction{CH: c, Now: time.Now}).Pending(ctx); err != nil {
		return nil, fmt.Errorf("clickhouse status: %w", err)
	}
	return st, nil
}

// migrationStates lists the migrations: applied, or waiting for a newer
// server, or pending (applied at the next start).
func (c *Client) migrationStates(ctx context.Context, v []int) ([]string, error) {
	done, err := c.appliedMigrations(ctx)
	if err != nil {
		return nil, fmt.Errorf("clickhouse status: migrations: %w", err)
	}
	ms, err := loadMigrations(migrations.ClickHouse())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range ms {
		switch {
		case done[m.version]:
			out = append(out, m.name)
		case m.min != nil && !atLeast(v, m.min):
			out = append(out, fmt.Sprintf("%s (waits for %d.%d)", m.name, m.min[0], m.min[1]))
		default:
			out = append(out, m.name+" (pending)")
		}
	}
	return out, nil
}
