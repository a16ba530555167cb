package analytics

import (
	"testing"

	"github.com/relinkhq/relink/internal/interval"
)

// TestIntervalsAreTheTable: the analytics schema accepts exactly the
// intervals of the one interval table, in its order.
func TestIntervalsAreTheTable(t *testing.T) {
	if len(Intervals) != len(interval.Names) {
		t.Fatalf("%d analytics intervals, %d in the table", len(Intervals), len(interval.Names))
	}
	for i, n := range interval.Names {
		if string(Intervals[i]) != n {
			t.Errorf("interval %d: %q, table %q", i, Intervals[i], n)
		}
	}
}
