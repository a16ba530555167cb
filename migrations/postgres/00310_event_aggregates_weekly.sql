-- +goose Up
-- Weekly rollups of the event aggregates (analytics.md; DESIGN.md
-- "Analytics"): every dimension that has daily rows ('<dim>@day') also gets
-- '<dim>@week' rows, one per ISO week (hour = Monday 00:00 UTC), maintained
-- from here on by the same hooks (models.FoldAggregates) in the click ingest
-- transaction and on lead/sale commit. Non-timeseries queries cover their
-- window with weeks, days and hours, adding or subtracting (a week minus the
-- days before the window when that reads fewer rows), so a 30-day window
-- reads about 4 weeks + a few days per value instead of 30 days.

-- Backfill from the daily rows (a no-op on a fresh database); the statement
-- is models.WeeklyRollupSQL.
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) SELECT workspace_id, event, replace(dim, '@day', '@week'), date_trunc('week', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', value, SUM(count), SUM(amount) FROM event_aggregates WHERE dim LIKE '%@day' GROUP BY 1, 2, 3, 4, 5;

-- +goose Down
DELETE FROM event_aggregates WHERE dim LIKE '%@week';
