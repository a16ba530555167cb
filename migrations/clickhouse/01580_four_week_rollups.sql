-- Four-week rollups (docs/clickhouse.md, "Rollups"): for the link- and
-- URL-keyed dimensions only, rows of four whole ISO weeks counted from
-- Monday 1970-01-05 00:00 UTC ("link@4week", "url@4week"; hour = the
-- block's first Monday, models.FourWeekStart). These dimensions have a
-- value per link or URL: a year of weekly rows read 52 rows per URL (1.3M
-- rows for 25,000 URLs at 100M clicks a year), four-week rows about 13.
-- The other dimensions have few values and keep weeks as their top grain.
--
-- Leads and sales: views of their own, so the views of 01550 stay as they
-- are (no moment without a view on the event tables). Clicks: Relink sums
-- their four-week rows with the others (chstore.clickRollups, 01570); the
-- view over clicks below is dropped at once, its SELECT the definition
-- `relink clickhouse rebuild-rollups` recomputes them with and
-- TestClickRollupsMatchRebuild holds Relink's sums to. No rows are computed here for the
-- events already stored: a copy would race the inserts running meanwhile
-- and count some events twice. The engine uses a block's four-week rows
-- only when their counts sum to the block's hourly totals (rows written
-- only by these views can lack events, never hold one twice) and reads
-- the block's four weeks otherwise, so answers are exact either way;
-- `relink clickhouse rebuild-rollups` computes the older blocks' rows.

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_aggregates_4week TO event_aggregates AS
SELECT workspace_id, 'click' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(0) AS amount
FROM clicks
ARRAY JOIN [
    ('link@4week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 2419200) * 2419200 + 345600), link_id),
    ('url@4week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 2419200) * 2419200 + 345600), url)
] AS d
GROUP BY workspace_id, dim, hour, value;

DROP TABLE IF EXISTS clicks_aggregates_4week;

CREATE MATERIALIZED VIEW IF NOT EXISTS lead_events_aggregates_4week TO event_aggregates AS
SELECT workspace_id, 'lead' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(0) AS amount
FROM lead_events
ARRAY JOIN [
    ('link@4week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 2419200) * 2419200 + 345600), link_id),
    ('url@4week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 2419200) * 2419200 + 345600), url)
] AS d
GROUP BY workspace_id, dim, hour, value;

CREATE MATERIALIZED VIEW IF NOT EXISTS sale_events_aggregates_4week TO event_aggregates AS
SELECT workspace_id, 'sale' AS event, tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value,
    toInt64(count()) AS count, toInt64(sum(amount)) AS amount
FROM sale_events
ARRAY JOIN [
    ('link@4week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 2419200) * 2419200 + 345600), link_id),
    ('url@4week', toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 2419200) * 2419200 + 345600), url)
] AS d
GROUP BY workspace_id, dim, hour, value;
