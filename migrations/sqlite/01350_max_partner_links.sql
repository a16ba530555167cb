-- +goose Up
-- Partner groups let a partner create up to 10 links in the embed by default,
-- as Dub's new programs do (DEFAULT_ADDITIONAL_PARTNER_LINKS); the column's
-- stored default of 0 left every partner at "the limit of 0 links". Groups
-- still at 0 get 10; a group that should allow none has no additional links
-- (`relink program group set --no-additional-links`).
UPDATE partner_groups SET max_partner_links = 10 WHERE max_partner_links = 0;

-- +goose Down
SELECT 1;
