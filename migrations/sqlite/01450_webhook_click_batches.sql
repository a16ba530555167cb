-- +goose Up
-- link.clicked at volume (issue 14 item 4): the click feed writes one outbox
-- row per ingest batch and webhook, holding the batch's envelopes one per
-- line; `clicks` is how many (0: an ordinary row with one event). The worker
-- still sends one request per click; clicks whose attempt failed (or that a
-- stopping worker did not reach) continue as ordinary rows of their own.
ALTER TABLE webhook_deliveries ADD COLUMN clicks INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE webhook_deliveries DROP COLUMN clicks;
