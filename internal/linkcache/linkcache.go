// Package linkcache is the redirect's in-process cache of resolved links,
// keyed by domain and lower-cased key (docs/design.md "The click path" step 1). It
// is a sharded LRU bounded by entry count. A miss loads once (concurrent
// misses for the same key share one load); unknown keys are cached for a short
// negative TTL. Entries are dropped by Invalidate, which the link write paths
// call after commit; with Redis configured the invalidation is published and
// every instance drops its copy.
package linkcache

import (
	"context"
	"fmt"
	"hash/maphash"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

// Invalidator is what link write paths need: drop (domain, key) everywhere.
// Call it after the change commits, for the old and the new (domain, key)
// when a link moves, and after creating a link (a 404 may be cached).
type Invalidator interface {
	Invalidate(domain, key string)
	InvalidateDomain(domain string)
}

// Loader reads one entry from the source of truth. found=false caches a
// negative entry; an error is returned to the caller and not cached.
type Loader[V any] func(ctx context.Context, domain, key string) (v V, found bool, err error)

// Options configure a Cache.
type Options struct {
	Size        int           // max entries (default 100000)
	TTL         time.Duration // life of a found entry; 0: until evicted or invalidated
	NegativeTTL time.Duration // life of a not-found entry (default 10s)
	Now         func() time.Time
	Logger      *slog.Logger
	// Redis, when set, carries invalidations between instances on Channel.
	Redis   *redis.Client
	Channel string // default "relink:linkcache"
	// OnRemoteInvalidate is called after an invalidation received from Redis
	// was applied (tests and metrics).
	OnRemoteInvalidate func(domain, key string)
	// OnRemoteDomain is called, before OnRemoteInvalidate, for a whole
	// domain's invalidation received from Redis (the domain was added,
	// renamed, archived or deleted on another instance): the set of
	// registered domains reloads.
	OnRemoteDomain func(domain string)
	// OnResubscribe is called after a resubscription purged the cache
	// (invalidations published while disconnected were missed).
	OnResubscribe func()
}

const shards = 16

// Cache is safe for concurrent use.
type Cache[V any] struct {
	load   Loader[V]
	opt    Options
	log    *slog.Logger
	seed   maphash.Seed
	shards [shards]shard[V]
	epoch  atomic.Uint64 // bumped by every invalidation; a load started before one is not stored
	group  singleflight.Group

	hits, misses, loads atomic.Uint64

	ps     *redis.PubSub
	cancel context.CancelFunc
	done   chan struct{}
}

type ckey struct{ domain, key string }

type node[V any] struct {
	k          ckey
	v          V
	found      bool
	expires    time.Time // zero: never
	prev, next *node[V]
}

type shard[V any] struct {
	mu   sync.Mutex
	m    map[ckey]*node[V]
	head node[V] // sentinel: head.next is most recent
	max  int
}

// New builds a cache; with opt.Redis it subscribes before returning, so an
// invalidation published after New returns is seen.
func New[V any](load Loader[V], opt Options) (*Cache[V], error) {
	if opt.Size <= 0 {
		opt.Size = 100000
	}
	if opt.NegativeTTL <= 0 {
		opt.NegativeTTL = 10 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Channel == "" {
		opt.Channel = "relink:linkcache"
	}
	c := &Cache[V]{load: load, opt: opt, log: opt.Logger, seed: maphash.MakeSeed()}
	per := max(1, opt.Size/shards)
	for i := range c.shards {
		s := &c.shards[i]
		s.m = make(map[ckey]*node[V])
		s.head.next, s.head.prev = &s.head, &s.head
		s.max = per
	}
	if opt.Redis != nil {
		ctx, cancel := context.WithCancel(context.Background())
		c.cancel = cancel
		c.ps = opt.Redis.Subscribe(ctx, opt.Channel)
		if _, err := c.ps.Receive(ctx); err != nil { // the subscription confirmation
			cancel()
			c.ps.Close()
			return nil, fmt.Errorf("link cache: subscribe to %s: %w", opt.Channel, err)
		}
		c.done = make(chan struct{})
		go c.listen(ctx)
	}
	return c, nil
}

// Close stops listening for remote invalidations.
func (c *Cache[V]) Close() error {
	if c.ps == nil {
		return nil
	}
	c.cancel()
	err := c.ps.Close()
	<-c.done
	return err
}

func (c *Cache[V]) shardOf(k ckey) *shard[V] {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(k.domain)
	h.WriteByte(0)
	h.WriteString(k.key)
	return &c.shards[h.Sum64()%shards]
}

func normKey(domain, key string) ckey {
	return ckey{strings.ToLower(domain), strings.ToLower(key)}
}

// Get returns the entry for (domain, key), loading it on a miss. found is
// false for an unknown key. A cached entry never waits on the loader.
func (c *Cache[V]) Get(ctx context.Context, domain, key string) (v V, found bool, err error) {
	k := normKey(domain, key)
	s := c.shardOf(k)
	now := c.opt.Now()
	s.mu.Lock()
	if n, ok := s.m[k]; ok {
		if n.expires.IsZero() || now.Before(n.expires) {
			s.moveFront(n)
			v, found = n.v, n.found
			s.mu.Unlock()
			c.hits.Add(1)
			return v, found, nil
		}
		s.remove(n)
	}
	s.mu.Unlock()
	c.misses.Add(1)
	// The key strings may point into request buffers: own them from here on.
	k = ckey{strings.Clone(k.domain), strings.Clone(k.key)}
	type result struct {
		v     V
		found bool
	}
	r, err, _ := c.group.Do(k.domain+"\x00"+k.key, func() (any, error) {
		epoch := c.epoch.Load()
		c.loads.Add(1)
		v, found, err := c.load(ctx, k.domain, k.key)
		if err != nil {
			return nil, err
		}
		c.store(k, v, found, epoch)
		return result{v, found}, nil
	})
	if err != nil {
		return v, false, err
	}
	res := r.(result)
	return res.v, res.found, nil
}

func (c *Cache[V]) store(k ckey, v V, found bool, epoch uint64) {
	var exp time.Time
	switch {
	case !found:
		exp = c.opt.Now().Add(c.opt.NegativeTTL)
	case c.opt.TTL > 0:
		exp = c.opt.Now().Add(c.opt.TTL)
	}
	s := c.shardOf(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.epoch.Load() != epoch {
		return // invalidated while loading: the value may be stale
	}
	if n, ok := s.m[k]; ok {
		n.v, n.found, n.expires = v, found, exp
		s.moveFront(n)
		return
	}
	n := &node[V]{k: k, v: v, found: found, expires: exp}
	s.m[k] = n
	s.pushFront(n)
	for len(s.m) > s.max {
		s.remove(s.head.prev)
	}
}

func (s *shard[V]) pushFront(n *node[V]) {
	n.prev, n.next = &s.head, s.head.next
	s.head.next.prev = n
	s.head.next = n
}

func (s *shard[V]) moveFront(n *node[V]) {
	if s.head.next == n {
		return
	}
	n.prev.next, n.next.prev = n.next, n.prev
	s.pushFront(n)
}

func (s *shard[V]) remove(n *node[V]) {
	n.prev.next, n.next.prev = n.next, n.prev
	n.prev, n.next = nil, nil
	delete(s.m, n.k)
}

// Invalidate drops (domain, key) here and, with Redis, on every instance.
func (c *Cache[V]) Invalidate(domain, key string) {
	c.drop(domain, key)
	c.publish(strings.ToLower(domain) + "\x00" + strings.ToLower(key))
}

// InvalidateDomain drops every entry of domain (a domain's notFoundUrl or
// expiredUrl changed, or the domain moved or was deleted).
func (c *Cache[V]) InvalidateDomain(domain string) {
	c.dropDomain(domain)
	c.publish(strings.ToLower(domain) + "\x00\x00*")
}

func (c *Cache[V]) drop(domain, key string) {
	c.epoch.Add(1)
	k := normKey(domain, key)
	s := c.shardOf(k)
	s.mu.Lock()
	if n, ok := s.m[k]; ok {
		s.remove(n)
	}
	s.mu.Unlock()
}

func (c *Cache[V]) dropDomain(domain string) {
	c.epoch.Add(1)
	domain = strings.ToLower(domain)
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, n := range s.m {
			if k.domain == domain {
				s.remove(n)
			}
		}
		s.mu.Unlock()
	}
}

// Purge drops everything.
func (c *Cache[V]) Purge() {
	c.epoch.Add(1)
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		clear(s.m)
		s.head.next, s.head.prev = &s.head, &s.head
		s.mu.Unlock()
	}
}

func (c *Cache[V]) publish(msg string) {
	if c.opt.Redis == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.opt.Redis.Publish(ctx, c.opt.Channel, msg).Err(); err != nil {
		// Other instances keep a stale entry until their TTL (if any) or
		// until their subscription reconnects, which purges them.
		c.log.Error("link cache: publishing invalidation failed", "entry", strings.ReplaceAll(msg, "\x00", "/"), "err", err)
	}
}

// listen applies remote invalidations. Every (re)subscription purges the
// cache: invalidations published while disconnected were missed.
func (c *Cache[V]) listen(ctx context.Context) {
	defer close(c.done)
	for {
		msg, err := c.ps.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.log.Warn("link cache: invalidation channel error; entries are purged on reconnect", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				c.Purge()
				if c.opt.OnResubscribe != nil {
					c.opt.OnResubscribe()
				}
			}
		case *redis.Message:
			domain, key, _ := strings.Cut(m.Payload, "\x00")
			if key == "\x00*" {
				c.dropDomain(domain)
				if c.opt.OnRemoteDomain != nil {
					c.opt.OnRemoteDomain(domain)
				}
			} else {
				c.drop(domain, key)
			}
			if c.opt.OnRemoteInvalidate != nil {
				c.opt.OnRemoteInvalidate(domain, key)
			}
		}
	}
}

// Stats are the cache's counters.
type Stats struct {
	Entries int    `json:"entries"`
	Hits    uint64 `json:"hits"`
	Misses  uint64 `json:"misses"`
	Loads   uint64 `json:"loads"`
}

// Stats returns the counters.
func (c *Cache[V]) Stats() Stats {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return Stats{Entries: n, Hits: c.hits.Load(), Misses: c.misses.Load(), Loads: c.loads.Load()}
}
