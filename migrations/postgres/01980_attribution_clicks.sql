-- +goose Up
-- The attribution table (docs/clickhouse.md, "One copy of each click"):
-- with the ClickHouse event store on, the click pipeline stores a click in
-- ClickHouse and here only what a lead or sale copies from the click it is
-- attributed to (models.ClickAttrs), for the attribution window
-- (RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW; the "clickhouse click trim" job
-- deletes older days). No identity hash, no secondary index: the primary
-- key is the only index.
-- It serves every read: a click by id in its workspace (one probe per day of
-- the window, models.DB.AttributionClick), a workspace's day (the daily
-- click commissions), a workspace's days before a cut (the trim, the
-- retention job). day is the UTC day of timestamp (Unix seconds / 86400),
-- so a day's rows are contiguous and inserts land in the current day's
-- part of the tree. Without ClickHouse it stays empty: clicks go to
-- clicks, as before.
CREATE TABLE attribution_clicks (
    workspace_id      TEXT NOT NULL,
    day               INTEGER NOT NULL,
    click_id          TEXT NOT NULL,
    timestamp         TIMESTAMPTZ NOT NULL,
    link_id           TEXT NOT NULL,
    domain            TEXT NOT NULL,
    key               TEXT NOT NULL,
    url               TEXT NOT NULL DEFAULT '',
    ip                TEXT NOT NULL DEFAULT '',
    continent         TEXT NOT NULL DEFAULT '',
    country           TEXT NOT NULL DEFAULT 'Unknown',
    region            TEXT NOT NULL DEFAULT 'Unknown',
    city              TEXT NOT NULL DEFAULT 'Unknown',
    latitude          TEXT NOT NULL DEFAULT 'Unknown',
    longitude         TEXT NOT NULL DEFAULT 'Unknown',
    device            TEXT NOT NULL DEFAULT 'Desktop',
    device_vendor     TEXT NOT NULL DEFAULT 'Unknown',
    device_model      TEXT NOT NULL DEFAULT 'Unknown',
    browser           TEXT NOT NULL DEFAULT 'Unknown',
    browser_version   TEXT NOT NULL DEFAULT 'Unknown',
    engine            TEXT NOT NULL DEFAULT 'Unknown',
    engine_version    TEXT NOT NULL DEFAULT 'Unknown',
    os                TEXT NOT NULL DEFAULT 'Unknown',
    os_version        TEXT NOT NULL DEFAULT 'Unknown',
    cpu_architecture  TEXT NOT NULL DEFAULT 'Unknown',
    ua                TEXT NOT NULL DEFAULT 'Unknown',
    bot               BOOLEAN NOT NULL DEFAULT FALSE,
    qr                BOOLEAN NOT NULL DEFAULT FALSE,
    trigger           TEXT NOT NULL DEFAULT 'link',
    referer           TEXT NOT NULL DEFAULT '(direct)',
    referer_url       TEXT NOT NULL DEFAULT '(direct)',
    utm_source        TEXT NOT NULL DEFAULT '',
    utm_medium        TEXT NOT NULL DEFAULT '',
    utm_campaign      TEXT NOT NULL DEFAULT '',
    utm_term          TEXT NOT NULL DEFAULT '',
    utm_content       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (workspace_id, day, click_id)
);

-- +goose Down
DROP TABLE attribution_clicks;
