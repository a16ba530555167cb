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
// (no database): totals and money formatting, chart labels in the query's
// zone, bar lists (top 8, share of the largest, filter links, sale amounts
// for sales, short links without scheme) and event rows.
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
	for i := 0; i < 10; i++ {
		bars[0] = append(bars[0], analytics.Group{Key: string(rune('A'+i)) + "X", Country: string(rune('A'+i)) + "X",
			Counters: analytics.Counters{Sales: 1, SaleAmount: int64(10000 - i*1000)}})
	}
	bars[4] = []analytics.Group{{Key: "link_1", Link: &analytics.TopLink{ID: "link_1", Domain: "go.example", Key: "spring"},
		Counters: analytics.Counters{SaleAmount: 250}}}
	title := "Lead"
	link := &models.Link{Domain: "go.example", Key: "spring", Title: &title}
	data := &dashboardData{
		totals: analytics.Counters{Clicks: 1234567, Leads: 12, Sales: 3, SaleAmount: 123456},
		series: []analytics.Bucket{{Start: day, Counters: analytics.Counters{Clicks: 5}}, {Start: day.AddDate(0, 0, 1), Counters: analytics.Counters{Leads: 2}}},
		bars:   bars,
		events: []analytics.EventRecord{{Kind: analytics.Sales, Timestamp: time.Date(2026, 3, 8, 14, 5, 9, 0, time.UTC),
			Click: analytics.Click{Country: "US", Device: "Mobile", Browser: "Chrome", Referer: "google.com", IP: "203.0.113.9"},
			Link:  analytics.EventLink{Link: link}, Sale: analytics.Sale{Amount: 4999}}},
	}
	var v vc.AnalyticsView
	d.fill(&v, data)
	if v.Totals != (vc.Totals{Clicks: "1,234,567", Leads: "12", Sales: "3", SaleAmount: "$1,234.56"}) {
		t.Fatalf("totals %+v", v.Totals)
	}
	if !reflect.DeepEqual(v.Chart.Labels, []string{"Mar 7", "Mar 8"}) || !reflect.DeepEqual(v.Chart.Series[0].Points, []int64{5, 0}) ||
		!reflect.DeepEqual(v.Chart.Series[1].Points, []int64{0, 2}) || v.Chart.Series[0].Total != "1,234,567" {
		t.Fatalf("chart %+v", v.Chart)
	}
	if len(v.Bars) != len(dashboardBars) {
		t.Fatalf("%d bar lists", len(v.Bars))
	}
	countries := v.Bars[0]
	if len(countries.Rows) != 8 || countries.Rows[0] != (vc.BarRow{Label: "AX", Value: "$100.00", Pct: 100,
		Href: "/console/analytics?country=AX&event=sales&interval=30d"}) || countries.Rows[7].Pct != 30 {
		t.Fatalf("countries %+v", countries)
	}
	if r := v.Bars[4].Rows; len(r) != 1 || r[0].Label != "go.example/spring" || r[0].Href != "/console/analytics?event=sales&interval=30d&linkId=link_1" {
		t.Fatalf("top links %+v", r)
	}
	want := vc.EventRow{Time: "Mar 8 14:05:09", Event: "sale", Link: "go.example/spring", Country: "US", Device: "Mobile",
		Browser: "Chrome", Referer: "google.com", Amount: "$49.99"}
	if len(v.EventRows) != 1 || v.EventRows[0] != want {
		t.Fatalf("events %+v", v.EventRows)
	}

	// The link page: no top-links list, bars link to the dashboard pinned
	// to the link, hourly buckets labelled by time.
	d = newDashboard("/console/links/link_1", url.Values{}, "link_1", false)
	data.bars[4] = nil
	data.series = []analytics.Bucket{{Start: day}, {Start: day.Add(time.Hour)}}
	v = vc.AnalyticsView{}
	d.fill(&v, data)
	if len(v.Bars) != len(dashboardBars)-1 || v.Bars[0].Rows[0].Href != "/console/analytics?country=AX&linkId=link_1" {
		t.Fatalf("link panel bars %+v", v.Bars)
	}
	if !reflect.DeepEqual(v.Chart.Labels, []string{"00:00", "01:00"}) {
		t.Fatalf("hourly labels %v", v.Chart.Labels)
	}
}
