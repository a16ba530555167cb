package analytics

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestClickHouseRangesBoundTheirOwnGranules: the raw read of a window's two
// partial hours bounds the primary key's time column per range, so
// ClickHouse reads those hours' granules and not the whole window between
// them (at 100M clicks a year, one bound around both read every row of a
// 1y window).
func TestClickHouseRangesBoundTheirOwnGranules(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)
	end := time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC)
	h0, h1 := start.Add(30*time.Minute), end.Add(-30*time.Minute)
	s := &scope{wsID: "ws_1", q: &Query{}}
	w, ok := s.chWhereOf(kClick, []timeRange{{start, h0, false}, {h1, end, true}})
	if !ok {
		t.Fatal("no condition for two non-empty ranges")
	}
	sql := w.sql()
	for _, want := range []string{
		fmt.Sprintf("time >= toDateTime(%d) AND time <= toDateTime(%d)", start.Unix(), h0.Unix()),
		fmt.Sprintf("time >= toDateTime(%d) AND time <= toDateTime(%d)", h1.Unix(), end.Unix()),
	} {
		if !strings.Contains(sql, want) {
			t.Errorf("missing %q in\n%s", want, sql)
		}
	}
	if spanning := fmt.Sprintf("time <= toDateTime(%d)", end.Unix()); strings.Count(sql, spanning) != 1 ||
		strings.Count(sql, fmt.Sprintf("time >= toDateTime(%d)", start.Unix())) != 1 {
		t.Errorf("a time bound spans both ranges:\n%s", sql)
	}
	// Empty ranges add nothing; none at all means no read.
	if _, ok := s.chWhereOf(kClick, []timeRange{{h0, h0, false}}); ok {
		t.Error("an empty range still reads")
	}
}
