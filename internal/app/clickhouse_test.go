package app

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

// TestBuildClickHouse: RELINK_CLICKHOUSE_URL connects the event store
// (migrated), turns on the outbox, answers analytics from ClickHouse and
// adds the outbox job after the click drain.
func TestBuildClickHouse(t *testing.T) {
	u := chtest.URL(t)
	db := testdb.Open(t, "sqlite")
	cfg, err := config.Load(func(k string) string {
		if k == "RELINK_CLICKHOUSE_URL" {
			return u
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(context.Background(), cfg, Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ClickHouse == nil || s.ClickHouseOutbox == nil {
		t.Fatal("no ClickHouse services")
	}
	if e, ok := s.Analytics.(*analytics.SQLEngine); !ok || e.CH == nil {
		t.Fatalf("analytics engine %T does not read ClickHouse", s.Analytics)
	}
	var names []string
	for _, j := range s.Jobs.Jobs() {
		names = append(names, j.Name)
	}
	if strings.Join(names, ",") != "clicks,clickhouse outbox,clickhouse click trim,clickhouse rollup compaction,commissions,webhooks,webhook click set,keep-IP set,domain set,retention,domain verification,api key use" {
		t.Fatalf("jobs = %v", names)
	}
	var enabled bool
	db.Raw("SELECT enabled FROM clickhouse_state WHERE id = 1").Scan(&enabled)
	if !enabled {
		t.Fatal("the outbox is not enabled")
	}
	// A server that is not there fails the start with the variable's name.
	cfg.ClickHouseURL = "http://127.0.0.1:1/relink"
	if _, err := Build(context.Background(), cfg, Options{DB: testdb.Open(t, "sqlite")}); err == nil || !strings.Contains(err.Error(), "RELINK_CLICKHOUSE_URL") {
		t.Fatalf("Build with ClickHouse down: %v", err)
	}
}

// TestClickOptionsClickHouseBatches: with ClickHouse on PostgreSQL the
// pipeline writes up to 20 × RELINK_CLICK_BATCH clicks at once and passes
// no aggregate hook; on SQLite, or without ClickHouse, MaxBatch is left to
// ingest's default (10 × the batch) and the aggregates are written.
func TestClickOptionsClickHouseBatches(t *testing.T) {
	for _, c := range []struct {
		db, ch   string
		maxBatch int
		hooks    int
	}{
		{"postgres://127.0.0.1/relink", "http://127.0.0.1:8123/relink", 4000, 0},
		{"sqlite:relink.db", "http://127.0.0.1:8123/relink", 0, 0},
		{"postgres://127.0.0.1/relink", "", 0, 1},
		{"sqlite:relink.db", "", 0, 1},
	} {
		env := map[string]string{"RELINK_DATABASE_URL": c.db, "RELINK_CLICKHOUSE_URL": c.ch, "RELINK_CLICK_BATCH": "200"}
		cfg, err := config.Load(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		opt := ClickOptions(cfg, nil, nil, nil)
		if opt.BatchSize != 200 || opt.MaxBatch != c.maxBatch || len(opt.Hooks) != c.hooks {
			t.Errorf("%s with ClickHouse %q: BatchSize %d, MaxBatch %d, %d hooks; want 200, %d, %d",
				c.db, c.ch, opt.BatchSize, opt.MaxBatch, len(opt.Hooks), c.maxBatch, c.hooks)
		}
	}
}
