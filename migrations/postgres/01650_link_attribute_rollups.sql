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

-- relink_attr_shift adds sign × the link's per-link rows to the attribute
-- value's rows (nothing for a NULL or empty value).
-- +goose StatementBegin
CREATE FUNCTION relink_attr_shift(ws TEXT, link TEXT, attr TEXT, val TEXT, sign BIGINT) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF val IS NULL OR val = '' THEN
        RETURN;
    END IF;
    INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
        SELECT workspace_id, event, attr || substr(dim, 5), hour, val, sign * count, sign * amount
        FROM event_aggregates
        WHERE workspace_id = ws AND value = link AND dim IN ('link', 'link@day', 'link@week')
    ON CONFLICT (workspace_id, event, dim, hour, value) DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION relink_link_group(program TEXT, partner TEXT) RETURNS TEXT
LANGUAGE sql STABLE AS $$
    SELECT group_id FROM program_enrollments WHERE program_id = program AND partner_id = partner
$$;
-- +goose StatementEnd

-- A link's folder, partner, program or domain changed: move its rows.
-- +goose StatementBegin
CREATE FUNCTION relink_links_attrs_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    og TEXT;
    ng TEXT;
BEGIN
    IF OLD.folder_id IS DISTINCT FROM NEW.folder_id THEN
        PERFORM relink_attr_shift(OLD.workspace_id, OLD.id, 'link_folder', OLD.folder_id, -1);
        PERFORM relink_attr_shift(NEW.workspace_id, NEW.id, 'link_folder', NEW.folder_id, 1);
    END IF;
    IF OLD.partner_id IS DISTINCT FROM NEW.partner_id THEN
        PERFORM relink_attr_shift(OLD.workspace_id, OLD.id, 'link_partner', OLD.partner_id, -1);
        PERFORM relink_attr_shift(NEW.workspace_id, NEW.id, 'link_partner', NEW.partner_id, 1);
    END IF;
    IF OLD.domain IS DISTINCT FROM NEW.domain THEN
        PERFORM relink_attr_shift(OLD.workspace_id, OLD.id, 'link_domain', OLD.domain, -1);
        PERFORM relink_attr_shift(NEW.workspace_id, NEW.id, 'link_domain', NEW.domain, 1);
    END IF;
    IF OLD.program_id IS DISTINCT FROM NEW.program_id OR OLD.partner_id IS DISTINCT FROM NEW.partner_id THEN
        og := relink_link_group(OLD.program_id, OLD.partner_id);
        ng := relink_link_group(NEW.program_id, NEW.partner_id);
        IF og IS DISTINCT FROM ng THEN
            PERFORM relink_attr_shift(OLD.workspace_id, OLD.id, 'link_group', og, -1);
            PERFORM relink_attr_shift(NEW.workspace_id, NEW.id, 'link_group', ng, 1);
        END IF;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER relink_links_attrs_update AFTER UPDATE OF folder_id, partner_id, program_id, domain ON links
    FOR EACH ROW WHEN (OLD.folder_id IS DISTINCT FROM NEW.folder_id OR OLD.partner_id IS DISTINCT FROM NEW.partner_id
        OR OLD.program_id IS DISTINCT FROM NEW.program_id OR OLD.domain IS DISTINCT FROM NEW.domain)
    EXECUTE FUNCTION relink_links_attrs_update();

-- A link is deleted: its events leave every attribute (the raw path drops
-- them too). Its tags first, while the link exists (their trigger subtracts).
-- +goose StatementBegin
CREATE FUNCTION relink_links_attrs_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM link_tags WHERE link_id = OLD.id;
    PERFORM relink_attr_shift(OLD.workspace_id, OLD.id, 'link_folder', OLD.folder_id, -1);
    PERFORM relink_attr_shift(OLD.workspace_id, OLD.id, 'link_partner', OLD.partner_id, -1);
    PERFORM relink_attr_shift(OLD.workspace_id, OLD.id, 'link_domain', OLD.domain, -1);
    PERFORM relink_attr_shift(OLD.workspace_id, OLD.id, 'link_group', relink_link_group(OLD.program_id, OLD.partner_id), -1);
    RETURN OLD;
