-- +goose Up
-- The workspace's publishable key (dub_pk_…): the public credential of the
-- client-side conversion endpoints (/track/lead/client, /track/sale/client,
-- spec/partners-and-embed.md §1.5). It is meant to sit in web pages, so it is
-- stored as is; NULL until the workspace generates one.
ALTER TABLE workspaces ADD COLUMN publishable_key TEXT;
CREATE UNIQUE INDEX workspaces_publishable_key_idx ON workspaces (publishable_key);

-- +goose Down
DROP INDEX workspaces_publishable_key_idx;
ALTER TABLE workspaces DROP COLUMN publishable_key;
