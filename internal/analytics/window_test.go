package analytics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
)

func TestResolveWindow(t *testing.T) {
	now := time.Date(2025, 6, 15, 10, 30, 0, 0, time.UTC)
	created := time.Date(2025, 6, 14, 20, 0, 0, 0, time.UTC)
	tests := []struct {
		qs         string
		start, end string
		gran       Granularity
		buckets    int
	}{
		{"interval=24h", "2025-06-14T10:30:00Z", "2025-06-15T10:30:00Z", Hour, 25},
		{"", "2025-05-16T10:30:00Z", "2025-06-15T23:59:59.999Z", Day, 31},
		{"interval=7d", "2025-06-08T10:30:00Z", "2025-06-15T23:59:59.999Z", Day, 8},
		{"interval=90d", "2025-03-17T10:30:00Z", "2025-06-15T23:59:59.999Z", Day, 91},
		{"interval=1y", "2024-06-15T10:30:00Z", "2025-06-15T23:59:59.999Z", Month, 13},
		{"interval=mtd", "2025-06-01T00:00:00Z", "2025-06-15T23:59:59.999Z", Day, 15},
		{"interval=qtd", "2025-04-01T00:00:00Z", "2025-06-15T23:59:59.999Z", Day, 76},
		{"interval=ytd", "2025-01-01T00:00:00Z", "2025-06-15T23:59:59.999Z", Month, 6},
		{"interval=all", "2022-09-22T00:00:00Z", "2025-06-15T23:59:59.999Z", Month, 34},
		{"interval=all&groupBy=timeseries", "2025-06-14T00:00:00Z", "2025-06-15T23:59:59.999Z", Hour, 48},
		{"interval=7d&timezone=America/New_York", "2025-06-08T10:30:00Z", "2025-06-16T03:59:59.999Z", Day, 8},
		{"interval=mtd&timezone=Asia/Kolkata", "2025-05-31T18:30:00Z", "2025-06-15T18:29:59.999Z", Day, 15},
		{"start=2024-01-01&end=2024-01-01", "2024-01-01T00:00:00Z", "2024-01-01T23:59:59.999Z", Hour, 24},
		{"start=2024-01-01&end=2024-01-03", "2024-01-01T00:00:00Z", "2024-01-03T23:59:59.999Z", Hour, 72},
		{"start=2024-01-01&end=2024-01-04", "2024-01-01T00:00:00Z", "2024-01-04T23:59:59.999Z", Day, 4},
		{"start=2024-01-01&end=2024-06-29", "2024-01-01T00:00:00Z", "2024-06-29T23:59:59.999Z", Day, 181},
		{"start=2024-01-01&end=2024-06-30", "2024-01-01T00:00:00Z", "2024-06-30T23:59:59.999Z", Month, 6},
		{"start=2024-01-10&end=2024-01-01", "2024-01-01T23:59:59.999Z", "2024-01-10T00:00:00Z", Day, 10},
		{"start=2099-12-31", "2025-06-15T23:59:59.999Z", "2099-12-31T00:00:00Z", Month, 895},
		{"end=2024-01-01", "2025-05-16T10:30:00Z", "2025-06-15T23:59:59.999Z", Day, 31},
		{"start=2024-01-01&timezone=Pacific/Kiritimati&end=2024-01-01", "2024-01-01T10:00:00Z", "2024-01-02T09:59:59.999Z", Hour, 24},
		// DST: New York springs forward on 2025-03-09 — that day has 23 hours.
		{"start=2025-03-08T12:00:00Z&end=2025-03-12T12:00:00Z&timezone=America/New_York", "2025-03-08T05:00:00Z", "2025-03-13T03:59:59.999Z", Day, 5},
		{"start=2025-03-09T12:00:00Z&end=2025-03-09T12:00:00Z&timezone=America/New_York", "2025-03-09T05:00:00Z", "2025-03-10T03:59:59.999Z", Hour, 23},
	}
	for _, tt := range tests {
		t.Run(tt.qs, func(t *testing.T) {
			q, err := parseQS(t, tt.qs, EndpointAnalytics)
			if err != nil {
				t.Fatal(err)
			}
			w := q.Resolve(now, created)
			if got := w.Start.Format(time.RFC3339Nano); got != tt.start {
				t.Errorf("start %s want %s", got, tt.start)
			}
			if got := w.End.Format(time.RFC3339Nano); got != tt.end {
				t.Errorf("end %s want %s", got, tt.end)
			}
			if w.Granularity != tt.gran {
				t.Errorf("granularity %s want %s", w.Granularity, tt.gran)
			}
			if b := w.Buckets(); len(b) != tt.buckets {
				t.Errorf("%d buckets want %d (%v … %v)", len(b), tt.buckets, b[0], b[len(b)-1])
			}
		})
	}
}

