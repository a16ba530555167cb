-- Operations on the rollups (docs/clickhouse.md, "Operations").
--
-- trimmed: every retention delete of a workspace's raw clicks (the cut, in
-- microseconds), so `relink clickhouse rebuild-rollups` keeps the rollups
-- of what is no longer in the raw table instead of recomputing them from
-- nothing.
CREATE TABLE IF NOT EXISTS trimmed (
    workspace_id String,
    before_ts Int64,
    at DateTime DEFAULT now()
) ENGINE = MergeTree
ORDER BY (workspace_id, before_ts);

-- rebuild_cursor: the months a rebuild has replaced (month 0 marks a
-- finished run), so a stopped rebuild resumes after the last month done.
CREATE TABLE IF NOT EXISTS rebuild_cursor (
    from_month UInt32,
    seq UInt64,
    month UInt32,
    at DateTime DEFAULT now()
) ENGINE = MergeTree
ORDER BY (from_month, seq);

-- The rebuild writes a month here, then swaps it into event_aggregates
-- (REPLACE PARTITION, atomic).
CREATE TABLE IF NOT EXISTS event_aggregates_rebuild AS event_aggregates;
