-- +goose Up
-- A destination may be 32,000 characters (spec/links.md §5), but a btree index
-- row on PostgreSQL may not exceed 2,704 bytes: creating a link with a long
-- URL was a 500 "index row size exceeds btree maximum" (issue 15). The
-- lookups by destination are equality tests, which a hash index serves with
-- no size limit.
DROP INDEX links_workspace_url_idx;
CREATE INDEX links_url_hash_idx ON links USING hash (url);

-- +goose Down
DROP INDEX links_url_hash_idx;
CREATE INDEX links_workspace_url_idx ON links (workspace_id, url);
