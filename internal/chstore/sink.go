package chstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/relinkhq/relink/models"
)

// ClickStore is the ingest pipeline's store when the ClickHouse event store
// is on. Each click is stored once: ClickHouse's clicks table holds it for
// analytics, and the SQL store keeps only its slim row (what a
// lead or sale copies from the click it is attributed to) in the
// attribution table (models.DB.RecordAttributionClicks: one B-tree, no
// secondary index) for the attribution window (ClickTrim deletes it
// after), and the link counters.
// The pipeline passes no aggregate hook in this mode (internal/app), so no
// SQL event aggregate is written for a click; the hooks it passes (the
// link.clicked feed) run in the SQL batch's transaction.
//
// The two writes run side by side, and the batch succeeds only when both
// stores accepted it, so the pipeline acknowledges it in the click journal
// only then; a failure is retried by the pipeline with backoff, and a batch
// sent twice is harmless (the SQL side skips stored click ids — in the
// attribution table, or in clicks where an earlier release put them —,
// ClickHouse's InsertOnce those it holds), and only the clicks the SQL side
// had not stored count in the link counters and the returned count.
type ClickStore struct {
	SQL *models.DB
	CH  *Client
}

// RecordClicks writes the batch to both stores and returns the number of
// clicks the SQL store had not seen (what the link counters counted).
func (s *ClickStore) RecordClicks(ctx context.Context, batch []models.Click, hooks ...models.ClickHook) (int, error) {
	// One INSERT per batch: every insert is a new part on each partition it
	// touches, and on ClickHouse 18.16 a part is a file pair per column
	// (wide parts) that background merges then rewrite; two half-batch
	// inserts sent at once cost its server a third more CPU than one
	// (bench/README.md, "One insert per batch").
	var wg sync.WaitGroup
	var chErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		chErr = s.CH.InsertClicks(ctx, batch)
	}()
	n, err := s.SQL.RecordAttributionClicks(ctx, batch, hooks...)
	wg.Wait()
	if err != nil {
		return 0, err
	}
	if chErr != nil {
		return 0, fmt.Errorf("clickhouse: %w", chErr)
	}
	return n, nil
}

// InsertClicks writes clicks into ClickHouse's clicks table.
// Each click is written once however often its batch is retried, counted
// in the rollups in the same INSERT (InsertOnce).
func (c *Client) InsertClicks(ctx context.Context, batch []models.Click) error {
	return c.insertClicksOnce(ctx, batch)
}
