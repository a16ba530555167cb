-- +goose Up
-- Embedded referral dashboard (issue 6, spec/partners-and-embed.md §3.3, §6).
-- The group default link a partner link was created from (NULL: an
-- additional link); the program's resources for partners (JSON {logos,
-- colors, files, links}); and bounties: bonuses a partner earns by reaching a
-- sale-earnings goal within a time window.
ALTER TABLE links ADD COLUMN partner_group_default_link_id TEXT;
ALTER TABLE programs ADD COLUMN resources TEXT;

CREATE TABLE bounties (
    id              TEXT PRIMARY KEY,
    workspace_id    TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id      TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    group_id        TEXT REFERENCES partner_groups (id) ON DELETE CASCADE, -- NULL: every group
    name            TEXT NOT NULL,
    description     TEXT,
    type            TEXT NOT NULL DEFAULT 'performance',
    reward_amount   BIGINT NOT NULL,  -- cents paid when the goal is reached
    goal_earnings   BIGINT NOT NULL,  -- cents of sale commissions to reach
    starts_at       TIMESTAMPTZ NOT NULL,
    ends_at         TIMESTAMPTZ,             -- NULL: open-ended
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX bounties_program_idx ON bounties (program_id, starts_at);

-- +goose Down
DROP TABLE bounties;
ALTER TABLE programs DROP COLUMN resources;
ALTER TABLE links DROP COLUMN partner_group_default_link_id;
