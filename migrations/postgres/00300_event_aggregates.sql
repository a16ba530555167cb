-- +goose Up
-- Hourly event aggregates (spec/analytics.md; docs/design.md "Analytics"), maintained
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


-- Backfill from the events already stored (a no-op on a fresh database); the
-- click and conversion hooks keep the aggregates from here on.
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'total', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', '', COUNT(*), 0
    FROM clicks GROUP BY 1, 4;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'link', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', link_id, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'link@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', link_id, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'continent', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', continent, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'continent@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', continent, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'country', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'country@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'region', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'region@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'city', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region || chr(31) || city, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'city@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region || chr(31) || city, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'device', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', device, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'device@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', device, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'browser', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', browser, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'browser@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', browser, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'os', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', os, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'os@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', os, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'trigger', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', trigger, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'trigger@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', trigger, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'referer', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'referer@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'referer_url', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer_url, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'referer_url@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer_url, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'url', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', url, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'url@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', url, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'total', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', '', COUNT(*), 0
    FROM lead_events GROUP BY 1, 4;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'link', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', link_id, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'link@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', link_id, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'continent', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', continent, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'continent@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', continent, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'country', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'country@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'region', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'region@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'city', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region || chr(31) || city, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'city@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region || chr(31) || city, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'device', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', device, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'device@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', device, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'browser', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', browser, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'browser@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', browser, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'os', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', os, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'os@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', os, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'trigger', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', trigger, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'trigger@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', trigger, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'referer', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'referer@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'referer_url', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer_url, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'referer_url@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer_url, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'url', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', url, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'url@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', url, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'total', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', '', COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'link', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', link_id, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'link@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', link_id, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'continent', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', continent, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'continent@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', continent, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'country', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'country@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'region', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'region@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'city', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region || chr(31) || city, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'city@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', country || chr(31) || region || chr(31) || city, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'device', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', device, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'device@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', device, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'browser', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', browser, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'browser@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', browser, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'os', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', os, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'os@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', os, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'trigger', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', trigger, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'trigger@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', trigger, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'referer', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'referer@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'referer_url', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer_url, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'referer_url@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', referer_url, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'url', date_trunc('hour', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', url, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'url@day', date_trunc('day', timestamp AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', url, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;

-- +goose Down
DROP TABLE event_aggregates;
