-- +goose Up
-- Sealed blocks of the per-link and per-URL aggregates (issue 20;
-- docs/analytics.md "Aggregate vectors"): one row per (workspace, event
-- kind, 'link@day' | 'link@week' | 'url@day' | 'url@week', block) holding
-- every value's count and amount of that block in one packed blob (values by
-- number, see aggregate_values), so a ranking over thousands of links reads a
-- few blobs instead of one row per link per block. They are built on first
-- read from the block's event_aggregates rows, never by the ingest. rev is
-- the block's revision when it was built: the sum of its days' 'rev' rows
-- (one per workspace, event kind and UTC day, incremented by every aggregate
-- write that touches the day). A reader uses a vector only while its rev
-- still equals that sum, so a late event, an import or a replayed spool
-- makes it stale at once and it is rebuilt; a rebuild of the aggregates
-- deletes them.
CREATE TABLE aggregate_vectors (
    workspace_id  TEXT NOT NULL,
    event         TEXT NOT NULL,
    dim           TEXT NOT NULL,
    hour          TIMESTAMPTZ NOT NULL,
    rev           BIGINT NOT NULL,
    data          BYTEA NOT NULL,
    PRIMARY KEY (workspace_id, event, dim, hour)
);

-- The values the vectors name, numbered per workspace and dimension ('link'
-- or 'url') in the order they were first packed: a vector holds numbers, not
-- strings, so summing blocks adds into an array instead of hashing 50,000
-- URLs per block. Append-only: a chunk holds the values numbered from
-- first_id on, and two builders appending at once collide on the key, so
-- one re-reads and appends after the other.
CREATE TABLE aggregate_values (
    workspace_id  TEXT NOT NULL,
    dim           TEXT NOT NULL,
    first_id      BIGINT NOT NULL,
    data          BYTEA NOT NULL,
    PRIMARY KEY (workspace_id, dim, first_id)
);

-- The version of a workspace's links as top_links shows them (id, domain,
-- key, url, title, comments, folder, partner, creation): the engine keeps
-- the links it has loaded in memory and reloads them when this changes
-- (loading 5,000 links by id took 20–30 ms on SQLite). Bumped by triggers on
-- a change of those columns and on delete; a new link needs no bump (it was
-- not in memory).
CREATE TABLE link_versions (
    workspace_id  TEXT PRIMARY KEY,
    version       BIGINT NOT NULL
);
-- +goose StatementBegin
CREATE FUNCTION relink_link_version() RETURNS trigger AS $$
BEGIN
    INSERT INTO link_versions (workspace_id, version) VALUES (OLD.workspace_id, 1)
        ON CONFLICT (workspace_id) DO UPDATE SET version = link_versions.version + 1;
    IF TG_OP = 'UPDATE' AND NEW.workspace_id IS DISTINCT FROM OLD.workspace_id THEN
        INSERT INTO link_versions (workspace_id, version) VALUES (NEW.workspace_id, 1)
            ON CONFLICT (workspace_id) DO UPDATE SET version = link_versions.version + 1;
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
-- +goose StatementEnd
CREATE TRIGGER relink_link_version_update AFTER UPDATE ON links FOR EACH ROW
    WHEN (OLD.domain IS DISTINCT FROM NEW.domain OR OLD.key IS DISTINCT FROM NEW.key OR OLD.url IS DISTINCT FROM NEW.url OR OLD.title IS DISTINCT FROM NEW.title OR OLD.comments IS DISTINCT FROM NEW.comments OR OLD.folder_id IS DISTINCT FROM NEW.folder_id OR OLD.partner_id IS DISTINCT FROM NEW.partner_id OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id)
    EXECUTE FUNCTION relink_link_version();
CREATE TRIGGER relink_link_version_delete AFTER DELETE ON links FOR EACH ROW
    EXECUTE FUNCTION relink_link_version();

-- +goose Down
DROP TRIGGER relink_link_version_update ON links;
DROP TRIGGER relink_link_version_delete ON links;
DROP FUNCTION relink_link_version();
DROP TABLE link_versions;
DROP TABLE aggregate_values;
DROP TABLE aggregate_vectors;
