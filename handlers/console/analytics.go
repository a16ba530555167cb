package console

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// Analytics is the dashboard: the same query parameters as GET /analytics
// (interval, start, end, timezone, country, device, browser, referer,
// linkId, domain, tagId, …), answered by the same engine.
func (h *Handlers) Analytics(c *fiber.Ctx) error {
	if to, ok := withoutEmptyParams(c); ok {
		return c.Redirect(to, fiber.StatusFound)
	}
	v, err := h.analyticsView(c, "/console/analytics", request.QueryValues(c), "", true)
	if err != nil {
		return err
	}
	return h.page(c, fiber.StatusOK, "Analytics", "analytics", vc.AnalyticsPanel(v))
}

// withoutEmptyParams is the request's URL without its empty query
// parameters, and whether it had any: a form submitted without the
// console's script (which drops them) sends every empty field, and the
// address bar should not keep "?country=&device=". htmx requests are
// answered as they are (the script cleans their parameters).
func withoutEmptyParams(c *fiber.Ctx) (string, bool) {
	if render.IsHTMX(c) {
		return "", false
	}
	vals := request.QueryValues(c)
	found := false
	for k, vs := range vals {
		keep := vs[:0]
		for _, v := range vs {
			if v != "" {
				keep = append(keep, v)
			}
		}
		if len(keep) != len(vs) {
			found = true
		}
		if len(keep) == 0 {
			delete(vals, k)
		} else {
			vals[k] = keep
		}
	}
	if !found {
		return "", false
	}
	if e := vals.Encode(); e != "" {
		return c.Path() + "?" + e, true
	}
	return c.Path(), true
}

// filterParams are the event and link filters the dashboard shows as chips.
var filterParams = []struct{ key, label string }{
	{"linkId", "Link"}, {"domain", "Domain"}, {"tagId", "Tag"}, {"folderId", "Folder"},
	{"country", "Country"}, {"city", "City"}, {"continent", "Continent"}, {"device", "Device"},
	{"browser", "Browser"}, {"os", "OS"}, {"referer", "Referrer"}, {"trigger", "Trigger"},
	{"utm_source", "UTM source"}, {"utm_medium", "UTM medium"}, {"utm_campaign", "UTM campaign"},
}

// dashboardBars are the top lists: groupBy, title, the query parameter a
// bar filters by, and the label of the events without a value ("" shows
// none: every event has a link).
var dashboardBars = []struct {
	group                    analytics.GroupBy
	title, testID            string
	filterK, unknown, filter string // filter: the filter select's label ("" none)
}{
	{analytics.Countries, "Countries", "bars-countries", "country", "Unknown", "Country"},
	{analytics.Cities, "Cities", "bars-cities", "city", "Unknown", "City"},
	{analytics.Referers, "Referrers", "bars-referers", "referer", "Unknown", "Referrer"},
	{analytics.Devices, "Devices", "bars-devices", "device", "Unknown", "Device"},
	{analytics.Browsers, "Browsers", "bars-browsers", "browser", "Unknown", "Browser"},
	{analytics.OS, "Operating systems", "bars-os", "os", "Unknown", "OS"},
	{analytics.UTMSources, "UTM sources", "bars-utm-sources", "utm_source", "No UTM source", "UTM source"},
	{analytics.UTMMediums, "UTM mediums", "bars-utm-mediums", "utm_medium", "No UTM medium", "UTM medium"},
	{analytics.UTMCampaigns, "UTM campaigns", "bars-utm-campaigns", "utm_campaign", "No UTM campaign", "UTM campaign"},
	{analytics.TopLinks, "Top links", "bars-links", "linkId", "", ""},
}

// analyticsView builds the dashboard: the controls from the query string,
// then the query step (queryDashboard: what the engine answers) and the
// view-model step (fill: typed answers → what the template shows). linkID
// pins the panel to one link (the link page). Invalid parameters are
// shown, not thrown.
func (h *Handlers) analyticsView(c *fiber.Ctx, base string, vals url.Values, linkID string, showFilters bool) (vc.AnalyticsView, error) {
	return h.dashboardView(c, newDashboard(base, vals, linkID, showFilters))
}

