-- +goose Up
-- The ClickHouse event store's outbox (docs/clickhouse.md). While
-- clickhouse_state.enabled (set at start-up when RELINK_CLICKHOUSE_URL is
-- configured), every lead and sale inserted adds its id here in the same
-- transaction, by trigger, whatever code path inserted it. The
-- "clickhouse outbox" job copies the rows to ClickHouse and deletes the
-- outbox entries afterwards: an outage keeps them here, a repeated copy is
-- harmless (ClickHouse dedups by event id). Without ClickHouse nothing is
-- written.
CREATE TABLE clickhouse_outbox (
    seq BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    event_id TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE clickhouse_state (
    id INTEGER PRIMARY KEY,
    enabled BOOLEAN NOT NULL DEFAULT false,
    enabled_at TIMESTAMPTZ
);
INSERT INTO clickhouse_state (id, enabled) VALUES (1, false);

-- +goose StatementBegin
CREATE FUNCTION clickhouse_outbox_add() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM clickhouse_state WHERE id = 1 AND enabled) THEN
        INSERT INTO clickhouse_outbox (kind, event_id) VALUES (TG_ARGV[0], NEW.event_id);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

CREATE TRIGGER lead_events_clickhouse AFTER INSERT ON lead_events
    FOR EACH ROW EXECUTE FUNCTION clickhouse_outbox_add('lead');
CREATE TRIGGER sale_events_clickhouse AFTER INSERT ON sale_events
    FOR EACH ROW EXECUTE FUNCTION clickhouse_outbox_add('sale');

-- +goose Down
DROP TRIGGER sale_events_clickhouse ON sale_events;
DROP TRIGGER lead_events_clickhouse ON lead_events;
DROP FUNCTION clickhouse_outbox_add();
DROP TABLE clickhouse_state;
DROP TABLE clickhouse_outbox;
