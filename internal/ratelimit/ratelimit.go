// Package ratelimit implements the per-key sliding-window limits of the Dub
// API (spec/links.md §1.6, spec/analytics.md §1.3). The window is approximated the way
// Upstash's slidingWindow does it: the previous fixed window's count, weighted
// by how much of it still overlaps the sliding window, plus the current one.
//
// Two implementations: Memory (one process) and Redis (shared by every
// instance pointing at the same Redis).
package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"
)

// Result is the outcome of one request against a limit.
type Result struct {
	Allowed   bool
	Limit     int
	Remaining int
	Reset     time.Time // end of the current fixed window
}

// Limiter counts a request against key and reports whether it is allowed.
type Limiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (Result, error)
}

// estimate combines the two fixed windows.
func estimate(prev, curr int64, elapsed, window time.Duration) float64 {
	weight := 1 - float64(elapsed)/float64(window)
	if weight < 0 {
		weight = 0
	}
	return float64(prev)*weight + float64(curr)
}

func remaining(limit int, used float64) int {
	r := limit - int(math.Ceil(used))
	if r < 0 {
		return 0
	}
	return r
}

// Memory is an in-process limiter.
type Memory struct {
	mu      sync.Mutex
	now     func() time.Time
	windows map[string]*memWindow
	sweeps  int
}

type memWindow struct {
	start      int64 // window index
	prev, curr int64
	window     time.Duration
}

// NewMemory returns an in-process limiter. now may be nil (time.Now).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, windows: map[string]*memWindow{}}
}

// Allow implements Limiter.
func (m *Memory) Allow(_ context.Context, key string, limit int, window time.Duration) (Result, error) {
	t := m.now()
	idx := t.UnixNano() / int64(window)
	elapsed := time.Duration(t.UnixNano() - idx*int64(window))
	reset := time.Unix(0, (idx+1)*int64(window))

	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(idx)
	w := m.windows[key]
	if w == nil || w.window != window {
		w = &memWindow{start: idx, window: window}
		m.windows[key] = w
	}
	switch {
	case w.start == idx:
	case w.start == idx-1:
		w.prev, w.curr, w.start = w.curr, 0, idx
	default:
		w.prev, w.curr, w.start = 0, 0, idx
	}
	used := estimate(w.prev, w.curr, elapsed, window)
	if used+1 > float64(limit) {
		return Result{Allowed: false, Limit: limit, Remaining: 0, Reset: reset}, nil
	}
	w.curr++
	return Result{Allowed: true, Limit: limit, Remaining: remaining(limit, used+1), Reset: reset}, nil
}

// sweep drops stale keys now and then so memory stays bounded by active keys.
func (m *Memory) sweep(idx int64) {
	m.sweeps++
	if m.sweeps%4096 != 0 {
		return
	}
	for k, w := range m.windows {
		if w.start < idx-1 {
			delete(m.windows, k)
		}
	}
}

// Limits per plan (spec/links.md §1.6, spec/analytics.md §1.3). The analytics bucket is
// per second and applies to paths under /analytics and /events.
var (
	perMinute = map[string]int{"free": 60, "pro": 600, "business": 1200, "advanced": 3000, "enterprise": 3000}
	perSecond = map[string]int{"free": 0, "pro": 2, "business": 4, "advanced": 8, "enterprise": 16}
)

// SessionPerMinute is the console sessions' limit.
const SessionPerMinute = 600

// PlanLimit returns the limit and window for a plan and bucket.
func PlanLimit(plan string, analytics bool) (int, time.Duration) {
	if analytics {
		return perSecond[plan], time.Second
	}
	if n, ok := perMinute[plan]; ok {
		return n, time.Minute
	}
	return perMinute["free"], time.Minute
}
