package console

import (
	"net/url"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/analytics"
	vc "github.com/relinkhq/relink/views/console"
)

// charts are the clicks chart and the leads-and-sales chart (its own y
// axis: a handful of conversions would be a flat line under the clicks).
func charts(buckets []analytics.Bucket, totals vc.Totals) (clicks, conv vc.ChartView) {
	clicks = vc.ChartView{TestID: "chart", Title: "Clicks", Series: []vc.Series{{Name: "Clicks", Color: 0, Total: totals.Clicks}}}
	conv = vc.ChartView{TestID: "chart-conversions", Title: "Leads and sales", Small: true,
		Series: []vc.Series{{Name: "Leads", Color: 1, Total: totals.Leads}, {Name: "Sales", Color: 2, Total: totals.Sales}}}
	span := timeSpan(buckets)
	for _, b := range buckets {
		label := bucketLabel(b.Start, span)
		clicks.Labels = append(clicks.Labels, label)
		conv.Labels = append(conv.Labels, label)
		clicks.Series[0].Points = append(clicks.Series[0].Points, b.Clicks)
		conv.Series[0].Points = append(conv.Series[0].Points, b.Leads)
		conv.Series[1].Points = append(conv.Series[1].Points, b.Sales)
	}
	return clicks, conv
}

// metric is the number a bar shows for the chosen event.
func (d *dashboard) metric(c analytics.Counters) int64 {
	switch d.event {
	case "sales":
		return c.SaleAmount
	case "leads":
		return c.Leads
	}
	return c.Clicks
}

// barList is the top list of dashboardBars[i], at most 8 rows, and the
// events without a value (total minus the rows, which the engine drops as
// Dub does) as one last row under the list's unknown label.
func (d *dashboard) barList(i int, rows []analytics.Group, total int64) vc.BarList {
	b := dashboardBars[i]
	list := vc.BarList{Title: b.title, TestID: b.testID}
	var sum int64
	for _, r := range rows {
		sum += d.metric(r.Counters)
	}
	unknown := total - sum
	if b.unknown == "" || len(rows) >= analytics.RowLimit {
		unknown = 0 // every event has a link; or the rows were cut, so the rest is not only unknown
	}
	if len(rows) > 8 {
		rows = rows[:8]
	}
	top := max(unknown, 0)
	for _, r := range rows {
		top = max(top, d.metric(r.Counters))
	}
	pct := func(n int64) int {
		if top <= 0 {
			return 0
		}
		return int(n * 100 / top)
	}
	for _, r := range rows {
		n := d.metric(r.Counters)
		filterVal, label, icon := groupLabel(b.group, r)
		fk := b.filterK
		href := d.own(func(q url.Values) { q.Set(fk, filterVal) })
		if d.linkID != "" || !d.showFilters {
			href = route.Query(route.Analytics, url.Values{fk: {filterVal}, "linkId": {d.linkID}})
		}
		list.Rows = append(list.Rows, vc.BarRow{Label: label, Icon: icon, Value: d.format(n), Href: href, Pct: pct(n)})
	}
	if unknown > 0 {
		list.Rows = append(list.Rows, vc.BarRow{Label: b.unknown, Value: d.format(unknown), Pct: pct(unknown), Unknown: true})
	}
	return list
}

// format is a bar's number: money for sales, a count otherwise.
func (d *dashboard) format(n int64) string {
	if d.event == "sales" {
		return money(n)
	}
	return thousands(n)
}
