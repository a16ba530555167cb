-- +goose Up
-- Clicks recorded by the ingest pipeline (spec/links.md §11, spec/analytics.md §7.1).
-- Rows outlive their link (deleted links keep their events), so link_id has
-- no foreign key. workspace_id is the internal workspace id (no "ws_").
CREATE TABLE clicks (
    click_id          TEXT PRIMARY KEY,               -- nanoid(16), unique
    timestamp         DATETIME NOT NULL,
    workspace_id      TEXT NOT NULL,
    link_id           TEXT NOT NULL,
    domain            TEXT NOT NULL,
    key               TEXT NOT NULL,
    url               TEXT NOT NULL DEFAULT '',       -- final destination ('' for a root placeholder)
    identity_hash     TEXT NOT NULL DEFAULT '',       -- sha256(ip-ua), spec/links.md §10.4
    ip                TEXT NOT NULL DEFAULT '',       -- '' for EU countries
    continent         TEXT NOT NULL DEFAULT '',
    country           TEXT NOT NULL DEFAULT 'Unknown',
    region            TEXT NOT NULL DEFAULT 'Unknown', -- subdivision code
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
    trigger           TEXT NOT NULL DEFAULT 'link',   -- link | qr | deeplink
    referer           TEXT NOT NULL DEFAULT '(direct)',
    referer_url       TEXT NOT NULL DEFAULT '(direct)',
    utm_source        TEXT NOT NULL DEFAULT '',
    utm_medium        TEXT NOT NULL DEFAULT '',
    utm_campaign      TEXT NOT NULL DEFAULT '',
    utm_term          TEXT NOT NULL DEFAULT '',
    utm_content       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX clicks_workspace_timestamp_idx ON clicks (workspace_id, timestamp);
CREATE INDEX clicks_link_timestamp_idx ON clicks (link_id, timestamp);

-- +goose Down
DROP TABLE clicks;
