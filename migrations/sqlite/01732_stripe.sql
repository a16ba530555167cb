-- +goose Up
-- Sales from Stripe (docs/stripe.md): a workspace's Stripe webhook
-- endpoints. Each row is one endpoint's signing secret (whsec_…), kept as
-- webhook secrets are: the raw value, which verification needs, shown masked.
-- mode is the slot the owner chose ('live' or 'test': Stripe gives each mode
-- its own endpoint and secret); the mode recorded on a sale is the event's
-- livemode.
CREATE TABLE stripe_endpoints (
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    mode          TEXT NOT NULL,
    secret        TEXT NOT NULL,
    last_event_at DATETIME,
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL,
    PRIMARY KEY (workspace_id, mode)
);

-- Every verified Stripe event, once: the primary key makes a retried
-- delivery (same event id) record nothing twice. result is what the
-- endpoint answered (shown on the console page).
CREATE TABLE stripe_events (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    event_id     TEXT NOT NULL,
    type         TEXT NOT NULL,
    livemode     BOOLEAN NOT NULL,
    result       TEXT NOT NULL DEFAULT '',
    received_at  DATETIME NOT NULL,
    PRIMARY KEY (workspace_id, event_id)
);
CREATE INDEX stripe_events_recent_idx ON stripe_events (workspace_id, received_at);

-- Which invoice a payment intent paid (from checkout sessions, invoices,
-- invoice_payment.paid and charges), so charge.refunded finds the sale's
-- commission by its invoice id.
CREATE TABLE stripe_payments (
    workspace_id      TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    payment_intent_id TEXT NOT NULL,
    invoice_id        TEXT NOT NULL,
    PRIMARY KEY (workspace_id, payment_intent_id)
);

CREATE INDEX customers_workspace_stripe_idx ON customers (workspace_id, stripe_customer_id);

-- +goose Down
DROP INDEX customers_workspace_stripe_idx;
DROP TABLE stripe_payments;
DROP TABLE stripe_events;
DROP TABLE stripe_endpoints;
