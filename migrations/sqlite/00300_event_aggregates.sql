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
    hour          DATETIME NOT NULL,
    value         TEXT NOT NULL,
    count         BIGINT NOT NULL DEFAULT 0,
    amount        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, event, dim, hour, value)
) WITHOUT ROWID;


-- Backfill from the events already stored (a no-op on a fresh database); the
-- click and conversion hooks keep the aggregates from here on.
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'total', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), '', COUNT(*), 0
    FROM clicks GROUP BY 1, 4;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'link', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), link_id, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'link@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), link_id, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'continent', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), continent, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'continent@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), continent, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'country', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'country@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'region', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country || char(31) || region, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'region@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country || char(31) || region, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'city', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country || char(31) || region || char(31) || city, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'city@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country || char(31) || region || char(31) || city, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'device', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), device, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'device@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), device, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'browser', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), browser, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'browser@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), browser, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'os', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), os, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'os@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), os, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'trigger', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), trigger, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'trigger@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), trigger, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'referer', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), referer, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'referer@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), referer, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'referer_url', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), referer_url, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'referer_url@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), referer_url, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'url', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), url, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'url@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), url, COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'total', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), '', COUNT(*), 0
    FROM lead_events GROUP BY 1, 4;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'link', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), link_id, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'link@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), link_id, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'continent', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), continent, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'continent@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), continent, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'country', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'country@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'region', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country || char(31) || region, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'region@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country || char(31) || region, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'city', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country || char(31) || region || char(31) || city, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'city@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country || char(31) || region || char(31) || city, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'device', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), device, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'device@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), device, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'browser', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), browser, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'browser@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), browser, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'os', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), os, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'os@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), os, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'trigger', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), trigger, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'trigger@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), trigger, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'referer', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), referer, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'referer@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), referer, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'referer_url', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), referer_url, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'referer_url@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), referer_url, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'url', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), url, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'url@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), url, COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'total', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), '', COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'link', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), link_id, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'link@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), link_id, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'continent', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), continent, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'continent@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), continent, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'country', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'country@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'region', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country || char(31) || region, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'region@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country || char(31) || region, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'city', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), country || char(31) || region || char(31) || city, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'city@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), country || char(31) || region || char(31) || city, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'device', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), device, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'device@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), device, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'browser', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), browser, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'browser@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), browser, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'os', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), os, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'os@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), os, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'trigger', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), trigger, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'trigger@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), trigger, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'referer', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), referer, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'referer@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), referer, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'referer_url', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), referer_url, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'referer_url@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), referer_url, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'url', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), url, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'url@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), url, COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;

-- +goose Down
DROP TABLE event_aggregates;
