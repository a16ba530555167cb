// Package ttlmap is a small bounded map whose entries expire: the memory of
// POST /track/click's repeat visitors and the QR logo cache.
package ttlmap

import (
	"sync"
	"time"
)

// Map holds at most max entries, each until its expiry. It is safe for
// concurrent use.
type Map[V any] struct {
	max int
	mu  sync.Mutex
	m   map[string]entry[V]
}

type entry[V any] struct {
	v       V
	expires time.Time
}

// New returns a Map of at most max entries.
func New[V any](max int) *Map[V] {
	return &Map[V]{max: max, m: map[string]entry[V]{}}
}

// Get returns k's value if it has not expired at now.
func (m *Map[V]) Get(k string, now time.Time) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.m[k]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put stores v under k until expires. A full map first drops its expired
// entries, then arbitrary ones down to 90% of max, so the scan runs once
// per tenth of the capacity rather than on every insert.
func (m *Map[V]) Put(k string, v V, now, expires time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[k]; !ok && len(m.m) >= m.max {
		for key, e := range m.m {
			if !now.Before(e.expires) {
				delete(m.m, key)
			}
		}
		for key := range m.m {
			if len(m.m) < m.max*9/10 {
				break
			}
			delete(m.m, key)
		}
	}
	m.m[k] = entry[V]{v: v, expires: expires}
}

// Len is the number of entries held, expired ones included.
func (m *Map[V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
