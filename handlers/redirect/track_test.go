package redirect

import (
	"fmt"
	"testing"
	"time"
)

// TestRecentClicks: an id is remembered for the window, the memory stays
// bounded, the newest visitor survives a trim, and a zero window (dedup
// off) remembers nothing.
func TestRecentClicks(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := newRecentClicks(time.Hour, 100)
	r.put("a", "id1", now)
	if id, ok := r.get("a", now.Add(59*time.Minute)); !ok || id != "id1" {
		t.Fatalf("within the window: %q %v", id, ok)
	}
	if _, ok := r.get("a", now.Add(time.Hour)); ok {
		t.Fatal("remembered past the window")
	}
	for i := 0; i < 250; i++ {
		r.put(fmt.Sprint("k", i), "x", now)
		if r.m.Len() > 100 {
			t.Fatalf("%d entries, max 100", r.m.Len())
		}
	}
	r.put("last", "x", now)
	if _, ok := r.get("last", now); !ok {
		t.Fatal("the newest entry was dropped")
	}
	off := newRecentClicks(0, 10)
	off.put("a", "x", now)
	if _, ok := off.get("a", now); ok {
		t.Fatal("a zero window (dedup off) remembered a click")
	}
}
