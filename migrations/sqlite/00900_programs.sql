-- +goose Up
-- Partner-program operations (issue 13 items 1-5, spec/parity.md §2-§7):
-- payouts that gather processed commissions per partner, partner
-- applications from the public application page, and bounty submissions.

CREATE TABLE payouts (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id      TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    partner_id      TEXT NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
    invoice_id      TEXT,             -- the confirmation batch (payout run) id
    amount          BIGINT NOT NULL DEFAULT 0,
    currency        TEXT NOT NULL DEFAULT 'USD',
    status          TEXT NOT NULL,    -- pending | processing | processed | sent | completed | failed | canceled
    description     TEXT,
    period_start    DATETIME,
    period_end      DATETIME,
    mode            TEXT,             -- internal | external
    method          TEXT,
    failure_reason  TEXT,
    user_id         TEXT,             -- who confirmed the payout
    initiated_at    DATETIME,
    paid_at         DATETIME,
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL
);
CREATE INDEX payouts_program_status_idx ON payouts (program_id, status);
CREATE INDEX payouts_partner_idx ON payouts (partner_id, status);
CREATE INDEX commissions_payout_idx ON commissions (payout_id);

-- Applications: one row per submission of the public application page.
CREATE TABLE program_applications (
    id                       TEXT PRIMARY KEY,
    workspace_id             TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id               TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    partner_id               TEXT NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
    group_id                 TEXT,
    name                     TEXT NOT NULL,
    email                    TEXT NOT NULL,
    country                  TEXT,
    website                  TEXT,
    youtube                  TEXT,
    twitter                  TEXT,
    linkedin                 TEXT,
    instagram                TEXT,
    tiktok                   TEXT,
    form_data                TEXT,    -- JSON [{label, value}]
    reviewed_at              DATETIME,
    reviewed_by              TEXT,
    rejection_reason         TEXT,
    rejection_note           TEXT,
    reapplication_timeframe  TEXT,
    created_at               DATETIME NOT NULL,
    updated_at               DATETIME NOT NULL
);
CREATE INDEX program_applications_program_idx ON program_applications (program_id, created_at);
-- When the public application page accepts applications (NULL: closed).
ALTER TABLE programs ADD COLUMN applications_open_at DATETIME;

-- Bounties: submission bounties take proof from partners; every bounty
-- may leave the amount to the reviewer (reward_amount 0).
ALTER TABLE bounties ADD COLUMN reward_description TEXT;
CREATE TABLE bounty_submissions (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id          TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    bounty_id           TEXT NOT NULL REFERENCES bounties (id) ON DELETE CASCADE,
    partner_id          TEXT NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
    description         TEXT,
    urls                TEXT,         -- JSON array of strings
    files               TEXT,         -- JSON [{url, fileName, size}]
    status              TEXT NOT NULL, -- draft | submitted | approved | rejected
    performance_count   BIGINT,
    period_number       INTEGER NOT NULL DEFAULT 1,
    commission_id       TEXT,
    user_id             TEXT,          -- reviewer
    rejection_reason    TEXT,
    rejection_note      TEXT,
    completed_at        DATETIME,
    reviewed_at         DATETIME,
    created_at          DATETIME NOT NULL,
    updated_at          DATETIME NOT NULL
);
CREATE UNIQUE INDEX bounty_submissions_period_key ON bounty_submissions (bounty_id, partner_id, period_number);

-- +goose Down
DROP TABLE bounty_submissions;
ALTER TABLE bounties DROP COLUMN reward_description;
ALTER TABLE programs DROP COLUMN applications_open_at;
DROP TABLE program_applications;
DROP INDEX commissions_payout_idx;
DROP TABLE payouts;
