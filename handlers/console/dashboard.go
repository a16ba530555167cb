package console

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

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
	now := h.Now()
	run := func(g analytics.GroupBy, event string) (*analytics.Result, error) {
		q, err := d.parse(g, event, analytics.EndpointAnalytics, now)
		if err != nil {
			return nil, err
		}
		return h.Deps.Analytics.Analytics(ctx, ws, q)
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
		if out.events, err = h.Deps.Analytics.Events(ctx, ws, q); err != nil {
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