func TestBucketFormatting(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	w := Window{Start: time.Date(2025, 3, 8, 5, 0, 0, 0, time.UTC), End: time.Date(2025, 3, 11, 3, 0, 0, 0, time.UTC), Granularity: Day, TZ: ny}
	var got []string
	for _, b := range w.Buckets() {
		got = append(got, w.FormatBucket(b))
	}
	want := "2025-03-08T00:00:00.000-0500 2025-03-09T00:00:00.000-0500 2025-03-10T00:00:00.000-0400"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v", got)
	}
	in, _ := time.LoadLocation("Asia/Kolkata")
	w = Window{Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2025, 1, 1, 2, 0, 0, 0, time.UTC), Granularity: Hour, TZ: in}
	b := w.Buckets()
	if len(b) != 3 || b[0] != time.Date(2024, 12, 31, 23, 30, 0, 0, time.UTC) || w.FormatBucket(b[1]) != "2025-01-01T06:00:00.000+0530" {
		t.Fatalf("half-hour buckets %v", b)
	}
}

func TestPlanWindow(t *testing.T) {
	now := time.Date(2025, 6, 15, 10, 30, 0, 0, time.UTC)
	old := now.AddDate(-2, 0, 0)
	young := now.AddDate(0, 0, -10)
	free := "forbidden: You can only get analytics for up to 30 days on a Free plan. Upgrade to Pro or Business to get analytics for longer periods."
	pro := "forbidden: You can only get analytics for up to 1 year on a Pro plan. Upgrade to Business to get analytics for longer periods."
	tests := []struct {
		plan, qs string
		created  time.Time
		want     string
	}{
		{"free", "interval=30d", old, ""},
		{"free", "interval=mtd", old, ""},
		{"free", "interval=qtd", old, ""},
		{"free", "interval=90d", young, free},
		{"free", "interval=1y", young, free},
		{"free", "interval=ytd", young, free},
		{"free", "interval=90d&start=2025-06-01", young, free},
		{"free", "start=2025-05-01&end=2025-06-01", old, ""},
		{"free", "start=2025-05-01&end=2025-06-02", old, free},
		{"free", "interval=all", young, ""},
		{"free", "interval=all", old, free},
		{"pro", "interval=1y", old, ""},
		{"pro", "interval=all", old, pro},
		{"pro", "start=2024-01-01&end=2025-01-01", old, ""},
		{"pro", "start=2024-01-01&end=2025-01-03", old, pro},
		{"business", "interval=all", old, ""},
		{"enterprise", "start=2022-09-22", old, ""},
	}
	for _, tt := range tests {
		t.Run(tt.plan+" "+tt.qs, func(t *testing.T) {
			q, err := parseQS(t, tt.qs, EndpointAnalytics)
			if err != nil {
				t.Fatal(err)
			}
			err = q.CheckPlanWindow(tt.plan, now, tt.created)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status() != 403 || ae.Error() != tt.want {
				t.Fatalf("got %v want %s", err, tt.want)
			}
		})
	}
}
