-- +goose Up
-- Repair of the region aggregates written by models.AggregateFolder from
-- 2026-11-22 (relink demo's bulk loader) and 2026-11-28 (the click hook)
-- until its fix: for an event with no city, the region row took the city's
-- joined value, country + region + an empty city ("C<sep>R<sep>"), which the
-- regions grouping does not read, so those events were missing from
-- groupBy=regions. A region value never has two separators; each such row
-- is added to its region's row ("C<sep>R") and removed. Lossless: the counts
-- move, nothing is recomputed from the raw events (which retention may have
-- trimmed).
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
SELECT workspace_id, event, dim, hour, substr(value, 1, length(value) - 1), count, amount
FROM event_aggregates
WHERE dim IN ('region', 'region@day', 'region@week') AND value LIKE '%' || char(31) || '%' || char(31)
ON CONFLICT (workspace_id, event, dim, hour, value)
DO UPDATE SET count = event_aggregates.count + excluded.count, amount = event_aggregates.amount + excluded.amount;

DELETE FROM event_aggregates
WHERE dim IN ('region', 'region@day', 'region@week') AND value LIKE '%' || char(31) || '%' || char(31);
