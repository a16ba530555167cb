package ratelimit

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relinkhq/relink/internal/ids"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestMemorySlidingWindow(t *testing.T) {
	ck := &clock{t: time.Unix(1_700_000_000/60*60, 0)} // window-aligned
	m := NewMemory(ck.now)
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		r, _ := m.Allow(ctx, "k", 10, time.Minute)
		if !r.Allowed || r.Remaining != 9-i {
			t.Fatalf("request %d: %+v", i, r)
		}
	}
	if r, _ := m.Allow(ctx, "k", 10, time.Minute); r.Allowed || r.Remaining != 0 {
		t.Fatalf("11th request allowed: %+v", r)
	}
	if r, _ := m.Allow(ctx, "other", 10, time.Minute); !r.Allowed {
		t.Fatal("keys are not independent")
	}
	// Half of the next window: half of the previous window's 10 still count.
	ck.t = ck.t.Add(time.Minute + 30*time.Second)
	allowed := 0
	for i := 0; i < 10; i++ {
		if r, _ := m.Allow(ctx, "k", 10, time.Minute); r.Allowed {
			allowed++
		}
	}
	if allowed < 4 || allowed > 6 {
		t.Fatalf("allowed %d after half a window, want about 5", allowed)
	}
	// Two windows later everything is forgotten.
	ck.t = ck.t.Add(3 * time.Minute)
	if r, _ := m.Allow(ctx, "k", 10, time.Minute); !r.Allowed || r.Remaining != 9 {
		t.Fatalf("after idle: %+v", r)
	}
}

func TestMemoryZeroLimitDenies(t *testing.T) {
	m := NewMemory(nil)
	if r, _ := m.Allow(context.Background(), "k", 0, time.Second); r.Allowed {
		t.Fatal("limit 0 allowed a request")
	}
}

// TestRedisSharedAcrossLimiters uses the real Redis: two limiters (two
// instances) share one budget.
func TestRedisSharedAcrossLimiters(t *testing.T) {
	url := os.Getenv("RELINK_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	a, b := redis.NewClient(opt), redis.NewClient(opt)
	t.Cleanup(func() { a.Close(); b.Close() })
	if err := a.Ping(context.Background()).Err(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis unavailable in CI: %v", err)
		}
		t.Skipf("redis unavailable: %v", err)
	}
	prefix := "relink-test:" + ids.Nano(8) + ":"
	la, lb := NewRedis(a, prefix), NewRedis(b, prefix)
	ctx := context.Background()
	allowed := 0
	for i := 0; i < 20; i++ {
		l := la
		if i%2 == 1 {
			l = lb
		}
		r, err := l.Allow(ctx, "key", 10, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if r.Allowed {
			allowed++
		}
		if r.Limit != 10 || r.Reset.Before(time.Now()) {
			t.Fatalf("bad result %+v", r)
		}
	}
	if allowed != 10 {
		t.Fatalf("two limiters allowed %d of 20 requests, want exactly 10", allowed)
	}
}
