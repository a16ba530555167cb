package interval

import (
	"testing"
	"time"
)

func TestStart(t *testing.T) {
	now := time.Date(2025, 6, 15, 10, 30, 0, 0, time.UTC)
	ny, _ := time.LoadLocation("America/New_York")
	tests := []struct {
		name string
		tz   *time.Location
		want string
		g    Granularity
	}{
		{"24h", nil, "2025-06-14T10:30:00Z", Hour},
		{"7d", nil, "2025-06-08T10:30:00Z", Day}, // same wall time, not midnight six days ago
		{"7d", ny, "2025-06-08T10:30:00Z", Day},
		{"30d", nil, "2025-05-16T10:30:00Z", Day},
		{"90d", nil, "2025-03-17T10:30:00Z", Day},
		{"1y", nil, "2024-06-15T10:30:00Z", Month},
		{"mtd", nil, "2025-06-01T00:00:00Z", Day},
		{"mtd", ny, "2025-06-01T04:00:00Z", Day},
		{"qtd", nil, "2025-04-01T00:00:00Z", Day},
		{"ytd", nil, "2025-01-01T00:00:00Z", Month},
	}
	for _, tt := range tests {
		s, g, ok := Start(tt.name, now, tt.tz)
		if !ok || s.UTC().Format(time.RFC3339) != tt.want || g != tt.g {
			t.Errorf("Start(%s, %v) = %s %s %v, want %s %s", tt.name, tt.tz, s.UTC().Format(time.RFC3339), g, ok, tt.want, tt.g)
		}
	}
	if _, g, ok := Start(All, now, nil); ok || g != Month {
		t.Errorf("all: ok %v granularity %s", ok, g)
	}
	if _, _, ok := Start("2h", now, nil); ok || Valid("2h") {
		t.Error("unknown interval accepted")
	}
	for _, n := range Names {
		if !Valid(n) {
			t.Errorf("%s not in the table", n)
		}
	}
	if len(Names) != len(table) {
		t.Errorf("%d names, %d rows", len(Names), len(table))
	}
}

// TestSevenDaysIsEightDailyBuckets pins the settled meaning of "7d"
// (spec/analytics.md §3.3): from now − 7 days to the end of today there are 8
// daily buckets, the first partial.
func TestSevenDaysIsEightDailyBuckets(t *testing.T) {
	now := time.Date(2025, 6, 15, 10, 30, 0, 0, time.UTC)
	s, _, _ := Start("7d", now, nil)
	days := 0
	for d := time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, time.UTC); !d.After(now); d = d.AddDate(0, 0, 1) {
		days++
	}
	if days != 8 {
		t.Fatalf("7d spans %d daily buckets, want 8", days)
	}
}

// Valid reports a known interval name.
func Valid(name string) bool {
	_, ok := table[name]
	return ok
}