// partnerAnalyticsView is the dashboard of one partner's links (the
// partner page): partnerId is pinned, as the link page pins linkId.
func (h *Handlers) partnerAnalyticsView(c *fiber.Ctx, base string, vals url.Values, partnerID string) (vc.AnalyticsView, error) {
	d := newDashboard(base, vals, "", false)
	d.vals.Set("partnerId", partnerID)
	d.pinned = "partnerId"
	return h.dashboardView(c, d)
}

// dashboardView runs the dashboard d asks for.
func (h *Handlers) dashboardView(c *fiber.Ctx, d *dashboard) (vc.AnalyticsView, error) {
	ws := viewer(c).Workspace
	showFilters := d.showFilters
	d.folderAccess = h.folderReader(c)
	v := d.controls()
	if showFilters {
		v.ExportAnalytics, v.ExportEvents = analyticsExportForms(ws, d)
		sels, err := h.filterSelects(c, d.vals)
		if err != nil {
			return v, err
		}
		v.FilterSelects = sels
	}
	if err := ws.RequirePlan(models.PlanPro); err != nil {
		v.Error = "Analytics need the Pro plan or higher. Change the plan in Settings."
		return v, nil
	}
	data, err := h.queryDashboard(c.UserContext(), ws, d)
	if err != nil {
		// A bad parameter is shown above the charts; anything else is a 500.
		if e := apierr.As(err); e.Status() < 500 {
			v.Error = e.Message
			return v, nil
		}
		return v, err
	}
	d.fill(&v, data)
	if showFilters {
		if err := h.valueFilters(c.UserContext(), ws, d, data, &v); err != nil {
			return v, err
		}
	}
	return v, nil
}

// valueFilters are the filter selects of the event dimensions, offering
// the values present in the window: the dimension's own top list, or, when
// the dimension is already filtered (its list is then that one value), the
// list asked again without that filter.
func (h *Handlers) valueFilters(ctx context.Context, ws *models.Workspace, d *dashboard, data *dashboardData, v *vc.AnalyticsView) error {
	for i, b := range dashboardBars {
		if b.filter == "" {
			continue
		}
		rows := data.bars[i]
		cur := d.vals.Get(b.filterK)
		if cur != "" {
			nd := *d
			nd.vals = url.Values{}
			for k, vs := range d.vals {
				if k != b.filterK {
					nd.vals[k] = vs
				}
			}
			q, err := nd.parse(b.group, d.event, analytics.EndpointAnalytics, h.now())
			if err != nil {
				return err
			}
			res, err := h.stats.Analytics(ctx, ws, q)
			if err != nil {
				return err
			}
			rows = res.Groups
		}
		v.FilterSelects = append(v.FilterSelects, valueSelect(b.filter, b.filterK, cur, b.group, rows))
	}
	return nil
}

// maxFilterOptions bounds a filter select.
const maxFilterOptions = 100

// valueSelect is a filter select: "Any", the values present (most events
// first), and the current value even when absent from the window.
func valueSelect(label, name, cur string, g analytics.GroupBy, rows []analytics.Group) vc.SelectProps {
	noun := label // "OS", "UTM source" keep their capitals; "Country" → "country"
	if len(noun) > 1 && noun[1] >= 'a' && noun[1] <= 'z' {
		noun = strings.ToLower(noun[:1]) + noun[1:]
	}
	sel := vc.SelectProps{Label: label, Name: name, Options: []vc.Option{{Value: "", Label: "Any " + noun}}}
	seen := false
	for i, r := range rows {
		if i == maxFilterOptions {
			break
		}
		val, text, icon := groupLabel(g, r)
		if icon != "" {
			text = icon + " " + text
		}
		seen = seen || val == cur
		sel.Options = append(sel.Options, vc.Option{Value: val, Label: text, Selected: val == cur})
	}
	if cur != "" && !seen {
		sel.Options = append(sel.Options, vc.Option{Value: cur, Label: cur, Selected: true})
	}
	return sel
}

