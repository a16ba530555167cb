-- +goose Up
-- PostgreSQL replaces its btree index on links.url by a hash index here
-- (long destinations); SQLite has no index row limit, so nothing changes.
SELECT 1;

-- +goose Down
SELECT 1;
