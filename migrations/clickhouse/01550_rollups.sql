-- Rollups (docs/clickhouse.md, "Rollups"): the SQL store's event_aggregates
-- in ClickHouse, filled by materialized views as rows are inserted. Per
-- workspace, event kind and dimension: hourly rows, whole UTC days
-- ("@day") and ISO weeks from Monday 00:00 UTC ("@week"), the same
-- dimensions, values and grains as models.AggregateFolder, so the engine
-- reads them with the SQL engine's planner and cover.
--
-- Counts are exact because every event row is inserted once
-- (chstore.InsertOnce): a materialized view adds each inserted block, and
-- 18.16 deduplicates repeated blocks only for replicated tables.
-- SummingMergeTree folds rows of one key in merges; readers sum anyway.
--
-- hour is computed from ts in whole seconds (intDiv), which needs no time
-- zone and no toStartOfInterval (absent in 18.16); 345600 s moves the
-- epoch (a Thursday) to Monday 1970-01-05 for the week start.
CREATE TABLE IF NOT EXISTS event_aggregates (
    workspace_id String,
    event String,
    dim String,
    hour DateTime('UTC'),
    value String,
    count Int64,
    amount Int64
) ENGINE = SummingMergeTree((count, amount))
PARTITION BY toYYYYMM(hour)
ORDER BY (workspace_id, event, dim, hour, value);

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_aggregates TO event_aggregates AS
SELECT workspace_id, 'click' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(0) AS amount
FROM clicks
ARRAY JOIN [
    ('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''),
    ('link', toDateTime(intDiv(ts, 3600000000) * 3600), link_id),
    ('link@day', toDateTime(intDiv(ts, 86400000000) * 86400), link_id),
    ('link@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), link_id),
    ('continent', toDateTime(intDiv(ts, 3600000000) * 3600), continent),
    ('continent@day', toDateTime(intDiv(ts, 86400000000) * 86400), continent),
    ('continent@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), continent),
    ('country', toDateTime(intDiv(ts, 3600000000) * 3600), country),
    ('country@day', toDateTime(intDiv(ts, 86400000000) * 86400), country),
    ('country@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), country),
    ('region', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region)),
    ('region@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region)),
    ('region@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region)),
    ('city', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region, '\x1f', city)),
    ('city@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region, '\x1f', city)),
    ('city@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region, '\x1f', city)),
    ('device', toDateTime(intDiv(ts, 3600000000) * 3600), device),
    ('device@day', toDateTime(intDiv(ts, 86400000000) * 86400), device),
    ('device@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), device),
    ('browser', toDateTime(intDiv(ts, 3600000000) * 3600), browser),
    ('browser@day', toDateTime(intDiv(ts, 86400000000) * 86400), browser),
    ('browser@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), browser),
    ('os', toDateTime(intDiv(ts, 3600000000) * 3600), os),
    ('os@day', toDateTime(intDiv(ts, 86400000000) * 86400), os),
    ('os@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), os),
    ('trigger', toDateTime(intDiv(ts, 3600000000) * 3600), trigger),
    ('trigger@day', toDateTime(intDiv(ts, 86400000000) * 86400), trigger),
    ('trigger@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), trigger),
    ('referer', toDateTime(intDiv(ts, 3600000000) * 3600), referer),
    ('referer@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer),
    ('referer@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer),
    ('referer_url', toDateTime(intDiv(ts, 3600000000) * 3600), referer_url),
    ('referer_url@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer_url),
    ('referer_url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer_url),
    ('url', toDateTime(intDiv(ts, 3600000000) * 3600), url),
    ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url),
    ('url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), url),
    ('url_query', toDateTime(intDiv(ts, 3600000000) * 3600), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@day', toDateTime(intDiv(ts, 86400000000) * 86400), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), if(position(url, '?') > 0, substring(url, position(url, '?')), ''))
] AS d
GROUP BY workspace_id, dim, hour, value;

CREATE MATERIALIZED VIEW IF NOT EXISTS lead_events_aggregates TO event_aggregates AS
SELECT workspace_id, 'lead' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(0) AS amount
FROM lead_events
ARRAY JOIN [
    ('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''),
    ('link', toDateTime(intDiv(ts, 3600000000) * 3600), link_id),
    ('link@day', toDateTime(intDiv(ts, 86400000000) * 86400), link_id),
    ('link@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), link_id),
    ('continent', toDateTime(intDiv(ts, 3600000000) * 3600), continent),
    ('continent@day', toDateTime(intDiv(ts, 86400000000) * 86400), continent),
    ('continent@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), continent),
    ('country', toDateTime(intDiv(ts, 3600000000) * 3600), country),
    ('country@day', toDateTime(intDiv(ts, 86400000000) * 86400), country),
    ('country@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), country),
    ('region', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region)),
    ('region@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region)),
    ('region@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region)),
    ('city', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region, '\x1f', city)),
    ('city@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region, '\x1f', city)),
    ('city@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region, '\x1f', city)),
    ('device', toDateTime(intDiv(ts, 3600000000) * 3600), device),
    ('device@day', toDateTime(intDiv(ts, 86400000000) * 86400), device),
    ('device@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), device),
    ('browser', toDateTime(intDiv(ts, 3600000000) * 3600), browser),
    ('browser@day', toDateTime(intDiv(ts, 86400000000) * 86400), browser),
    ('browser@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), browser),
    ('os', toDateTime(intDiv(ts, 3600000000) * 3600), os),
    ('os@day', toDateTime(intDiv(ts, 86400000000) * 86400), os),
    ('os@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), os),
    ('trigger', toDateTime(intDiv(ts, 3600000000) * 3600), trigger),
    ('trigger@day', toDateTime(intDiv(ts, 86400000000) * 86400), trigger),
    ('trigger@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), trigger),
    ('referer', toDateTime(intDiv(ts, 3600000000) * 3600), referer),
    ('referer@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer),
    ('referer@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer),
    ('referer_url', toDateTime(intDiv(ts, 3600000000) * 3600), referer_url),
    ('referer_url@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer_url),
    ('referer_url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer_url),
    ('url', toDateTime(intDiv(ts, 3600000000) * 3600), url),
    ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url),
    ('url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), url),
    ('url_query', toDateTime(intDiv(ts, 3600000000) * 3600), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@day', toDateTime(intDiv(ts, 86400000000) * 86400), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), if(position(url, '?') > 0, substring(url, position(url, '?')), ''))
] AS d
GROUP BY workspace_id, dim, hour, value;

CREATE MATERIALIZED VIEW IF NOT EXISTS sale_events_aggregates TO event_aggregates AS
SELECT workspace_id, 'sale' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(sum(amount)) AS amount
FROM sale_events
ARRAY JOIN [
    ('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''),
    ('link', toDateTime(intDiv(ts, 3600000000) * 3600), link_id),
    ('link@day', toDateTime(intDiv(ts, 86400000000) * 86400), link_id),
    ('link@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), link_id),
    ('continent', toDateTime(intDiv(ts, 3600000000) * 3600), continent),
    ('continent@day', toDateTime(intDiv(ts, 86400000000) * 86400), continent),
    ('continent@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), continent),
    ('country', toDateTime(intDiv(ts, 3600000000) * 3600), country),
    ('country@day', toDateTime(intDiv(ts, 86400000000) * 86400), country),
    ('country@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), country),
    ('region', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region)),
    ('region@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region)),
    ('region@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region)),
    ('city', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region, '\x1f', city)),
    ('city@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region, '\x1f', city)),
    ('city@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region, '\x1f', city)),
    ('device', toDateTime(intDiv(ts, 3600000000) * 3600), device),
    ('device@day', toDateTime(intDiv(ts, 86400000000) * 86400), device),
    ('device@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), device),
    ('browser', toDateTime(intDiv(ts, 3600000000) * 3600), browser),
    ('browser@day', toDateTime(intDiv(ts, 86400000000) * 86400), browser),
    ('browser@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), browser),
    ('os', toDateTime(intDiv(ts, 3600000000) * 3600), os),
    ('os@day', toDateTime(intDiv(ts, 86400000000) * 86400), os),
    ('os@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), os),
    ('trigger', toDateTime(intDiv(ts, 3600000000) * 3600), trigger),
    ('trigger@day', toDateTime(intDiv(ts, 86400000000) * 86400), trigger),
    ('trigger@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), trigger),
    ('referer', toDateTime(intDiv(ts, 3600000000) * 3600), referer),
    ('referer@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer),
    ('referer@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer),
    ('referer_url', toDateTime(intDiv(ts, 3600000000) * 3600), referer_url),
    ('referer_url@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer_url),
    ('referer_url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer_url),
    ('url', toDateTime(intDiv(ts, 3600000000) * 3600), url),
    ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url),
    ('url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), url),
    ('url_query', toDateTime(intDiv(ts, 3600000000) * 3600), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@day', toDateTime(intDiv(ts, 86400000000) * 86400), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), if(position(url, '?') > 0, substring(url, position(url, '?')), ''))
] AS d
GROUP BY workspace_id, dim, hour, value;

-- Events stored before this migration (a server upgraded from 01100):
-- their rollups, once. Instances writing while it runs may have rows
-- counted by both the view and this copy. No command rebuilds them yet:
-- to recompute, truncate event_aggregates while no instance writes and
-- run the INSERTs below again (bench/clickhouse/rollups.py does the same
-- per month and dimension, for tables too large for one statement).
INSERT INTO event_aggregates
SELECT workspace_id, 'click' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(0) AS amount
FROM clicks FINAL
ARRAY JOIN [
    ('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''),
    ('link', toDateTime(intDiv(ts, 3600000000) * 3600), link_id),
    ('link@day', toDateTime(intDiv(ts, 86400000000) * 86400), link_id),
    ('link@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), link_id),
    ('continent', toDateTime(intDiv(ts, 3600000000) * 3600), continent),
    ('continent@day', toDateTime(intDiv(ts, 86400000000) * 86400), continent),
    ('continent@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), continent),
    ('country', toDateTime(intDiv(ts, 3600000000) * 3600), country),
    ('country@day', toDateTime(intDiv(ts, 86400000000) * 86400), country),
    ('country@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), country),
    ('region', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region)),
    ('region@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region)),
    ('region@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region)),
    ('city', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region, '\x1f', city)),
    ('city@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region, '\x1f', city)),
    ('city@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region, '\x1f', city)),
    ('device', toDateTime(intDiv(ts, 3600000000) * 3600), device),
    ('device@day', toDateTime(intDiv(ts, 86400000000) * 86400), device),
    ('device@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), device),
    ('browser', toDateTime(intDiv(ts, 3600000000) * 3600), browser),
    ('browser@day', toDateTime(intDiv(ts, 86400000000) * 86400), browser),
    ('browser@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), browser),
    ('os', toDateTime(intDiv(ts, 3600000000) * 3600), os),
    ('os@day', toDateTime(intDiv(ts, 86400000000) * 86400), os),
    ('os@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), os),
    ('trigger', toDateTime(intDiv(ts, 3600000000) * 3600), trigger),
    ('trigger@day', toDateTime(intDiv(ts, 86400000000) * 86400), trigger),
    ('trigger@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), trigger),
    ('referer', toDateTime(intDiv(ts, 3600000000) * 3600), referer),
    ('referer@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer),
    ('referer@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer),
    ('referer_url', toDateTime(intDiv(ts, 3600000000) * 3600), referer_url),
    ('referer_url@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer_url),
    ('referer_url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer_url),
    ('url', toDateTime(intDiv(ts, 3600000000) * 3600), url),
    ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url),
    ('url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), url),
    ('url_query', toDateTime(intDiv(ts, 3600000000) * 3600), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@day', toDateTime(intDiv(ts, 86400000000) * 86400), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), if(position(url, '?') > 0, substring(url, position(url, '?')), ''))
] AS d
GROUP BY workspace_id, dim, hour, value;

INSERT INTO event_aggregates
SELECT workspace_id, 'lead' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(0) AS amount
FROM lead_events FINAL
ARRAY JOIN [
    ('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''),
    ('link', toDateTime(intDiv(ts, 3600000000) * 3600), link_id),
    ('link@day', toDateTime(intDiv(ts, 86400000000) * 86400), link_id),
    ('link@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), link_id),
    ('continent', toDateTime(intDiv(ts, 3600000000) * 3600), continent),
    ('continent@day', toDateTime(intDiv(ts, 86400000000) * 86400), continent),
    ('continent@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), continent),
    ('country', toDateTime(intDiv(ts, 3600000000) * 3600), country),
    ('country@day', toDateTime(intDiv(ts, 86400000000) * 86400), country),
    ('country@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), country),
    ('region', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region)),
    ('region@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region)),
    ('region@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region)),
    ('city', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region, '\x1f', city)),
    ('city@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region, '\x1f', city)),
    ('city@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region, '\x1f', city)),
    ('device', toDateTime(intDiv(ts, 3600000000) * 3600), device),
    ('device@day', toDateTime(intDiv(ts, 86400000000) * 86400), device),
    ('device@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), device),
    ('browser', toDateTime(intDiv(ts, 3600000000) * 3600), browser),
    ('browser@day', toDateTime(intDiv(ts, 86400000000) * 86400), browser),
    ('browser@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), browser),
    ('os', toDateTime(intDiv(ts, 3600000000) * 3600), os),
    ('os@day', toDateTime(intDiv(ts, 86400000000) * 86400), os),
    ('os@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), os),
    ('trigger', toDateTime(intDiv(ts, 3600000000) * 3600), trigger),
    ('trigger@day', toDateTime(intDiv(ts, 86400000000) * 86400), trigger),
    ('trigger@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), trigger),
    ('referer', toDateTime(intDiv(ts, 3600000000) * 3600), referer),
    ('referer@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer),
    ('referer@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer),
    ('referer_url', toDateTime(intDiv(ts, 3600000000) * 3600), referer_url),
    ('referer_url@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer_url),
    ('referer_url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer_url),
    ('url', toDateTime(intDiv(ts, 3600000000) * 3600), url),
    ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url),
    ('url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), url),
    ('url_query', toDateTime(intDiv(ts, 3600000000) * 3600), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@day', toDateTime(intDiv(ts, 86400000000) * 86400), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), if(position(url, '?') > 0, substring(url, position(url, '?')), ''))
] AS d
GROUP BY workspace_id, dim, hour, value;

INSERT INTO event_aggregates
SELECT workspace_id, 'sale' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(sum(amount)) AS amount
FROM sale_events FINAL
ARRAY JOIN [
    ('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''),
    ('link', toDateTime(intDiv(ts, 3600000000) * 3600), link_id),
    ('link@day', toDateTime(intDiv(ts, 86400000000) * 86400), link_id),
    ('link@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), link_id),
    ('continent', toDateTime(intDiv(ts, 3600000000) * 3600), continent),
    ('continent@day', toDateTime(intDiv(ts, 86400000000) * 86400), continent),
    ('continent@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), continent),
    ('country', toDateTime(intDiv(ts, 3600000000) * 3600), country),
    ('country@day', toDateTime(intDiv(ts, 86400000000) * 86400), country),
    ('country@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), country),
    ('region', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region)),
    ('region@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region)),
    ('region@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region)),
    ('city', toDateTime(intDiv(ts, 3600000000) * 3600), concat(country, '\x1f', region, '\x1f', city)),
    ('city@day', toDateTime(intDiv(ts, 86400000000) * 86400), concat(country, '\x1f', region, '\x1f', city)),
    ('city@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), concat(country, '\x1f', region, '\x1f', city)),
    ('device', toDateTime(intDiv(ts, 3600000000) * 3600), device),
    ('device@day', toDateTime(intDiv(ts, 86400000000) * 86400), device),
    ('device@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), device),
    ('browser', toDateTime(intDiv(ts, 3600000000) * 3600), browser),
    ('browser@day', toDateTime(intDiv(ts, 86400000000) * 86400), browser),
    ('browser@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), browser),
    ('os', toDateTime(intDiv(ts, 3600000000) * 3600), os),
    ('os@day', toDateTime(intDiv(ts, 86400000000) * 86400), os),
    ('os@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), os),
    ('trigger', toDateTime(intDiv(ts, 3600000000) * 3600), trigger),
    ('trigger@day', toDateTime(intDiv(ts, 86400000000) * 86400), trigger),
    ('trigger@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), trigger),
    ('referer', toDateTime(intDiv(ts, 3600000000) * 3600), referer),
    ('referer@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer),
    ('referer@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer),
    ('referer_url', toDateTime(intDiv(ts, 3600000000) * 3600), referer_url),
    ('referer_url@day', toDateTime(intDiv(ts, 86400000000) * 86400), referer_url),
    ('referer_url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), referer_url),
    ('url', toDateTime(intDiv(ts, 3600000000) * 3600), url),
    ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url),
    ('url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), url),
    ('url_query', toDateTime(intDiv(ts, 3600000000) * 3600), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@day', toDateTime(intDiv(ts, 86400000000) * 86400), if(position(url, '?') > 0, substring(url, position(url, '?')), '')),
    ('url_query@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), if(position(url, '?') > 0, substring(url, position(url, '?')), ''))
] AS d
GROUP BY workspace_id, dim, hour, value;
