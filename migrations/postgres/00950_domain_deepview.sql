-- +goose Up
-- The domain's Deep View settings (spec/parity.md §11.4): JSON text, stored
-- compact as upstream re-serialises it; NULL when unset.
ALTER TABLE domains ADD COLUMN deepview_data TEXT;

-- +goose Down
ALTER TABLE domains DROP COLUMN deepview_data;
