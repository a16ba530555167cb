package ttlmap

import (
	"fmt"
	"testing"
	"time"
)

// TestMap: a value lives until its expiry, the map stays bounded, a full map
// is trimmed to 90% (so the next inserts do not each scan it), the newest
// entry survives a trim, and expired entries go first.
func TestMap(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := New[string](100)
	m.Put("a", "id1", now, now.Add(time.Hour))
	if v, ok := m.Get("a", now.Add(59*time.Minute)); !ok || v != "id1" {
		t.Fatalf("before expiry: %q %v", v, ok)
	}
	if _, ok := m.Get("a", now.Add(time.Hour)); ok {
		t.Fatal("returned at its expiry")
	}
	for i := 0; i < 250; i++ {
		m.Put(fmt.Sprint("k", i), "x", now, now.Add(time.Hour))
		if m.Len() > 100 {
			t.Fatalf("%d entries, max 100", m.Len())
		}
	}
	m.Put("last", "x", now, now.Add(time.Hour))
	if _, ok := m.Get("last", now); !ok {
		t.Fatal("the newest entry was dropped")
	}
	if n := m.Len(); n > 100 || n < 90 {
		t.Fatalf("%d entries after trims", n)
	}

	e := New[int](10)
	for i := 0; i < 9; i++ {
		e.Put(fmt.Sprint("old", i), i, now, now.Add(time.Minute))
	}
	e.Put("fresh", 1, now, now.Add(time.Hour))
	later := now.Add(2 * time.Minute)
	e.Put("new", 2, later, later.Add(time.Hour)) // full: the nine expired entries go
	if _, ok := e.Get("fresh", later); !ok || e.Len() != 2 {
		t.Fatalf("after dropping the expired: fresh kept %v, %d entries", ok, e.Len())
	}
}
