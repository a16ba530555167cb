package chstore

import (
	"context"
	"fmt"

	"github.com/relinkhq/relink/models"
)

// ClickStore is the ingest pipeline's store when the ClickHouse event store
// is on: a batch is written to the SQL store (the click rows conversions
// look up by click id, the link counters and the SQL aggregates, all
// idempotent by click id) and then to ClickHouse's clicks table. It
// succeeds only when ClickHouse accepted the batch, so the pipeline
// acknowledges the batch in the click journal only then; a failure is
// retried by the pipeline with backoff, and a batch sent twice is harmless
// (the SQL side skips stored click ids, ClickHouse's InsertOnce those it
// holds).
type ClickStore struct {
	SQL *models.DB
	CH  *Client
}

// RecordClicks writes the batch to both stores.
func (s *ClickStore) RecordClicks(ctx context.Context, batch []models.Click, hooks ...models.ClickHook) (int, error) {
	n, err := s.SQL.RecordClicks(ctx, batch, hooks...)
	if err != nil {
		return 0, err
	}
	if err := s.CH.InsertClicks(ctx, batch); err != nil {
		return 0, fmt.Errorf("clickhouse: %w", err)
	}
	return n, nil
}

// InsertClicks writes clicks into ClickHouse's clicks table.
func (c *Client) InsertClicks(ctx context.Context, batch []models.Click) error {
	rows := make([]any, len(batch))
	for i := range batch {
		rows[i] = ClickRow(&batch[i])
	}
	return c.InsertOnce(ctx, "clicks", rows)
}
