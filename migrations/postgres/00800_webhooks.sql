-- +goose Up
-- Outgoing webhooks (spec/webhooks.md §1): one row per endpoint of a workspace.
-- triggers is a JSON array of event names; link_scope says which clicks a
-- link.clicked webhook receives (webhook_links / webhook_folders hold the
-- sets). disabled_at non-null = disabled, disabled_reason says why
-- ("failures": the automatic disable at the failure threshold, "manual").
CREATE TABLE webhooks (
    id                   TEXT PRIMARY KEY,
    workspace_id         TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name                 TEXT NOT NULL,
    url                  TEXT NOT NULL,
    secret               TEXT NOT NULL,
    receiver             TEXT NOT NULL DEFAULT 'user',
    installation_id      TEXT,
    triggers             TEXT NOT NULL DEFAULT '[]',
    link_scope           TEXT,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    last_failed_at       TIMESTAMPTZ,
    disabled_at          TIMESTAMPTZ,
    disabled_reason      TEXT,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhooks_workspace_idx ON webhooks (workspace_id, created_at);

CREATE TABLE webhook_links (
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    link_id    TEXT NOT NULL REFERENCES links (id) ON DELETE CASCADE,
    PRIMARY KEY (webhook_id, link_id)
);
CREATE INDEX webhook_links_link_idx ON webhook_links (link_id);

CREATE TABLE webhook_folders (
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    folder_id  TEXT NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    PRIMARY KEY (webhook_id, folder_id)
);

-- The outbox: one row per (event, webhook), written in the transaction of
-- the change that causes the event. body is the signed envelope
-- (spec/webhooks.md §4), fixed at emission so retries resend identical bytes.
-- Workers claim due rows (status pending, next_attempt_at passed, no live
-- claim) by setting claimed_until; a crashed worker's claim expires.
CREATE TABLE webhook_deliveries (
    id              BIGSERIAL PRIMARY KEY,
    event_id        TEXT NOT NULL,
    event           TEXT NOT NULL,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    workspace_id    TEXT NOT NULL,
    body            TEXT NOT NULL,
    test            BOOLEAN NOT NULL DEFAULT FALSE,
    status          TEXT NOT NULL DEFAULT 'pending',
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_status     INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    claimed_until   TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    finished_at     TIMESTAMPTZ
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE status <> 'pending';

-- The delivery log (spec/webhooks.md §2.7, §6.9): one row per attempt.
CREATE TABLE webhook_attempts (
    id            BIGSERIAL PRIMARY KEY,
    delivery_id   BIGINT NOT NULL,
    webhook_id    TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id      TEXT NOT NULL,
    event         TEXT NOT NULL,
    message_id    TEXT NOT NULL,
    url           TEXT NOT NULL,
    http_status   INTEGER NOT NULL,
    request_body  TEXT NOT NULL,
    response_body TEXT NOT NULL,
    error         TEXT NOT NULL DEFAULT '',
    duration_ms   INTEGER NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_attempts_webhook_idx ON webhook_attempts (webhook_id, created_at);
CREATE INDEX webhook_attempts_created_idx ON webhook_attempts (created_at);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_folders;
DROP TABLE webhook_links;
DROP TABLE webhooks;
