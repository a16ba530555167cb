-- +goose Up
-- The ClickHouse event store's outbox (docs/clickhouse.md; see the
-- PostgreSQL migration of the same number).
CREATE TABLE clickhouse_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    event_id TEXT NOT NULL,
    created_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE clickhouse_state (
    id INTEGER PRIMARY KEY,
    enabled BOOLEAN NOT NULL DEFAULT false,
    enabled_at DATETIME
);
INSERT INTO clickhouse_state (id, enabled) VALUES (1, false);

-- +goose StatementBegin
CREATE TRIGGER lead_events_clickhouse AFTER INSERT ON lead_events
WHEN EXISTS (SELECT 1 FROM clickhouse_state WHERE id = 1 AND enabled)
BEGIN
    INSERT INTO clickhouse_outbox (kind, event_id) VALUES ('lead', NEW.event_id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER sale_events_clickhouse AFTER INSERT ON sale_events
WHEN EXISTS (SELECT 1 FROM clickhouse_state WHERE id = 1 AND enabled)
BEGIN
    INSERT INTO clickhouse_outbox (kind, event_id) VALUES ('sale', NEW.event_id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER sale_events_clickhouse;
DROP TRIGGER lead_events_clickhouse;
DROP TABLE clickhouse_state;
DROP TABLE clickhouse_outbox;
