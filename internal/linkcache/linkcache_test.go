package linkcache_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/linkcache"
)

// source is a fake source of truth with a load counter; the cache under test
// is real.
type source struct {
	mu      sync.Mutex
	data    map[string]string // "domain/key" -> url
	loads   atomic.Int64
	gate    chan struct{} // when set, a load waits for it
	entered chan struct{}
}

func (s *source) load(_ context.Context, domain, key string) (string, bool, error) {
	s.loads.Add(1)
	if s.entered != nil {
		s.entered <- struct{}{}
	}
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.data[domain+"/"+key]
	return v, ok, nil
}

func (s *source) set(k, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v == "" {
		delete(s.data, k)
	} else {
		s.data[k] = v
	}
}

type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.t.Load()) }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

func TestGetInvalidateAndTTL(t *testing.T) {
	ctx := context.Background()
	src := &source{data: map[string]string{"acme.link/promo": "https://a.example"}}
	clk := &clock{}
	c, err := linkcache.New(src.load, linkcache.Options{NegativeTTL: 10 * time.Second, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	get := func(domain, key string) (string, bool) {
		t.Helper()
		v, found, err := c.Get(ctx, domain, key)
		if err != nil {
			t.Fatal(err)
		}
		return v, found
	}
	steps := []struct {
		name        string
		do          func()
		domain, key string
		want        string
		found       bool
		loads       int64
	}{
		{"miss loads", nil, "acme.link", "promo", "https://a.example", true, 1},
		{"hit does not load", nil, "acme.link", "promo", "https://a.example", true, 1},
		{"key and domain are case-insensitive", nil, "ACME.link", "PrOmO", "https://a.example", true, 1},
		{"changed source is not seen before invalidation", func() { src.set("acme.link/promo", "https://b.example") }, "acme.link", "promo", "https://a.example", true, 1},
		{"invalidate drops the entry", func() { c.Invalidate("acme.link", "PROMO") }, "acme.link", "promo", "https://b.example", true, 2},
		{"unknown key is cached negatively", nil, "acme.link", "nope", "", false, 3},
		{"negative hit", nil, "acme.link", "nope", "", false, 3},
		{"created link is seen after invalidation", func() { src.set("acme.link/nope", "https://c.example"); c.Invalidate("acme.link", "nope") }, "acme.link", "nope", "https://c.example", true, 4},
		{"deleted link: negative after invalidation", func() { src.set("acme.link/nope", ""); c.Invalidate("acme.link", "nope") }, "acme.link", "nope", "", false, 5},
		{"negative entry expires", func() { src.set("acme.link/nope", "https://d.example"); clk.advance(11 * time.Second) }, "acme.link", "nope", "https://d.example", true, 6},
		{"domain invalidation drops all its keys", func() { src.set("acme.link/promo", "https://e.example"); c.InvalidateDomain("ACME.LINK") }, "acme.link", "promo", "https://e.example", true, 7},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.do != nil {
				st.do()
			}
			v, found := get(st.domain, st.key)
			if v != st.want || found != st.found || src.loads.Load() != st.loads {
				t.Errorf("got %q found=%v loads=%d; want %q %v %d", v, found, src.loads.Load(), st.want, st.found, st.loads)
			}
		})
	}
}

func TestBounded(t *testing.T) {
	src := &source{data: map[string]string{}}
	for i := range 500 {
		src.data[fmt.Sprintf("d/k%d", i)] = "u"
	}
	c, _ := linkcache.New(src.load, linkcache.Options{Size: 64})
	for i := range 500 {
		if _, _, err := c.Get(context.Background(), "d", fmt.Sprintf("k%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.Stats().Entries; n > 64 || n == 0 {
		t.Errorf("entries = %d, want 1..64", n)
	}
	// The most recent key is still cached.
	before := src.loads.Load()
	c.Get(context.Background(), "d", "k499") //nolint:errcheck
	if src.loads.Load() != before {
		t.Error("most recently used entry was evicted")
	}
}

// A load that overlaps an invalidation must not store its (possibly stale)
// result.
func TestInvalidationDuringLoad(t *testing.T) {
	src := &source{data: map[string]string{"d/k": "old"}, gate: make(chan struct{}), entered: make(chan struct{}, 1)}
	c, _ := linkcache.New(src.load, linkcache.Options{})
	done := make(chan string)
	go func() {
		v, _, _ := c.Get(context.Background(), "d", "k")
		done <- v
	}()
	<-src.entered // the load has read nothing yet but has started
	c.Invalidate("d", "k")
	src.gate <- struct{}{}
	if v := <-done; v != "old" {
		t.Fatalf("first get = %q", v)
	}
	src.set("d/k", "new")
	src.gate = nil
	src.entered = nil
	if v, _, _ := c.Get(context.Background(), "d", "k"); v != "new" {
		t.Errorf("after an invalidation during load got %q, want a fresh load", v)
	}
}

func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	addr := os.Getenv("RELINK_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Skipf("redis at %s: %v", addr, err)
	}
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// Two instances share Redis: an invalidation on one drops the other's copy.
func TestRedisInvalidationReachesEveryInstance(t *testing.T) {
	rdb := redisClient(t)
	channel := "relink:test:linkcache:" + ids.Nano(8)
	src := &source{data: map[string]string{"acme.link/promo": "v1", "acme.link/other": "o1"}}
	remote := make(chan string, 10)
	mk := func(name string) *linkcache.Cache[string] {
		c, err := linkcache.New(src.load, linkcache.Options{Redis: rdb, Channel: channel,
			OnRemoteInvalidate: func(domain, key string) { remote <- name + ":" + domain + "/" + strings.TrimPrefix(key, "\x00") }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := mk("a"), mk("b")
	ctx := context.Background()
	for _, c := range []*linkcache.Cache[string]{a, b} {
		for _, k := range []string{"promo", "other"} {
			if _, _, err := c.Get(ctx, "acme.link", k); err != nil {
				t.Fatal(err)
			}
		}
	}
	src.set("acme.link/promo", "v2")
	a.Invalidate("acme.link", "Promo")
	// Both instances receive the message (a gets its own too).
	got := map[string]bool{<-remote: true, <-remote: true}
	if !got["a:acme.link/promo"] || !got["b:acme.link/promo"] {
		t.Fatalf("remote invalidations: %v", got)
	}
	if v, _, _ := b.Get(ctx, "acme.link", "promo"); v != "v2" {
		t.Errorf("instance b still serves %q after a's invalidation", v)
	}
	loads := src.loads.Load()
	if v, _, _ := b.Get(ctx, "acme.link", "other"); v != "o1" || src.loads.Load() != loads {
		t.Errorf("an unrelated entry was dropped")
	}
	src.set("acme.link/other", "o2")
	b.InvalidateDomain("acme.link")
	<-remote
	<-remote
	if v, _, _ := a.Get(ctx, "acme.link", "other"); v != "o2" {
		t.Errorf("instance a still serves %q after b's domain invalidation", v)
	}
}
