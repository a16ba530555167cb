-- +goose Up
-- Console (issue 7): the embed dashboard's allowed parent hostnames per
-- workspace (newline-separated, lower-case; empty = none), and member invites.
ALTER TABLE workspaces ADD COLUMN embed_allowed_hostnames TEXT NOT NULL DEFAULT '';

CREATE TABLE workspace_invites (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    email        TEXT NOT NULL,
    role         TEXT NOT NULL DEFAULT 'member',
    token_hash   TEXT NOT NULL,
    invited_by   TEXT REFERENCES users (id) ON DELETE SET NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX workspace_invites_token_key ON workspace_invites (token_hash);
CREATE UNIQUE INDEX workspace_invites_email_key ON workspace_invites (workspace_id, email);

-- +goose Down
DROP TABLE workspace_invites;
ALTER TABLE workspaces DROP COLUMN embed_allowed_hostnames;
