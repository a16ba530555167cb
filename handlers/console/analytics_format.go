package console

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/geo"
	vc "github.com/relinkhq/relink/views/console"
)

// eventRow is one line of the latest-events table.
func eventRow(e *analytics.EventRecord) vc.EventRow {
	row := vc.EventRow{
		Time: e.Timestamp.UTC().Format("Jan 2 15:04:05"), Event: strings.TrimSuffix(string(e.Kind), "s"),
		Link:    e.Link.Domain + "/" + e.Link.Key,
		Country: countryLabel(e.Click.Country), Device: e.Click.Device, Browser: e.Click.Browser, Referer: e.Click.Referer,
	}
	if e.Kind == analytics.Sales {
		row.Amount = money(e.Sale.Amount)
	}
	if e.Kind != analytics.Clicks {
		row.Customer = e.Customer.Name
		if e.Customer.Deleted || row.Customer == "" {
			row.Customer = "Deleted customer"
		}
	}
	return row
}

// countryLabel is a country code as its flag and name; unknown stays as it is.
func countryLabel(code string) string {
	if f := geo.Flag(code); f != "" {
		return f + " " + geo.CountryName(code)
	}
	return code
}

func intervalLabel(i analytics.Interval) string {
	switch i {
	case analytics.Interval24h:
		return "24 hours"
	case analytics.Interval7d:
		return "7 days"
	case analytics.Interval30d:
		return "30 days"
	case analytics.Interval90d:
		return "90 days"
	case analytics.Interval1y:
		return "1 year"
	case analytics.IntervalMTD:
		return "Month to date"
	case analytics.IntervalQTD:
		return "Quarter to date"
	case analytics.IntervalYTD:
		return "Year to date"
	}
	return "All time"
}

// thousands formats 1234567 as 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// money formats cents as dollars.
func money(cents int64) string {
	return "$" + thousands(cents/100) + fmt.Sprintf(".%02d", cents%100)
}

// timeSpan is the distance between the first two buckets.
func timeSpan(bs []analytics.Bucket) time.Duration {
	if len(bs) < 2 {
		return 24 * time.Hour
	}
	return bs[1].Start.Sub(bs[0].Start)
}

// bucketLabel formats a bucket start (in the query's zone) for the x axis
// by bucket size.
func bucketLabel(t time.Time, span time.Duration) string {
	switch {
	case span < 24*time.Hour:
		return t.Format("15:04")
	case span < 28*24*time.Hour:
		return t.Format("Jan 2")
	}
	return t.Format("Jan 2006")
}
