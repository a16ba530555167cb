-- +goose Up
CREATE TABLE workspaces (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL,
    plan        TEXT NOT NULL DEFAULT 'free',
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX workspaces_slug_key ON workspaces (slug);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL,
    name          TEXT,
    password_hash TEXT,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON users (email);

CREATE TABLE workspace_users (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role         TEXT NOT NULL DEFAULT 'member',
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_users_user_idx ON workspace_users (user_id);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id      TEXT REFERENCES users (id) ON DELETE SET NULL,
    name         TEXT NOT NULL,
    hashed_key   TEXT NOT NULL,
    partial_key  TEXT NOT NULL,
    scopes       TEXT,
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    last_used_at TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX api_keys_hashed_key_key ON api_keys (hashed_key);
CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id);

-- +goose Down
DROP TABLE api_keys;
DROP TABLE workspace_users;
DROP TABLE users;
DROP TABLE workspaces;