END $$;
-- +goose StatementEnd
CREATE TRIGGER relink_links_attrs_delete BEFORE DELETE ON links
    FOR EACH ROW EXECUTE FUNCTION relink_links_attrs_delete();

-- A tag added to or removed from a link. The link row is locked first so a
-- click batch writing the link's rows (it holds the same row) is either
-- wholly before the move or sees the new tags.
-- +goose StatementBegin
CREATE FUNCTION relink_link_tags_attrs() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    ws TEXT;
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        SELECT workspace_id INTO ws FROM links WHERE id = OLD.link_id FOR UPDATE;
        IF FOUND THEN
            PERFORM relink_attr_shift(ws, OLD.link_id, 'link_tag', OLD.tag_id, -1);
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT workspace_id INTO ws FROM links WHERE id = NEW.link_id FOR UPDATE;
        IF FOUND THEN
            PERFORM relink_attr_shift(ws, NEW.link_id, 'link_tag', NEW.tag_id, 1);
        END IF;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER relink_link_tags_attrs AFTER INSERT OR DELETE OR UPDATE ON link_tags
    FOR EACH ROW EXECUTE FUNCTION relink_link_tags_attrs();

-- An enrollment's group changed (or it was added or removed): move the rows
-- of the partner's links in that program.
-- +goose StatementBegin
CREATE FUNCTION relink_enrollments_attrs() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM 1 FROM links WHERE program_id = OLD.program_id AND partner_id = OLD.partner_id ORDER BY id FOR UPDATE;
        PERFORM relink_attr_shift(l.workspace_id, l.id, 'link_group', OLD.group_id, -1)
            FROM links l WHERE l.program_id = OLD.program_id AND l.partner_id = OLD.partner_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM 1 FROM links WHERE program_id = NEW.program_id AND partner_id = NEW.partner_id ORDER BY id FOR UPDATE;
        PERFORM relink_attr_shift(l.workspace_id, l.id, 'link_group', NEW.group_id, 1)
            FROM links l WHERE l.program_id = NEW.program_id AND l.partner_id = NEW.partner_id;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER relink_enrollments_attrs_insert AFTER INSERT OR DELETE ON program_enrollments
    FOR EACH ROW EXECUTE FUNCTION relink_enrollments_attrs();
CREATE TRIGGER relink_enrollments_attrs_update AFTER UPDATE OF group_id, program_id, partner_id ON program_enrollments
    FOR EACH ROW WHEN (OLD.group_id IS DISTINCT FROM NEW.group_id OR OLD.program_id IS DISTINCT FROM NEW.program_id
        OR OLD.partner_id IS DISTINCT FROM NEW.partner_id)
    EXECUTE FUNCTION relink_enrollments_attrs();

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
DROP TRIGGER relink_enrollments_attrs_update ON program_enrollments;
DROP TRIGGER relink_enrollments_attrs_insert ON program_enrollments;
DROP TRIGGER relink_link_tags_attrs ON link_tags;
DROP TRIGGER relink_links_attrs_delete ON links;
DROP TRIGGER relink_links_attrs_update ON links;
DROP FUNCTION relink_enrollments_attrs();
DROP FUNCTION relink_link_tags_attrs();
DROP FUNCTION relink_links_attrs_delete();
DROP FUNCTION relink_links_attrs_update();
DROP FUNCTION relink_link_group(TEXT, TEXT);
DROP FUNCTION relink_attr_shift(TEXT, TEXT, TEXT, TEXT, BIGINT);
DROP INDEX event_aggregates_link_rows_idx;
DELETE FROM event_aggregates WHERE dim LIKE 'link\_%';
