-- +goose Up
-- A partner group's branding (Dub's PartnerGroup.logo, wordmark and
-- brandColor): brand_color is the accent of the group's partners' embed and
-- portal dashboards (CSS --brand; NULL: #2563eb), logo and wordmark are
-- image URLs (docs/programs.md).
ALTER TABLE partner_groups ADD COLUMN logo TEXT;
ALTER TABLE partner_groups ADD COLUMN wordmark TEXT;
ALTER TABLE partner_groups ADD COLUMN brand_color TEXT;

-- +goose Down
ALTER TABLE partner_groups DROP COLUMN brand_color;
ALTER TABLE partner_groups DROP COLUMN wordmark;
ALTER TABLE partner_groups DROP COLUMN logo;
