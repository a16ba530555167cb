-- +goose Up
-- Hourly event aggregates (analytics.md; DESIGN.md "Analytics"), maintained
-- in the click ingest transaction and on lead/sale commit. One row per
-- (workspace, event kind, dimension, UTC hour, dimension value):
--   dim 'total'   value ''            workspace totals
--   dim 'link'    value link id       per-link totals (link filters, top_links, link-attribute groupings)
--   dim 'country' 'continent' 'device' 'browser' 'os' 'trigger' 'referer'
--       'referer_url' 'url' value = the event column
--   dim 'region'  value country || x'1f' || region
--   dim 'city'    value country || x'1f' || region || x'1f' || city
-- Every dimension but 'total' also has daily rollups: dim '<dim>@day' with
-- hour = 00:00 UTC of the day, read for whole UTC days of non-timeseries
-- queries (the edges of the window come from hourly rows and raw events).
-- count = events, amount = Σ sale amount in cents (sales only).
CREATE TABLE event_aggregates (
    workspace_id  TEXT NOT NULL,
    event         TEXT NOT NULL,   -- click | lead | sale
    dim           TEXT NOT NULL,
    hour          TIMESTAMPTZ NOT NULL,
    value         TEXT NOT NULL,
    count         BIGINT NOT NULL DEFAULT 0,
    amount        BIGINT NOT NULL DEFAULT 0,
    -- The counters ride in the index so range reads are index-only scans.
    PRIMARY KEY (workspace_id, event, dim, hour, value) INCLUDE (count, amount)
);

-- +goose Down
DROP TABLE event_aggregates;
