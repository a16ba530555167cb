-- +goose Up
-- link.clicked at volume (issue 14 item 4): the click feed writes one outbox
-- row per ingest batch and webhook, holding the batch's envelopes one per
-- line, in webhook_click_batches; `clicks` is how many (0: an ordinary row
-- with its event in `body`). The envelopes live apart because SQLite
-- rewrites a whole row on UPDATE: claiming, extending and finishing a row
-- with a megabyte body in it rewrote the megabyte each time. The worker still
-- sends one request per click; clicks whose attempt failed (or that a
-- stopping worker did not reach) continue as ordinary rows of their own, and
-- the batch's envelopes are deleted when it is finished.
ALTER TABLE webhook_deliveries ADD COLUMN clicks INTEGER NOT NULL DEFAULT 0;
CREATE TABLE webhook_click_batches (
    delivery_id BIGINT PRIMARY KEY REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    body        TEXT NOT NULL
);
-- The claim's filter read from the index alone: a batch row's body is
-- megabytes, and reading a column stored after it (claimed_until, clicks)
-- walks its overflow pages, so filtering on the table made every claim read
-- every pending batch whole. It replaces the index on next_attempt_at alone.
DROP INDEX webhook_deliveries_due_idx;
CREATE INDEX webhook_deliveries_claim_idx ON webhook_deliveries (next_attempt_at, clicks, claimed_until)
    WHERE status = 'pending';

-- +goose Down
DROP TABLE webhook_click_batches;
DROP INDEX webhook_deliveries_claim_idx;
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
ALTER TABLE webhook_deliveries DROP COLUMN clicks;
