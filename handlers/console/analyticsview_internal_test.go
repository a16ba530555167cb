package console

import (
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// TestDashboardFill: the view-model step alone, from typed engine answers
// (no database): totals and money formatting, the clicks chart and the
// leads-and-sales chart on its own axis, bar lists (top 8, country names
// with flags, share of the largest, filter links, sale amounts for sales,
// the events without a value as one "Unknown" row, short links without
// scheme) and event rows.
func TestDashboardFill(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	d := newDashboard("/console/analytics", url.Values{"event": {"sales"}, "country": {""}}, "", true)
	if d.event != "sales" || d.vals.Get("interval") != "30d" || d.vals.Has("country") {
		t.Fatalf("dashboard request %+v", d)
	}
	day := time.Date(2026, 3, 7, 0, 0, 0, 0, ny)
	bars := make([][]analytics.Group, len(dashboardBars))
	codes := []string{"US", "DE", "FR", "GB", "JP", "BR", "IN", "CA", "ES", "IT"}
	var listed int64
	for i, code := range codes {
		amount := int64(10000 - i*1000)
		listed += amount
		bars[0] = append(bars[0], analytics.Group{Key: code, Country: code, Counters: analytics.Counters{Sales: 1, SaleAmount: amount}})
	}
	bars[1] = []analytics.Group{{Key: "US|CA|San Francisco", Country: "US", City: "San Francisco", Counters: analytics.Counters{SaleAmount: 1000}}}
	linksAt := len(dashboardBars) - 1
	bars[linksAt] = []analytics.Group{{Key: "link_1", Link: &analytics.TopLink{ID: "link_1", Domain: "go.example", Key: "spring"},
		Counters: analytics.Counters{SaleAmount: 250}}}
	title := "Lead"
	link := &models.Link{Domain: "go.example", Key: "spring", Title: &title}
	totalAmount := listed + 5000 // 50 dollars of sales without a country
	data := &dashboardData{
		totals: analytics.Counters{Clicks: 1234567, Leads: 12, Sales: 3, SaleAmount: totalAmount},
		series: []analytics.Bucket{{Start: day, Counters: analytics.Counters{Clicks: 5}}, {Start: day.AddDate(0, 0, 1), Counters: analytics.Counters{Leads: 2}}},
		bars:   bars,
		events: []analytics.EventRecord{{Kind: analytics.Sales, Timestamp: time.Date(2026, 3, 8, 14, 5, 9, 0, time.UTC),
			Click: analytics.Click{Country: "US", Device: "Mobile", Browser: "Chrome", Referer: "google.com", IP: "203.0.113.9"},
			Link:  analytics.EventLink{Link: link}, Sale: analytics.Sale{Amount: 4999}, Customer: analytics.Customer{Name: "Ada"}}},
	}
	var v vc.AnalyticsView
	d.fill(&v, data)
	if v.Totals != (vc.Totals{Clicks: "1,234,567", Leads: "12", Sales: "3", SaleAmount: money(totalAmount)}) {
		t.Fatalf("totals %+v", v.Totals)
	}
	if !reflect.DeepEqual(v.Chart.Labels, []string{"Mar 7", "Mar 8"}) || len(v.Chart.Series) != 1 ||
		!reflect.DeepEqual(v.Chart.Series[0].Points, []int64{5, 0}) || v.Chart.Series[0].Total != "1,234,567" {
		t.Fatalf("clicks chart %+v", v.Chart)
	}
	if len(v.ConvChart.Series) != 2 || v.ConvChart.Series[0].Name != "Leads" || !reflect.DeepEqual(v.ConvChart.Series[0].Points, []int64{0, 2}) {
		t.Fatalf("leads and sales chart %+v", v.ConvChart)
	}
	if len(v.Bars) != len(dashboardBars) {
		t.Fatalf("%d bar lists", len(v.Bars))
	}
	countries := v.Bars[0]
	if len(countries.Rows) != 9 || countries.Rows[0] != (vc.BarRow{Label: "United States", Icon: "🇺🇸", Value: "$100.00", Pct: 100,
		Href: "/console/analytics?country=US&event=sales&interval=30d"}) || countries.Rows[7].Pct != 30 {
		t.Fatalf("countries %+v", countries)
	}
	if u := countries.Rows[8]; u != (vc.BarRow{Label: "Unknown", Value: "$50.00", Pct: 50, Unknown: true}) {
		t.Fatalf("unknown row %+v", u)
	}
	if r := v.Bars[1].Rows; len(r) != 2 || r[0].Label != "San Francisco" || r[0].Icon != "🇺🇸" || r[1].Label != "Unknown" ||
		r[0].Href != "/console/analytics?city=San+Francisco&event=sales&interval=30d" {
		t.Fatalf("cities %+v", r)
	}
	if r := v.Bars[6].Rows; len(r) != 1 || r[0].Label != "No UTM source" || r[0].Value != money(totalAmount) || r[0].Href != "" {
		t.Fatalf("utm sources %+v", r)
	}
	if r := v.Bars[linksAt].Rows; len(r) != 1 || r[0].Label != "go.example/spring" || r[0].Href != "/console/analytics?event=sales&interval=30d&linkId=link_1" {
		t.Fatalf("top links %+v (no Unknown row: every event has a link)", r)
	}
	want := vc.EventRow{Time: "Mar 8 14:05:09", Event: "sale", Link: "go.example/spring", Country: "🇺🇸 United States", Device: "Mobile",
		Browser: "Chrome", Referer: "google.com", Amount: "$49.99", Customer: "Ada"}
	if len(v.EventRows) != 1 || v.EventRows[0] != want {
		t.Fatalf("events %+v", v.EventRows)
	}

	// The link page: no top-links list, bars link to the dashboard pinned
	// to the link, hourly buckets labelled by time.
	d = newDashboard("/console/links/link_1", url.Values{}, "link_1", false)
	data.bars[linksAt] = nil
	data.series = []analytics.Bucket{{Start: day}, {Start: day.Add(time.Hour)}}
	v = vc.AnalyticsView{}
	d.fill(&v, data)
	if len(v.Bars) != len(dashboardBars)-1 || v.Bars[0].Rows[0].Href != "/console/analytics?country=US&linkId=link_1" {
		t.Fatalf("link panel bars %+v", v.Bars)
	}
	if !reflect.DeepEqual(v.Chart.Labels, []string{"00:00", "01:00"}) {
		t.Fatalf("hourly labels %v", v.Chart.Labels)
	}
}

// TestNiceAxis: y axes step by 1, 2 or 5 times a power of ten, at most
// five intervals, the top at or above the largest value.
func TestNiceAxis(t *testing.T) {
	for _, c := range []struct{ max, step, top int64 }{
		{0, 1, 4}, {1, 1, 1}, {3, 1, 3}, {5, 1, 5}, {6, 2, 6}, {7, 2, 8}, {11, 5, 15}, {37, 10, 40},
		{50, 10, 50}, {51, 20, 60}, {120, 50, 150}, {999, 200, 1000}, {1234, 500, 1500}, {98765, 20000, 100000},
	} {
		step, top := vc.NiceAxis(c.max)
		if step != c.step || top != c.top {
			t.Errorf("NiceAxis(%d) = %d, %d; want %d, %d", c.max, step, top, c.step, c.top)
		}
		if top/step > 5 || top < c.max {
			t.Errorf("NiceAxis(%d): %d intervals, top %d", c.max, top/step, top)
		}
	}
}
