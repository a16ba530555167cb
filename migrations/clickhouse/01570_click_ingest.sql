-- settings_if_known: allow_materialized_view_with_bad_select=1
-- Clicks go in through clicks_ingest (docs/clickhouse.md, "Rollups"):
-- Relink sends a batch's new clicks and the batch's click rollups, summed
-- in Go (models.AggregateFolder: the same dimensions, values and grains as
-- the view of 01550 computed), in one INSERT into this Null table; its two
-- materialized views route the raw rows (dim = '') to clicks and the
-- rollup rows to event_aggregates. The view of 01550 expanded every click
-- to 40 rows (ARRAY JOIN) before grouping, which bounded ingest on 18.16;
-- 18.16 runs no chained views and no subqueries in views, so the rollups
-- are summed before the insert instead. Its SELECT stays in 01550: it is
-- the definition `relink clickhouse rebuild-rollups` recomputes the click
-- rollups with (internal/chstore/rebuild.go), and a test holds Go's sums
-- to it (TestClickRollupsMatchRebuild).
--
-- One INSERT, as before: ClickHouse writes an insert's views one after
-- the other, so a server failing in the middle of one may leave the raw
-- rows without their rollups (18.16 runs the views in name order, raw
-- first), exactly as the raw table and its view before.
--
-- 18.16 writes a view's rows into clicks only with the MATERIALIZED
-- column time among them; current servers compute it and refuse such a
-- view at creation unless allow_materialized_view_with_bad_select is set
-- (the header above: applied where the server knows the setting).
CREATE TABLE IF NOT EXISTS clicks_ingest (
    workspace_id String,
    ts Int64,
    click_id String,
    link_id String,
    domain String,
    key String,
    url String,
    identity_hash String,
    ip String,
    continent String,
    country String,
    region String,
    city String,
    latitude String,
    longitude String,
    device String,
    device_vendor String,
    device_model String,
    browser String,
    browser_version String,
    engine String,
    engine_version String,
    os String,
    os_version String,
    cpu_architecture String,
    ua String,
    bot UInt8,
    qr UInt8,
    trigger String,
    referer String,
    referer_url String,
    utm_source String,
    utm_medium String,
    utm_campaign String,
    utm_term String,
    utm_content String,
    dim String,
    hour DateTime('UTC'),
    value String,
    count Int64
) ENGINE = Null;

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_ingest_1_raw TO clicks AS
SELECT workspace_id, ts, toDateTime(intDiv(ts, 1000000), 'UTC') AS time, click_id, link_id, domain, key, url, identity_hash, ip,
    continent, country, region, city, latitude, longitude, device, device_vendor, device_model, browser, browser_version,
    engine, engine_version, os, os_version, cpu_architecture, ua, bot, qr, trigger, referer, referer_url,
    utm_source, utm_medium, utm_campaign, utm_term, utm_content
FROM clicks_ingest
WHERE dim = '';

CREATE MATERIALIZED VIEW IF NOT EXISTS clicks_ingest_2_rollups TO event_aggregates AS
SELECT workspace_id, 'click' AS event, dim, hour, value, count, toInt64(0) AS amount
FROM clicks_ingest
WHERE dim != '';

DROP TABLE IF EXISTS clicks_aggregates;