// groupLabel is a top-list row's filter value, label and icon: countries
// by name with their flag, cities with their country's flag, links as
// their short link without the scheme.
func groupLabel(g analytics.GroupBy, r analytics.Group) (val, label, icon string) {
	switch g {
	case analytics.Countries:
		return r.Key, geo.CountryName(r.Key), geo.Flag(r.Key)
	case analytics.Cities:
		return r.City, r.City, geo.Flag(r.Country)
	case analytics.TopLinks:
		return r.Link.ID, strings.TrimPrefix(strings.TrimPrefix(r.Link.ShortLink(), "https://"), "http://"), ""
	}
	return r.Key, r.Key, ""
}

// dashboard is the dashboard's request: the query string with empty
// fields dropped and the defaults in, the chosen event and the pinned link.
type dashboard struct {
	base        string
	vals        url.Values
	linkID      string
	pinned      string // a filter the page's path sets (partnerId), kept out of its links
	event       string // clicks | leads | sales: what the bar lists count
	showFilters bool
	// folderAccess is the engine's folder check for the signed-in user
	// (folders.read, spec/parity.md §13.3).
	folderAccess func(ctx context.Context, folderID string) error
}

func newDashboard(base string, vals url.Values, linkID string, showFilters bool) *dashboard {
	for k, vs := range vals { // empty form fields are no filter
		if len(vs) == 0 || vs[len(vs)-1] == "" {
			delete(vals, k)
		}
	}
	if linkID != "" {
		vals.Set("linkId", linkID)
	}
	if vals.Get("interval") == "" && vals.Get("start") == "" {
		vals.Set("interval", "30d")
	}
	ev := vals.Get("event")
	switch ev {
	case "clicks", "leads", "sales":
	default:
		ev = "clicks"
	}
	return &dashboard{base: base, vals: vals, linkID: linkID, event: ev, showFilters: showFilters}
}

// own is the page's URL with the query string changed by mod (the pinned
// link stays out: it is in the path).
func (d *dashboard) own(mod func(url.Values)) string {
	nv := url.Values{}
	for k, vs := range d.vals {
		if (k == "linkId" && d.linkID != "") || (k == d.pinned && d.pinned != "") {
			continue
		}
		nv[k] = append([]string(nil), vs...)
	}
	mod(nv)
	if e := nv.Encode(); e != "" {
		return d.base + "?" + e
	}
	return d.base
}

// controls is the interval and event pickers and, on the dashboard, the
// filter form and chips.
func (d *dashboard) controls() vc.AnalyticsView {
	vals := d.vals
	v := vc.AnalyticsView{Base: d.base, Event: d.event, ShowFilters: d.showFilters}
	for _, i := range analytics.Intervals {
		iv := string(i)
		v.Intervals = append(v.Intervals, vc.Option{
			Value:    d.own(func(q url.Values) { q.Set("interval", iv); q.Del("start"); q.Del("end") }),
			Label:    intervalLabel(i),
			Selected: vals.Get("interval") == iv,
		})
	}
	for _, e := range []string{"clicks", "leads", "sales"} {
		v.Events = append(v.Events, vc.Option{Value: d.own(func(q url.Values) { q.Set("event", e) }), Label: strings.ToUpper(e[:1]) + e[1:], Selected: e == d.event})
	}
	if !d.showFilters {
		return v
	}
	for _, k := range []string{"interval", "start", "end", "timezone", "event", "linkId", "folderId"} {
		if val := vals.Get(k); val != "" {
			v.Hidden = append(v.Hidden, vc.Option{Value: k, Label: val})
		}
	}
	for _, f := range filterParams {
		if val := vals.Get(f.key); val != "" {
			k := f.key
			shown := val
			if k == "country" {
				shown = strings.TrimSpace(geo.Flag(val) + " " + geo.CountryName(val))
			}
			v.Filters = append(v.Filters, vc.ActiveFilter{Label: f.label, Value: shown, RemoveURL: d.own(func(q url.Values) { q.Del(k) })})
		}
	}
	return v
}

// parse turns the dashboard's parameters into one engine query.
func (d *dashboard) parse(group analytics.GroupBy, event string, ep analytics.Endpoint, now time.Time) (*analytics.Query, error) {
	q := url.Values{}
	for k, vs := range d.vals {
		q[k] = vs
	}
	q.Set("event", event)
	if ep == analytics.EndpointAnalytics {
		q.Set("groupBy", string(group))
	} else {
		q.Del("groupBy")
		q.Set("limit", "20")
	}
	pq, err := analytics.Parse(q, ep, now)
	if pq != nil {
		pq.FolderAccess = d.folderAccess
	}
	return pq, err
}

