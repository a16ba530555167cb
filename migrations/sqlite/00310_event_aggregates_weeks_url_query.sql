-- +goose Up
-- Two additions to the event aggregates (spec/analytics.md; docs/design.md
-- "Analytics"), maintained from here on by the same hooks
-- (models.FoldAggregates) in the click ingest transaction and on lead/sale
-- commit:
--
-- * dim 'url_query' (hourly and '@day'): the query string of the event's
--   destination URL from its first '?' on ('' without one). The utm_*
--   groupings read it instead of whole URLs: they only look at the query,
--   and a workspace has far fewer distinct queries than URLs.
-- * weekly rollups: every dimension that has daily rows ('<dim>@day') also
--   gets '<dim>@week' rows, one per ISO week (hour = Monday 00:00 UTC).
--   Non-timeseries queries cover their window with weeks, days and hours,
--   adding or subtracting (a week minus the days before the window when that
--   reads fewer rows), so a 30-day window reads about 4 weeks and a few days
--   of rows per value instead of 30 days.
--
-- Backfill from the events already stored (a no-op on a fresh database).
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'url_query', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), (CASE WHEN instr(url, char(63)) > 0 THEN substr(url, instr(url, char(63))) ELSE '' END), COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'click', 'url_query@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), (CASE WHEN instr(url, char(63)) > 0 THEN substr(url, instr(url, char(63))) ELSE '' END), COUNT(*), 0
    FROM clicks GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'url_query', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), (CASE WHEN instr(url, char(63)) > 0 THEN substr(url, instr(url, char(63))) ELSE '' END), COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'lead', 'url_query@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), (CASE WHEN instr(url, char(63)) > 0 THEN substr(url, instr(url, char(63))) ELSE '' END), COUNT(*), 0
    FROM lead_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'url_query', strftime('%Y-%m-%d %H:00:00+00:00', timestamp), (CASE WHEN instr(url, char(63)) > 0 THEN substr(url, instr(url, char(63))) ELSE '' END), COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount)
    SELECT workspace_id, 'sale', 'url_query@day', strftime('%Y-%m-%d 00:00:00+00:00', timestamp), (CASE WHEN instr(url, char(63)) > 0 THEN substr(url, instr(url, char(63))) ELSE '' END), COUNT(*), COALESCE(SUM(amount), 0)
    FROM sale_events GROUP BY 1, 4, 5;
-- The weekly rollups, from the daily rows (models.WeeklyRollupSQL):
INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) SELECT workspace_id, event, replace(dim, '@day', '@week'), strftime('%Y-%m-%d 00:00:00+00:00', hour, '-6 days', 'weekday 1'), value, SUM(count), SUM(amount) FROM event_aggregates WHERE dim LIKE '%@day' GROUP BY 1, 2, 3, 4, 5;

-- +goose Down
DELETE FROM event_aggregates WHERE dim LIKE '%@week' OR dim IN ('url_query', 'url_query@day');
