package chstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/relinkhq/relink/models"
)

// ClickStore is the ingest pipeline's store when the ClickHouse event store
// is on. Each click is stored once: ClickHouse's clicks table holds it for
// analytics, and the SQL store keeps only its slim row (SlimClick: what a
// lead or sale copies from the click it is attributed to) for the
// attribution window (ClickTrim deletes it after), and the link counters.
// The pipeline passes no aggregate hook in this mode (internal/app), so no
// SQL event aggregate is written for a click; the hooks it passes (the
// link.clicked feed) run in the SQL batch's transaction.
//
// The two writes run side by side, and the batch succeeds only when both
// stores accepted it, so the pipeline acknowledges it in the click journal
// only then; a failure is retried by the pipeline with backoff, and a batch
// sent twice is harmless (the SQL side skips stored click ids, ClickHouse's
// InsertOnce those it holds).
type ClickStore struct {
	SQL *models.DB
	CH  *Client
}

// RecordClicks writes the batch to both stores and returns the number of
// clicks the SQL store had not seen (what the link counters counted).
func (s *ClickStore) RecordClicks(ctx context.Context, batch []models.Click, hooks ...models.ClickHook) (int, error) {
	slim := make([]models.Click, len(batch))
	for i := range batch {
		slim[i] = SlimClick(batch[i])
	}
	var wg sync.WaitGroup
	var chErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		chErr = s.CH.InsertClicks(ctx, batch)
	}()
	n, err := s.SQL.RecordClicks(ctx, slim, hooks...)
	wg.Wait()
	if err != nil {
		return 0, err
	}
	if chErr != nil {
		return 0, fmt.Errorf("clickhouse: %w", chErr)
	}
	return n, nil
}

// SlimClick is the part of a click the SQL store keeps when ClickHouse holds
// the click: its id, time, workspace and link, and the attributes a lead or
// sale copies (models.ClickAttrs, which conversions read back with
// models.AttrsOf). The visitor identity hash, which no conversion reads, is
// left out.
func SlimClick(c models.Click) models.Click {
	c.IdentityHash = ""
	return c
}

// InsertClicks writes clicks into ClickHouse's clicks table.
func (c *Client) InsertClicks(ctx context.Context, batch []models.Click) error {
	rows := make([]any, len(batch))
	for i := range batch {
		rows[i] = ClickRow(&batch[i])
	}
	return c.InsertOnce(ctx, "clicks", rows)
}
