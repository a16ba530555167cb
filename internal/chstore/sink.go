package chstore

import (
	"context"
	"errors"
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
	// ClickHouse parses and writes an insert on one thread: a large batch
	// goes in as parallelInserts inserts at once (each its own InsertOnce
	// over its own ids, with its own rollups).
	parts := 1
	if len(batch) >= 2*minParallelInsert {
		parts = parallelInserts
	}
	var wg sync.WaitGroup
	chErrs := make([]error, parts)
	for i := range parts {
		part := batch[i*len(batch)/parts : (i+1)*len(batch)/parts]
		wg.Add(1)
		go func() {
			defer wg.Done()
			chErrs[i] = s.CH.InsertClicks(ctx, part)
		}()
	}
	n, err := s.SQL.RecordClicks(ctx, slim, hooks...)
	wg.Wait()
	if err != nil {
		return 0, err
	}
	if err := errors.Join(chErrs...); err != nil {
		return 0, fmt.Errorf("clickhouse: %w", err)
	}
	return n, nil
}

// parallelInserts is how many inserts a batch of at least
// 2 × minParallelInsert clicks is split into.
const (
	parallelInserts   = 2
	minParallelInsert = 1000
)

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
// Each click is written once however often its batch is retried, counted
// in the rollups in the same INSERT (InsertOnce).
func (c *Client) InsertClicks(ctx context.Context, batch []models.Click) error {
	return c.insertClicksOnce(ctx, batch)
}
