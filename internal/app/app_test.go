package app

import (
	"context"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
)

func TestNewLimiter(t *testing.T) {
	ctx := context.Background()
	load := func(redisURL string) *config.Config {
		cfg, err := config.Load(func(k string) string {
			if k == "RELINK_REDIS_URL" {
				return redisURL
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	l, rdb, err := newLimiter(ctx, load(""), nil)
	if _, ok := l.(*ratelimit.Memory); err != nil || !ok || rdb != nil {
		t.Fatalf("default limiter %T, %v, redis %v", l, err, rdb)
	}
	if _, _, err := newLimiter(ctx, load("http://127.0.0.1:6379"), nil); err == nil || !strings.Contains(err.Error(), "RELINK_REDIS_URL") {
		t.Fatalf("bad URL: %v", err)
	}
	if _, _, err := newLimiter(ctx, load("redis://127.0.0.1:1/0"), nil); err == nil || !strings.Contains(err.Error(), "connect to redis") {
		t.Fatalf("unreachable redis: %v", err)
	}
	redisURL := os.Getenv("RELINK_TEST_REDIS_URL")
	if redisURL == "" {
		redisURL = "redis://127.0.0.1:6379/0"
	}
	l, rdb, err = newLimiter(ctx, load(redisURL), nil)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis unavailable in CI: %v", err)
		}
		t.Skipf("redis unavailable: %v", err)
	}
	defer rdb.Close()
	if _, ok := l.(*ratelimit.Redis); !ok {
		t.Fatalf("with RELINK_REDIS_URL the limiter is %T", l)
	}
	if res, err := l.Allow(ctx, "relink-cmd-test:"+strconv.FormatInt(time.Now().UnixNano(), 36), 5, time.Minute); err != nil || !res.Allowed || res.Remaining != 4 {
		t.Fatalf("Allow through Redis: %+v %v", res, err)
	}
}

// TestBuild: every service is built and the jobs table holds the click
// pipeline's drain and the hourly commission schedule, in that order.
func TestBuild(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	cfg, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(context.Background(), cfg, Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() || f.Name == "Redis" || strings.HasPrefix(f.Name, "ClickHouse") {
			continue
		}
		if v.Field(i).IsZero() {
			t.Errorf("Services.%s is not set", f.Name)
		}
	}
	var names []string
	for _, j := range s.Jobs.Jobs() {
		names = append(names, j.Name)
	}
	if strings.Join(names, ",") != "clicks,commissions,webhooks,webhook click set,keep-IP set,domain set,retention,domain verification,api key use" {
		t.Fatalf("jobs = %v", names)
	}
	if j := s.Jobs.Jobs()[1]; j.Every != time.Hour || j.Run == nil {
		t.Fatalf("commissions job: every %v", j.Every)
	}
	// Without RELINK_CLICKHOUSE_URL no event store and no outbox rows.
	var enabled bool
	db.Raw("SELECT enabled FROM clickhouse_state WHERE id = 1").Scan(&enabled)
	if s.ClickHouse != nil || s.ClickHouseOutbox != nil || enabled {
		t.Fatal("the ClickHouse event store is on without RELINK_CLICKHOUSE_URL")
	}
	if d, ok := s.LinkInvalidator.(domainsFirst); !ok || d.Invalidator != links.Invalidator(s.LinkCache) || d.domains != s.Domains {
		t.Fatal("link and domain changes do not reach the domain set and the link cache")
	}
}

// TestBuildFailure: a bad GeoIP path fails the build with an error naming
// it, after the database was opened (Build closes it again), and no
// services are returned.
func TestBuildFailure(t *testing.T) {
	path := t.TempDir() + "/relink.db"
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"RELINK_DATABASE_URL": "sqlite:" + path, "RELINK_GEOIP_DB": t.TempDir() + "/missing.mmdb"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(context.Background(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "geoip") || s != nil {
		t.Fatalf("Build = %v, %v; want the GeoIP error", s, err)
	}
}
