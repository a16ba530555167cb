-- The event store (docs/clickhouse.md). One table per event kind, the
-- rows the SQL store's clicks, lead_events and sale_events hold.
--
-- ts is the event time in microseconds since the epoch (UTC): DateTime has
-- whole seconds and DateTime64 needs 20.1, while the minimum server is
-- 18.16. `time` is derived from it for the month partitions and the
-- primary key (workspace, time), the access pattern of every query.
--
-- ReplacingMergeTree: a batch sent twice (a retry after a timeout whose
-- insert had in fact landed) leaves duplicate rows with the same key until
-- a merge removes them; every query reads with FINAL, so it never counts
-- them twice.
CREATE TABLE IF NOT EXISTS clicks (
    workspace_id String,
    ts Int64,
    time DateTime('UTC') MATERIALIZED toDateTime(intDiv(ts, 1000000), 'UTC'),
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
    utm_content String
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (workspace_id, time, click_id);

CREATE TABLE IF NOT EXISTS lead_events (
    workspace_id String,
    ts Int64,
    time DateTime('UTC') MATERIALIZED toDateTime(intDiv(ts, 1000000), 'UTC'),
    event_id String,
    event_name String,
    customer_id String,
    metadata String,
    click_id String,
    link_id String,
    domain String,
    key String,
    url String,
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
    utm_content String
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (workspace_id, time, event_id);

CREATE TABLE IF NOT EXISTS sale_events (
    workspace_id String,
    ts Int64,
    time DateTime('UTC') MATERIALIZED toDateTime(intDiv(ts, 1000000), 'UTC'),
    event_id String,
    event_name String,
    customer_id String,
    metadata String,
    lead_event_id String,
    amount Int64,
    currency String,
    payment_processor String,
    invoice_id String,
    click_id String,
    link_id String,
    domain String,
    key String,
    url String,
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
    utm_content String
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(time)
ORDER BY (workspace_id, time, event_id);

-- `relink clickhouse backfill`'s cursor per SQL table: the last row copied
-- (workspace, timestamp as RFC 3339 text, id) after `done` rows, saved at
-- seq (Unix nanoseconds). A resumed backfill starts after the latest.
CREATE TABLE IF NOT EXISTS backfill_cursor (
    tbl String,
    seq UInt64,
    done UInt64,
    workspace_id String,
    ts String,
    id String,
    at DateTime DEFAULT now()
) ENGINE = MergeTree
ORDER BY (tbl, seq);