// dashboardData is what the engine answered for the dashboard.
type dashboardData struct {
	totals analytics.Counters
	series []analytics.Bucket
	bars   [][]analytics.Group // one per dashboardBars entry; nil when not shown
	events []analytics.EventRecord
}

// queryDashboard is the query step: totals and timeseries of all three
// events, the top lists of the chosen event, and the latest events
// (Business plan and up).
func (h *Handlers) queryDashboard(ctx context.Context, ws *models.Workspace, d *dashboard) (*dashboardData, error) {
	now := h.now()
	run := func(g analytics.GroupBy, event string) (*analytics.Result, error) {
		q, err := d.parse(g, event, analytics.EndpointAnalytics, now)
		if err != nil {
			return nil, err
		}
		return h.stats.Analytics(ctx, ws, q)
	}
	var out dashboardData
	res, err := run(analytics.Count, "composite")
	if err != nil {
		return nil, err
	}
	out.totals = res.Total
	if res, err = run(analytics.Timeseries, "composite"); err != nil {
		return nil, err
	}
	out.series = res.Buckets
	out.bars = make([][]analytics.Group, len(dashboardBars))
	for i, b := range dashboardBars {
		if b.group == analytics.TopLinks && d.linkID != "" {
			continue
		}
		if res, err = run(b.group, d.event); err != nil {
			return nil, err
		}
		out.bars[i] = res.Groups
	}
	if ws.Plan.AtLeast(models.PlanBusiness) {
		q, err := d.parse("", d.event, analytics.EndpointEvents, now)
		if err != nil {
			return nil, err
		}
		if out.events, err = h.stats.Events(ctx, ws, q); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// fill is the view-model step: the engine's typed answers as the
// dashboard's totals, chart, bar lists and event table.
func (d *dashboard) fill(v *vc.AnalyticsView, data *dashboardData) {
	t := data.totals
	v.Totals = vc.Totals{Clicks: thousands(t.Clicks), Leads: thousands(t.Leads), Sales: thousands(t.Sales), SaleAmount: money(t.SaleAmount)}
	v.Chart, v.ConvChart = charts(data.series, v.Totals)
	for i, b := range dashboardBars {
		if b.group == analytics.TopLinks && d.linkID != "" {
			continue
		}
		v.Bars = append(v.Bars, d.barList(i, data.bars[i], d.metric(data.totals)))
	}
	for i := range data.events {
		v.EventRows = append(v.EventRows, eventRow(&data.events[i]))
	}
}

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
			href = "/console/analytics?" + url.Values{fk: {filterVal}, "linkId": {d.linkID}}.Encode()
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

// filterSelects are the dashboard's domain and tag filters.
func (h *Handlers) filterSelects(c *fiber.Ctx, vals url.Values) ([]vc.SelectProps, error) {
	ws := viewer(c).Workspace
	ctx := c.UserContext()
	def := h.links.DefaultDomain()
	domains := []vc.Option{{Value: "", Label: "Any domain"}, {Value: def, Label: def, Selected: vals.Get("domain") == def}}
	ds, err := h.db.WorkspaceDomains(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		domains = append(domains, vc.Option{Value: d.Slug, Label: d.Slug, Selected: vals.Get("domain") == d.Slug})
	}
	tags := []vc.Option{{Value: "", Label: "Any tag"}}
	ts, err := h.db.ListTags(ctx, ws.ID, models.TagFilter{Limit: 500})
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		tags = append(tags, vc.Option{Value: t.ID, Label: t.Name, Selected: vals.Get("tagId") == t.ID})
	}
	return []vc.SelectProps{{Label: "Domain", Name: "domain", Options: domains}, {Label: "Tag", Name: "tagId", Options: tags}}, nil
}

// folderReader is the analytics folder check for the signed-in user.
func (h *Handlers) folderReader(c *fiber.Ctx) func(context.Context, string) error {
	return request.FolderReader(h.links, h.actor(c))
}
