package ids

import (
	"testing"
	"time"
)

// IDs made in the same millisecond, or after the clock steps back, still
// sort in creation order.
func TestNewMonotonic(t *testing.T) {
	t.Cleanup(func() { now = time.Now })
	fixed := time.Now().Add(time.Hour)
	now = func() time.Time { return fixed }
	prev := New(Link)
	for i := range 2000 {
		if i == 1000 {
			now = func() time.Time { return fixed.Add(-time.Minute) } // clock stepped back
		}
		id := New(Link)
		if id <= prev {
			t.Fatalf("id %d: %s <= %s", i, id, prev)
		}
		prev = id
	}
	if b := []byte{0xff, 0xff}; !increment(b) || b[0] != 0 || b[1] != 0 {
		t.Fatalf("increment overflow: %v", b)
	}
	if b := []byte{0x01, 0xff}; increment(b) || b[0] != 2 || b[1] != 0 {
		t.Fatalf("increment carry: %v", b)
	}
}
