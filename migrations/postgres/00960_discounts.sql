-- +goose Up
-- Discounts (one per partner group, spec/parity.md §8.1) and the partners'
-- discount codes (§8.2). A code is unique per program, case-insensitively
-- (§16's recommendation), and a link has at most one code.
CREATE TABLE discounts (
    id                         TEXT PRIMARY KEY,
    workspace_id               TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id                 TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    amount                     INTEGER NOT NULL DEFAULT 0,    -- percent, or cents when flat
    type                       TEXT NOT NULL DEFAULT 'percentage', -- percentage | flat
    max_duration               INTEGER,                       -- months; NULL lifetime, 0 first purchase
    coupon_id                  TEXT,
    coupon_test_id             TEXT,
    description                TEXT,
    auto_provision_enabled_at  TIMESTAMPTZ,
    provider                   TEXT NOT NULL DEFAULT 'custom',
    created_at                 TIMESTAMPTZ NOT NULL,
    updated_at                 TIMESTAMPTZ NOT NULL
);
CREATE INDEX discounts_program_idx ON discounts (program_id);

CREATE TABLE discount_codes (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id   TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    discount_id  TEXT,
    partner_id   TEXT NOT NULL,
    link_id      TEXT NOT NULL,
    code         TEXT NOT NULL,
    disabled_at  TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX discount_codes_program_code_key ON discount_codes (program_id, lower(code));
CREATE UNIQUE INDEX discount_codes_link_key ON discount_codes (link_id);
CREATE INDEX discount_codes_partner_idx ON discount_codes (program_id, partner_id, created_at);

-- +goose Down
DROP TABLE discount_codes;
DROP TABLE discounts;
