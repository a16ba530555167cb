package chstore

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/relinkhq/relink/models"
)

// OutboxPeriod is how often the "clickhouse outbox" job copies new leads
// and sales to ClickHouse.
const OutboxPeriod = time.Second

// outboxBatch is the most outbox entries one round copies per insert.
const outboxBatch = 2000

// Outbox copies leads and sales from the SQL store's clickhouse_outbox
// (filled by trigger in each conversion's transaction, migration 01100) to
// ClickHouse. An entry is deleted only after ClickHouse accepted its row;
// a failure leaves it for the next round. A row is written once: on
// PostgreSQL each round claims its entries (FOR UPDATE SKIP LOCKED), and a
// row a crashed round inserted but did not delete is skipped by InsertOnce.
type Outbox struct {
	SQL *models.DB
	CH  *Client
	Log *slog.Logger

	mu sync.Mutex // one round at a time in this process
}

// Enable makes the SQL store's triggers fill the outbox from now on.
// Events before the first start with ClickHouse are copied by `relink
// clickhouse backfill`.
func (o *Outbox) Enable(ctx context.Context) error {
	err := o.SQL.WithContext(ctx).Exec("UPDATE clickhouse_state SET enabled = ?, enabled_at = COALESCE(enabled_at, ?) WHERE id = 1",
		true, time.Now().UTC()).Error
	if err != nil {
		return fmt.Errorf("clickhouse outbox: enable: %w", err)
	}
	return nil
}

type outboxEntry struct {
	Seq     int64
	Kind    string
	EventID string
}

// Run copies every entry present, in rounds of outboxBatch.
func (o *Outbox) Run(ctx context.Context) error {
	for {
		n, err := o.round(ctx)
		if err != nil {
			return err
		}
		if n < outboxBatch {
			return nil
		}
	}
}

// Drain is Run at shutdown.
func (o *Outbox) Drain(ctx context.Context) error { return o.Run(ctx) }

// Pending is the number of outbox entries not yet copied.
func (o *Outbox) Pending(ctx context.Context) (int64, error) {
	var n int64
	err := o.SQL.WithContext(ctx).Raw("SELECT COUNT(*) FROM clickhouse_outbox").Scan(&n).Error
	if err != nil {
		return 0, fmt.Errorf("clickhouse outbox: count: %w", err)
	}
	return n, nil
}

func (o *Outbox) round(ctx context.Context) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.SQL.Dialect != "postgres" {
		return o.copyRound(ctx, o.SQL, "")
	}
	// Several instances drain one outbox: each claims its entries with row
	// locks held until they are deleted, so no two copy the same entry at
	// once (InsertOnce's one-writer rule) and none waits for another.
	var n int
	err := o.SQL.Tx(ctx, func(tx *models.DB) error {
		var err error
		n, err = o.copyRound(ctx, tx, " FOR UPDATE SKIP LOCKED")
		return err
	})
	return n, err
}

func (o *Outbox) copyRound(ctx context.Context, db *models.DB, lock string) (int, error) {
	var es []outboxEntry
	if err := db.WithContext(ctx).Raw("SELECT seq, kind, event_id FROM clickhouse_outbox ORDER BY seq LIMIT ?"+lock, outboxBatch).Scan(&es).Error; err != nil {
		return 0, fmt.Errorf("clickhouse outbox: read: %w", err)
	}
	if len(es) == 0 {
		return 0, nil
	}
	byKind := map[string][]string{}
	seqs := make([]int64, 0, len(es))
	for _, e := range es {
		byKind[e.Kind] = append(byKind[e.Kind], e.EventID)
		seqs = append(seqs, e.Seq)
	}
	for _, kind := range []string{"click", "lead", "sale"} {
		if ids := byKind[kind]; len(ids) > 0 {
			if err := o.CH.CopyEvents(ctx, db, kind, ids); err != nil {
				return 0, fmt.Errorf("clickhouse outbox: %w", err)
			}
		}
	}
	// By sequence number, not "up to": an entry with a lower number whose
	// transaction committed after the read must stay for the next round.
	if err := db.WithContext(ctx).Exec("DELETE FROM clickhouse_outbox WHERE seq IN ?", seqs).Error; err != nil {
		return 0, fmt.Errorf("clickhouse outbox: delete copied entries: %w", err)
	}
	return len(es), nil
}

// eventColumns are the SQL columns an EventRow reads.
const leadColumns = "event_id, timestamp, workspace_id, event_name, customer_id, metadata, click_id, link_id, domain, key, url, ip, continent, country, region, city, latitude, longitude, device, device_vendor, device_model, browser, browser_version, engine, engine_version, os, os_version, cpu_architecture, ua, bot, qr, trigger, referer, referer_url, utm_source, utm_medium, utm_campaign, utm_term, utm_content"

const saleColumns = leadColumns + ", lead_event_id, amount, currency, payment_processor, invoice_id"

// CopyEvents reads the clicks, leads or sales with the given ids from the
// SQL store and inserts them into ClickHouse (ids no longer there are
// skipped). Clicks come through the outbox only when the server wrote them
// itself (models.DB.InsertSyntheticClick); the pipeline's go straight in.
func (c *Client) CopyEvents(ctx context.Context, db *models.DB, kind string, ids []string) error {
	if kind == "click" {
		var cs []models.Click
		if err := db.WithContext(ctx).Where("click_id IN ?", ids).Find(&cs).Error; err != nil {
			return fmt.Errorf("read clicks: %w", err)
		}
		return c.InsertClicks(ctx, cs)
	}
	table, cols, conv := "lead_events", leadColumns, LeadRow
	if kind == "sale" {
		table, cols, conv = "sale_events", saleColumns, SaleRow
	}
	var evs []EventRow
	if err := db.WithContext(ctx).Raw("SELECT "+cols+" FROM "+table+" WHERE event_id IN ?", ids).Scan(&evs).Error; err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	rows := make([]any, len(evs))
	for i := range evs {
		rows[i] = conv(&evs[i])
	}
	return c.InsertOnce(ctx, table, rows)
}
