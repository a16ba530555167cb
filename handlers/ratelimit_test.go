package handlers_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relinkhq/relink/internal/binharness"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestRateLimitInMemory pins the clock 15 s into a minute window: the free
// plan allows 60 requests, the 61st is a 429 with the headers spec/links.md §1.6
// asks for (Retry-After as delta seconds, plus retry-after-ms).
func TestRateLimitInMemory(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		windowStart := time.Date(2030, 4, 16, 17, 0, 0, 0, time.UTC)
		now := windowStart.Add(15 * time.Second)
		resetMs := strconv.FormatInt(windowStart.Add(time.Minute).UnixMilli(), 10)
		ws, key := seed(t, db, "acme", models.PlanFree)
		_, other := seed(t, db, "other", models.PlanFree)
		s := newServer(t, db, env{now: func() time.Time { return now }})

		for i := 1; i <= 60; i++ {
			path := "/workspaces/acme"
			if i%3 == 0 {
				path = "/nope" // unknown routes count against the same key
			}
			r := s.do(t, req{Host: apiHost, Path: path, Key: key})
			if r.Status == 429 {
				t.Fatalf("request %d limited: %s", i, r.Body)
			}
			h := r.Header
			if h.Get("X-RateLimit-Limit") != "60" || h.Get("X-RateLimit-Remaining") != strconv.Itoa(60-i) || h.Get("X-RateLimit-Reset") != resetMs {
				t.Fatalf("request %d (%d): limit %q remaining %q reset %q, want 60 %d %s", i, r.Status,
					h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"), 60-i, resetMs)
			}
			if h.Get("Retry-After") != "" {
				t.Fatalf("Retry-After on an allowed request: %q", h.Get("Retry-After"))
			}
		}
		for _, target := range [][2]string{{apiHost, "/workspaces/acme"}, {appHost, "/api/workspaces/acme"}, {apiHost, "/nope"}} {
			r := s.do(t, req{Host: target[0], Path: target[1], Key: key})
			wantError(t, r, 429, "rate_limit_exceeded", "Too many requests.")
			h := r.Header
			if h.Get("X-RateLimit-Limit") != "60" || h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Reset") != resetMs {
				t.Fatalf("429 headers: %v", h)
			}
			if h.Get("Retry-After") != "45" || h.Get("Retry-After-Ms") != "45000" {
				t.Fatalf("Retry-After %q retry-after-ms %q, want 45 and 45000", h.Get("Retry-After"), h.Get("Retry-After-Ms"))
			}
		}

		t.Run("another key of the same workspace has its own budget", func(t *testing.T) {
			_, token := newKey(t, db, ws, nil)
			r := s.do(t, req{Host: apiHost, Path: "/workspaces/acme", Key: token})
			if r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "59" {
				t.Fatalf("%d remaining %q", r.Status, r.Header.Get("X-RateLimit-Remaining"))
			}
		})
		t.Run("another workspace is unaffected", func(t *testing.T) {
			r := s.do(t, req{Host: apiHost, Path: "/workspaces/other", Key: other})
			if r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "59" {
				t.Fatalf("%d remaining %q", r.Status, r.Header.Get("X-RateLimit-Remaining"))
			}
		})
		t.Run("the next window allows again", func(t *testing.T) {
			// Two windows later the previous counts no longer weigh.
			now = windowStart.Add(2 * time.Minute)
			r := s.do(t, req{Host: apiHost, Path: "/workspaces/acme", Key: key})
			if r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "59" {
				t.Fatalf("%d remaining %q", r.Status, r.Header.Get("X-RateLimit-Remaining"))
			}
		})
	})
}

// TestRateLimitPerPlan: the limit header carries the plan's per-minute budget.
func TestRateLimitPerPlan(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	s := newServer(t, db, env{})
	for plan, limit := range map[models.Plan]string{
		models.PlanFree: "60", models.PlanPro: "600", models.PlanBusiness: "1200",
		models.PlanAdvanced: "3000", models.PlanEnterprise: "3000",
	} {
		t.Run(string(plan), func(t *testing.T) {
			_, key := seed(t, db, "ws-"+string(plan), plan)
			r := s.do(t, req{Host: apiHost, Path: "/workspaces/ws-" + string(plan), Key: key})
			if r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != limit {
				t.Fatalf("%d X-RateLimit-Limit %q, want %s", r.Status, r.Header.Get("X-RateLimit-Limit"), limit)
			}
		})
	}
}

// redisClient connects to the test Redis (RELINK_TEST_REDIS_URL, default
// 127.0.0.1:6379); it skips when Redis is down, except in CI.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(binharness.RedisURL(t))
	if err != nil {
		t.Fatalf("RELINK_TEST_REDIS_URL: %v", err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRateLimitSharedThroughRedis: two app instances (two handlers.New, two
// Redis clients, one prefix) share one key's budget.
func TestRateLimitSharedThroughRedis(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		prefix := "relink-test:" + ids.Nano(10) + ":"
		a := newServer(t, db, env{limiter: ratelimit.NewRedis(redisClient(t), prefix)})
		b := newServer(t, db, env{limiter: ratelimit.NewRedis(redisClient(t), prefix)})
		_, key := seed(t, db, "acme", models.PlanFree)
		instances := []*testServer{a, b}
		allowed := 0
		for i := 0; i < 60; i++ {
			r := instances[i%2].do(t, req{Host: apiHost, Path: "/workspaces/acme", Key: key})
			if r.Status == 200 {
				allowed++
			}
			if r.Header.Get("X-RateLimit-Limit") != "60" {
				t.Fatalf("request %d: X-RateLimit-Limit %q", i, r.Header.Get("X-RateLimit-Limit"))
			}
		}
		if allowed != 60 {
			t.Fatalf("%d of the first 60 requests allowed", allowed)
		}
		for name, s := range map[string]*testServer{"a": a, "b": b} {
			r := s.do(t, req{Host: apiHost, Path: "/workspaces/acme", Key: key})
			wantError(t, r, 429, "rate_limit_exceeded", "Too many requests.")
			if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
				t.Fatalf("instance %s: Retry-After %q is not 1..60 seconds", name, r.Header.Get("Retry-After"))
			}
		}
		// A separate prefix (another deployment) does not share the budget.
		c := newServer(t, db, env{limiter: ratelimit.NewRedis(redisClient(t), prefix+"other:")})
		if r := c.do(t, req{Host: apiHost, Path: "/workspaces/acme", Key: key}); r.Status != 200 {
			t.Fatalf("separate prefix: %d %s", r.Status, r.Body)
		}
	})
}
