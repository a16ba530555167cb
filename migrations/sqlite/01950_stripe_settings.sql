-- +goose Up
-- A workspace's Stripe app settings (docs/stripe.md), as Dub's Stripe
-- integration settings: free_trials records a lead ("Started Trial") when a
-- subscription starts in trial (customer.subscription.created), and
-- trial_quantity makes it one lead per seat (the subscription's first
-- item's quantity). No row: both off, Dub's defaults.
CREATE TABLE stripe_settings (
    workspace_id   TEXT PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    free_trials    BOOLEAN NOT NULL DEFAULT FALSE,
    trial_quantity BOOLEAN NOT NULL DEFAULT FALSE,
    updated_at     DATETIME NOT NULL
);

-- +goose Down
DROP TABLE stripe_settings;
