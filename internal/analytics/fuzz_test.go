package analytics

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
)

// FuzzParse: any query string parses or is rejected with a 422 *apierr.Error;
// a parsed query resolves to a window whose bucket list is ordered.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "event=composite&groupBy=timeseries&interval=all&timezone=Asia/Kolkata",
		"start=2024-01-01&end=2024-01-03&timezone=America/New_York",
		"country=-US,BR&region=US-CA&device=mobile&os=iOS&qr=true&root=TRUE",
		"query=metadata['plan']:pro AND metadata['n']>=5&saleType=new&event=sales",
		"page=2&limit=1000&sortOrder=asc&order=desc&sortBy=timestamp",
		"start=foo 2024-01-01 bar&end=3 days ago", "start=Mon, 01 Jan 2024 10:00:00 GMT",
		"interval=ytd&timezone=Australia/Lord_Howe&groupBy=timeseries",
		"start=31/01/2024&end=January 5, 2025&timezone=Pacific/Chatham",
		"start=9999-12-31&groupBy=timeseries", "start=2099-12-31&end=2022-09-22&groupBy=timeseries",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	now := time.Date(2025, 6, 15, 10, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, qs string, events bool) {
		vals, err := url.ParseQuery(qs)
		if err != nil {
			return
		}
		ep := EndpointAnalytics
		if events {
			ep = EndpointEvents
		}
		q, err := Parse(vals, ep, now)
		if err != nil {
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status() != 422 || ae.Code != apierr.Unprocessable {
				t.Fatalf("rejection is not a 422 *apierr.Error: %#v", err)
			}
			if strings.Count(ae.Message, ": ") < 2 {
				t.Fatalf("message not in issue: path: message form: %q", ae.Message)
			}
			return
		}
		if err := q.CheckPlanWindow("free", now, now.AddDate(-1, 0, 0)); err != nil && !apierr.Is(err, apierr.Forbidden) {
			t.Fatalf("plan check: %v", err)
		}
		w := q.Resolve(now, now.AddDate(0, -1, 0))
		if w.Start.After(w.End) {
			t.Fatalf("window start %v after end %v", w.Start, w.End)
		}
		bs := w.Buckets()
		if len(bs) > 1000 { // LatestDate and the granularity rules bound every timeseries
			t.Fatalf("%d buckets for %q", len(bs), qs)
		}
		for i := 1; i < len(bs); i++ {
			if !bs[i].After(bs[i-1]) {
				t.Fatalf("buckets not increasing at %d: %v %v", i, bs[i-1], bs[i])
			}
		}
		if len(bs) > 0 && (bs[0].After(w.Start) || w.Floor(w.End) != bs[len(bs)-1]) {
			t.Fatalf("buckets do not cover the window")
		}
	})
}

// FuzzMetadataQuery: the grammar never panics, every condition it yields is
// well-formed, and Parse rejects only over-long input.
func FuzzMetadataQuery(f *testing.F) {
	for _, s := range []string{
		`metadata['productId']:premiumProductId`,
		`metadata["plan"]:"pro" AND metadata['seats']>='5'`,
		`metadata['a']['b'] != x or country:US`,
		`metadata['a']:'x;--y/**/\z'`, `metadata['a']<>1 OR  metadata['b']=>2`, "  AND  ",
		"metadata[''']:x", "metadata['a']:`q`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range ParseMetadataQuery(s) {
			if c.Value == "" || c.Op == "" {
				t.Fatalf("empty condition part: %#v", c)
			}
			if len(c.Path) > 0 && (c.Field != "metadata" || !metaKeyRe.MatchString(strings.Join(c.Path, "."))) {
				t.Fatalf("bad path: %#v", c)
			}
			c.Eval(`{"a":"1","b":"x"}`)
			c.Eval(`not json`)
		}
		_, err := Parse(url.Values{"query": {s}, "event": {"leads"}}, EndpointAnalytics, time.Now())
		if len([]rune(s)) > MaxQueryLen {
			if !apierr.Is(err, apierr.Unprocessable) {
				t.Fatalf("over-long query not rejected: %v", err)
			}
		} else if err != nil {
			t.Fatalf("query of %d chars rejected: %v", len(s), err)
		}
	})
}
