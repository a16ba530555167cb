-- +goose Up
-- Link-attribute rollups (issue 20; docs/analytics.md "Link-attribute
-- rollups"): the per-link aggregate rows ('link', 'link@day', 'link@week')
-- summed per CURRENT attribute of the link, so top_domains, top_folders,
-- top_link_tags, top_partners and top_groups read one row per attribute value
-- per block instead of one per link:
--
--   link_domain*   links.domain
--   link_folder*   links.folder_id (not NULL or '')
--   link_partner*  links.partner_id (not NULL or '')
--   link_group*    the group_id of the link's enrollment (program_id, partner_id)
--   link_tag*      each link_tags.tag_id of the link
--
-- The ingest hooks (models.AddEventAggregates) and relink demo's bulk loader
-- write them in the same transaction as the per-link rows. The triggers below
-- move a link's rows from the old attribute value to the new one in the
-- transaction that changes it (a folder move, a retag, a new partner or
-- group, a new domain, a deleted link), whatever code path does it, so the
-- rollups always follow the links as they are now, as Dub's analytics do.
-- The partial index lets a move find one link's rows.

CREATE INDEX event_aggregates_link_rows_idx ON event_aggregates (workspace_id, value, dim) WHERE dim IN ('link', 'link@day', 'link@week');

-- A link's folder, partner, program or domain changed: move its rows.
-- +goose StatementBegin
CREATE TRIGGER relink_links_link_folder AFTER UPDATE OF folder_id ON links WHEN OLD.folder_id IS NOT NEW.folder_id
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_folder' || substr(dim, 5), hour, OLD.folder_id, -count, -amount
        FROM event_aggregates
        WHERE workspace_id = OLD.workspace_id AND value = OLD.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(OLD.folder_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_folder' || substr(dim, 5), hour, NEW.folder_id, count, amount
        FROM event_aggregates
        WHERE workspace_id = NEW.workspace_id AND value = NEW.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(NEW.folder_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER relink_links_link_partner AFTER UPDATE OF partner_id ON links WHEN OLD.partner_id IS NOT NEW.partner_id
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_partner' || substr(dim, 5), hour, OLD.partner_id, -count, -amount
        FROM event_aggregates
        WHERE workspace_id = OLD.workspace_id AND value = OLD.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(OLD.partner_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_partner' || substr(dim, 5), hour, NEW.partner_id, count, amount
        FROM event_aggregates
        WHERE workspace_id = NEW.workspace_id AND value = NEW.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(NEW.partner_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER relink_links_link_domain AFTER UPDATE OF domain ON links WHEN OLD.domain IS NOT NEW.domain
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_domain' || substr(dim, 5), hour, OLD.domain, -count, -amount
        FROM event_aggregates
        WHERE workspace_id = OLD.workspace_id AND value = OLD.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(OLD.domain, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_domain' || substr(dim, 5), hour, NEW.domain, count, amount
        FROM event_aggregates
        WHERE workspace_id = NEW.workspace_id AND value = NEW.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(NEW.domain, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER relink_links_link_group AFTER UPDATE OF program_id, partner_id ON links WHEN OLD.program_id IS NOT NEW.program_id OR OLD.partner_id IS NOT NEW.partner_id
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_group' || substr(dim, 5), hour, (SELECT group_id FROM program_enrollments WHERE program_id = OLD.program_id AND partner_id = OLD.partner_id), -count, -amount
        FROM event_aggregates
        WHERE workspace_id = OLD.workspace_id AND value = OLD.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE((SELECT group_id FROM program_enrollments WHERE program_id = OLD.program_id AND partner_id = OLD.partner_id), '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_group' || substr(dim, 5), hour, (SELECT group_id FROM program_enrollments WHERE program_id = NEW.program_id AND partner_id = NEW.partner_id), count, amount
        FROM event_aggregates
        WHERE workspace_id = NEW.workspace_id AND value = NEW.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE((SELECT group_id FROM program_enrollments WHERE program_id = NEW.program_id AND partner_id = NEW.partner_id), '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- A link is deleted: its events leave every attribute (the raw path drops
-- them too). Its tags first, while the link exists (their trigger subtracts).
-- +goose StatementBegin
CREATE TRIGGER relink_links_attrs_delete BEFORE DELETE ON links
BEGIN
    DELETE FROM link_tags WHERE link_id = OLD.id;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_folder' || substr(dim, 5), hour, OLD.folder_id, -count, -amount
        FROM event_aggregates
        WHERE workspace_id = OLD.workspace_id AND value = OLD.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(OLD.folder_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_partner' || substr(dim, 5), hour, OLD.partner_id, -count, -amount
        FROM event_aggregates
        WHERE workspace_id = OLD.workspace_id AND value = OLD.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(OLD.partner_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_domain' || substr(dim, 5), hour, OLD.domain, -count, -amount
        FROM event_aggregates
        WHERE workspace_id = OLD.workspace_id AND value = OLD.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(OLD.domain, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_group' || substr(dim, 5), hour, (SELECT group_id FROM program_enrollments WHERE program_id = OLD.program_id AND partner_id = OLD.partner_id), -count, -amount
        FROM event_aggregates
        WHERE workspace_id = OLD.workspace_id AND value = OLD.id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE((SELECT group_id FROM program_enrollments WHERE program_id = OLD.program_id AND partner_id = OLD.partner_id), '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- A tag added to or removed from an existing link.
-- +goose StatementBegin
CREATE TRIGGER relink_link_tags_insert AFTER INSERT ON link_tags
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_tag' || substr(dim, 5), hour, NEW.tag_id, count, amount
        FROM event_aggregates
        WHERE workspace_id = (SELECT workspace_id FROM links WHERE id = NEW.link_id) AND value = NEW.link_id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(NEW.tag_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER relink_link_tags_delete AFTER DELETE ON link_tags
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_tag' || substr(dim, 5), hour, OLD.tag_id, -count, -amount
        FROM event_aggregates
        WHERE workspace_id = (SELECT workspace_id FROM links WHERE id = OLD.link_id) AND value = OLD.link_id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(OLD.tag_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER relink_link_tags_update AFTER UPDATE ON link_tags
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_tag' || substr(dim, 5), hour, OLD.tag_id, -count, -amount
        FROM event_aggregates
        WHERE workspace_id = (SELECT workspace_id FROM links WHERE id = OLD.link_id) AND value = OLD.link_id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(OLD.tag_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, 'link_tag' || substr(dim, 5), hour, NEW.tag_id, count, amount
        FROM event_aggregates
        WHERE workspace_id = (SELECT workspace_id FROM links WHERE id = NEW.link_id) AND value = NEW.link_id AND dim IN ('link', 'link@day', 'link@week') AND COALESCE(NEW.tag_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- An enrollment's group changed (or it was added or removed): move the rows
-- of the partner's links in that program.
-- +goose StatementBegin
CREATE TRIGGER relink_enrollments_insert AFTER INSERT ON program_enrollments
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT a.workspace_id, a.event, 'link_group' || substr(a.dim, 5), a.hour, NEW.group_id, a.count, a.amount
        FROM links l JOIN event_aggregates a ON a.workspace_id = l.workspace_id AND a.value = l.id AND a.dim IN ('link', 'link@day', 'link@week')
        WHERE l.program_id = NEW.program_id AND l.partner_id = NEW.partner_id AND COALESCE(NEW.group_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER relink_enrollments_delete AFTER DELETE ON program_enrollments
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT a.workspace_id, a.event, 'link_group' || substr(a.dim, 5), a.hour, OLD.group_id, -a.count, -a.amount
        FROM links l JOIN event_aggregates a ON a.workspace_id = l.workspace_id AND a.value = l.id AND a.dim IN ('link', 'link@day', 'link@week')
        WHERE l.program_id = OLD.program_id AND l.partner_id = OLD.partner_id AND COALESCE(OLD.group_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER relink_enrollments_update AFTER UPDATE OF group_id, program_id, partner_id ON program_enrollments WHEN OLD.group_id IS NOT NEW.group_id OR OLD.program_id IS NOT NEW.program_id OR OLD.partner_id IS NOT NEW.partner_id
BEGIN
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT a.workspace_id, a.event, 'link_group' || substr(a.dim, 5), a.hour, OLD.group_id, -a.count, -a.amount
        FROM links l JOIN event_aggregates a ON a.workspace_id = l.workspace_id AND a.value = l.id AND a.dim IN ('link', 'link@day', 'link@week')
        WHERE l.program_id = OLD.program_id AND l.partner_id = OLD.partner_id AND COALESCE(OLD.group_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT a.workspace_id, a.event, 'link_group' || substr(a.dim, 5), a.hour, NEW.group_id, a.count, a.amount
        FROM links l JOIN event_aggregates a ON a.workspace_id = l.workspace_id AND a.value = l.id AND a.dim IN ('link', 'link@day', 'link@week')
        WHERE l.program_id = NEW.program_id AND l.partner_id = NEW.partner_id AND COALESCE(NEW.group_id, '') <> ''
        ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END;
-- +goose StatementEnd

-- Backfill from the per-link rows already stored (a no-op on a fresh database).
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT a.workspace_id, a.event, 'link_domain' || substr(a.dim, 5), a.hour, l.domain, SUM(a.count), SUM(a.amount)
    FROM event_aggregates a JOIN links l ON l.id = a.value AND l.workspace_id = a.workspace_id
    WHERE a.dim IN ('link', 'link@day', 'link@week') AND l.domain IS NOT NULL AND l.domain <> ''
    GROUP BY a.workspace_id, a.event, a.dim, a.hour, l.domain;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT a.workspace_id, a.event, 'link_folder' || substr(a.dim, 5), a.hour, l.folder_id, SUM(a.count), SUM(a.amount)
    FROM event_aggregates a JOIN links l ON l.id = a.value AND l.workspace_id = a.workspace_id
    WHERE a.dim IN ('link', 'link@day', 'link@week') AND l.folder_id IS NOT NULL AND l.folder_id <> ''
    GROUP BY a.workspace_id, a.event, a.dim, a.hour, l.folder_id;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT a.workspace_id, a.event, 'link_partner' || substr(a.dim, 5), a.hour, l.partner_id, SUM(a.count), SUM(a.amount)
    FROM event_aggregates a JOIN links l ON l.id = a.value AND l.workspace_id = a.workspace_id
    WHERE a.dim IN ('link', 'link@day', 'link@week') AND l.partner_id IS NOT NULL AND l.partner_id <> ''
    GROUP BY a.workspace_id, a.event, a.dim, a.hour, l.partner_id;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT a.workspace_id, a.event, 'link_tag' || substr(a.dim, 5), a.hour, lt.tag_id, SUM(a.count), SUM(a.amount)
    FROM event_aggregates a JOIN links l ON l.id = a.value AND l.workspace_id = a.workspace_id JOIN link_tags lt ON lt.link_id = l.id
    WHERE a.dim IN ('link', 'link@day', 'link@week')
    GROUP BY a.workspace_id, a.event, a.dim, a.hour, lt.tag_id;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT a.workspace_id, a.event, 'link_group' || substr(a.dim, 5), a.hour, pe.group_id, SUM(a.count), SUM(a.amount)
    FROM event_aggregates a JOIN links l ON l.id = a.value AND l.workspace_id = a.workspace_id
    JOIN program_enrollments pe ON pe.program_id = l.program_id AND pe.partner_id = l.partner_id
    WHERE a.dim IN ('link', 'link@day', 'link@week') AND pe.group_id IS NOT NULL AND pe.group_id <> ''
    GROUP BY a.workspace_id, a.event, a.dim, a.hour, pe.group_id;

-- +goose Down
DROP TRIGGER relink_enrollments_update;
DROP TRIGGER relink_enrollments_delete;
DROP TRIGGER relink_enrollments_insert;
DROP TRIGGER relink_link_tags_update;
DROP TRIGGER relink_link_tags_delete;
DROP TRIGGER relink_link_tags_insert;
DROP TRIGGER relink_links_attrs_delete;
DROP TRIGGER relink_links_link_group;
DROP TRIGGER relink_links_link_domain;
DROP TRIGGER relink_links_link_partner;
DROP TRIGGER relink_links_link_folder;
DROP INDEX event_aggregates_link_rows_idx;
DELETE FROM event_aggregates WHERE dim LIKE 'link\_%' ESCAPE '\';
