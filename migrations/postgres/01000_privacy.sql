-- +goose Up
-- Per-workspace privacy settings (docs/privacy.md): whether clicks keep the
-- visitor's IP address once geo has located it (off by default, also for
-- workspaces created before this migration), and how many days raw click
-- events are kept (0: forever); the aggregates stay either way.
ALTER TABLE workspaces ADD COLUMN keep_ips BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE workspaces ADD COLUMN event_retention_days INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE workspaces DROP COLUMN event_retention_days;
ALTER TABLE workspaces DROP COLUMN keep_ips;
