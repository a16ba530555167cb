-- URL rankings by hash (docs/clickhouse.md, "Rankings by URL hash").
-- top_urls and top_base_urls over a year group about a million URL strings
-- per event kind at 100M clicks; grouped by a stored 64-bit hash of the URL
-- they take a third of the time (bench/README.md, issue 34 item 3), and
-- only the ranked groups' strings are looked up, in urls.
--
-- url_aggregates: event_aggregates' URL rows (the dims url, url@day,
-- url@week, url@4week) with the URL replaced by cityHash64 of it
-- (value_hash) and of it cut at '?' (base_hash, for top_base_urls), and
-- its hourly totals (dim total, the hash of ''), written in the same
-- block as the URL rows: where they equal event_aggregates' totals, every
-- event of the hour has its URL rows here (the engine's check). Its
-- writers are every writer of event_aggregates' URL rows: the views below
-- (clicks through clicks_ingest, leads and sales from their tables) and
-- `relink clickhouse rebuild-rollups`. A new column on event_aggregates
-- would not do: 18.16 writes a view's rows into a table only when the view
-- selects every column, materialized ones included, and a view cannot be
-- replaced without a moment of lost or doubled rows; and 18.16 runs no
-- view of a view, so a view over event_aggregates would see only direct
-- inserts.
--
-- No rows are computed here for the events already stored (a copy would
-- race the inserts running meanwhile and count some twice). The engine
-- compares the hourly totals of both tables over the window and reads a
-- span with an hour that falls short from event_aggregates, hashing the
-- strings as it reads; `relink clickhouse rebuild-rollups` computes the
-- older months' rows.
--
-- urls: the strings of the hashes, per workspace (the column is not
-- called value: 18.16 substitutes an alias into every expression, so a
-- view over clicks_ingest, which has a column value, cannot name its
-- output value); copying them races
-- nothing (a URL stored twice is one row once merged), so the existing
-- ones are copied at the end. A ranked hash missing here makes the engine
-- rank by the strings instead.
CREATE TABLE IF NOT EXISTS url_aggregates (
    workspace_id String,
    event String,
    dim String,
    hour DateTime('UTC'),
    value_hash UInt64,
    base_hash UInt64,
    count Int64,
    amount Int64
) ENGINE = SummingMergeTree((count, amount))
PARTITION BY toYYYYMM(hour)
ORDER BY (workspace_id, event, dim, hour, value_hash);

CREATE TABLE IF NOT EXISTS url_aggregates_rebuild AS url_aggregates;

CREATE TABLE IF NOT EXISTS urls (
    workspace_id String,
    value_hash UInt64,
    name String
) ENGINE = ReplacingMergeTree
ORDER BY (workspace_id, value_hash);

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_ingest_3_url_hashes TO url_aggregates AS
SELECT workspace_id, 'click' AS event, dim, hour, cityHash64(value) AS value_hash,
    cityHash64(if(position(value, '?') > 0, substring(value, 1, position(value, '?') - 1), value)) AS base_hash,
    count, toInt64(0) AS amount
FROM clicks_ingest
WHERE dim IN ('total', 'url', 'url@day', 'url@week', 'url@4week');

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_ingest_4_urls TO urls AS
SELECT workspace_id, cityHash64(v) AS value_hash, v AS name
FROM clicks_ingest
ARRAY JOIN [value, if(position(value, '?') > 0, substring(value, 1, position(value, '?') - 1), value)] AS v
WHERE dim = 'url'
GROUP BY workspace_id, value_hash, name;

CREATE MATERIALIZED VIEW IF NOT EXISTS lead_events_url_hashes TO url_aggregates AS
SELECT workspace_id, 'lead' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, cityHash64(tupleElement(d, 3)) AS value_hash,
    cityHash64(if(position(tupleElement(d, 3), '?') > 0, substring(tupleElement(d, 3), 1, position(tupleElement(d, 3), '?') - 1), tupleElement(d, 3))) AS base_hash,
    toInt64(count()) AS count, toInt64(0) AS amount
FROM lead_events
ARRAY JOIN [
    ('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''),
    ('url', toDateTime(intDiv(ts, 3600000000) * 3600), url),
    ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url),
    ('url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), url),
    ('url@4week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 2419200) * 2419200 + 345600), url)
] AS d
GROUP BY workspace_id, dim, hour, value_hash, base_hash;

CREATE MATERIALIZED VIEW IF NOT EXISTS sale_events_url_hashes TO url_aggregates AS
SELECT workspace_id, 'sale' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, cityHash64(tupleElement(d, 3)) AS value_hash,
    cityHash64(if(position(tupleElement(d, 3), '?') > 0, substring(tupleElement(d, 3), 1, position(tupleElement(d, 3), '?') - 1), tupleElement(d, 3))) AS base_hash,
    toInt64(count()) AS count, toInt64(sum(amount)) AS amount
FROM sale_events
ARRAY JOIN [
    ('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''),
    ('url', toDateTime(intDiv(ts, 3600000000) * 3600), url),
    ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url),
    ('url@week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600), url),
    ('url@4week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 2419200) * 2419200 + 345600), url)
] AS d
GROUP BY workspace_id, dim, hour, value_hash, base_hash;

CREATE MATERIALIZED VIEW IF NOT EXISTS lead_events_urls TO urls AS
SELECT workspace_id, cityHash64(v) AS value_hash, v AS name
FROM lead_events
ARRAY JOIN [url, if(position(url, '?') > 0, substring(url, 1, position(url, '?') - 1), url)] AS v
GROUP BY workspace_id, value_hash, name;

CREATE MATERIALIZED VIEW IF NOT EXISTS sale_events_urls TO urls AS
SELECT workspace_id, cityHash64(v) AS value_hash, v AS name
FROM sale_events
ARRAY JOIN [url, if(position(url, '?') > 0, substring(url, 1, position(url, '?') - 1), url)] AS v
GROUP BY workspace_id, value_hash, name;

INSERT INTO urls
SELECT workspace_id, cityHash64(v) AS value_hash, v AS name
FROM event_aggregates
ARRAY JOIN [value, if(position(value, '?') > 0, substring(value, 1, position(value, '?') - 1), value)] AS v
WHERE dim = 'url@day'
GROUP BY workspace_id, value_hash, name;
