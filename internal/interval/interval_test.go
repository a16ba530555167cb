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

// TestCustom: an explicit range as Dub's getStartEndDates resolves it
// (day-rounded in the zone, hour up to 2 calendar days, day up to 180,
// month beyond), a reversed range swapped after the rounding; the one
// difference, the reversed range's granularity, keeps the widest window
// (2022-09-22 to 2099-12-31) under 930 monthly buckets.
func TestCustom(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	d := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		start, end string
		tz         *time.Location
		from, to   string
		g          Granularity
	}{
		{"2025-06-10T15:00:00Z", "2025-06-10T16:00:00Z", nil, "2025-06-10T00:00:00Z", "2025-06-10T23:59:59.999Z", Hour},
		{"2025-06-10T15:00:00Z", "2025-06-12T01:00:00Z", nil, "2025-06-10T00:00:00Z", "2025-06-12T23:59:59.999Z", Hour},
		{"2025-06-10T15:00:00Z", "2025-06-13T01:00:00Z", nil, "2025-06-10T00:00:00Z", "2025-06-13T23:59:59.999Z", Day},
		{"2025-01-01T00:00:00Z", "2025-06-30T00:00:00Z", nil, "2025-01-01T00:00:00Z", "2025-06-30T23:59:59.999Z", Day}, // 180 days
		{"2025-01-01T00:00:00Z", "2025-07-01T00:00:00Z", nil, "2025-01-01T00:00:00Z", "2025-07-01T23:59:59.999Z", Month},
		// Rounded in the zone: 02:00Z on the 10th is the 9th in New York.
		{"2025-06-10T02:00:00Z", "2025-06-10T02:00:00Z", ny, "2025-06-09T04:00:00Z", "2025-06-10T03:59:59.999Z", Hour},
		// Reversed: swapped after rounding (the end's last millisecond to
		// the start's midnight), as Dub; granularity of the covered range.
		{"2025-06-12T12:00:00Z", "2025-06-10T12:00:00Z", nil, "2025-06-10T23:59:59.999Z", "2025-06-12T00:00:00Z", Hour},
		{"2099-12-31T12:00:00Z", "2022-09-22T12:00:00Z", nil, "2022-09-22T23:59:59.999Z", "2099-12-31T00:00:00Z", Month},
	}
	for _, tc := range tests {
		from, to, g := Custom(d(tc.start), d(tc.end), tc.tz)
		if !from.Equal(d(tc.from)) || !to.Equal(d(tc.to)) || g != tc.g {
			t.Errorf("%s..%s: %s..%s %s, want %s..%s %s", tc.start, tc.end, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano), g, tc.from, tc.to, tc.g)
		}
	}
	// The widest accepted window's monthly buckets.
	from, to, _ := Custom(Founding, Latest.Add(-time.Millisecond), time.UTC)
	months := (to.Year()-from.Year())*12 + int(to.Month()) - int(from.Month()) + 1
	if months > 930 {
		t.Errorf("%d monthly buckets", months)
	}
}
