package console

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// Analytics is the dashboard: the same query parameters as GET /analytics
// (interval, start, end, timezone, country, device, browser, referer,
// linkId, domain, tagId, …), answered by the same engine.
func (h *Handlers) Analytics(c *fiber.Ctx) error {
	v, err := h.analyticsView(c, "/console/analytics", queryValues(c), "", true)
	if err != nil {
		return err
	}
	return h.page(c, fiber.StatusOK, "Analytics", "analytics", vc.AnalyticsPanel(v))
}

func queryValues(c *fiber.Ctx) url.Values {
	v, _ := url.ParseQuery(string(c.Request().URI().QueryString()))
	return v
}

// filterParams are the event and link filters the dashboard shows as chips.
var filterParams = []struct{ key, label string }{
	{"linkId", "Link"}, {"domain", "Domain"}, {"tagId", "Tag"}, {"folderId", "Folder"},
	{"country", "Country"}, {"city", "City"}, {"continent", "Continent"}, {"device", "Device"},
	{"browser", "Browser"}, {"os", "OS"}, {"referer", "Referrer"}, {"trigger", "Trigger"},
}

// dashboardBars are the top lists: groupBy, title, the row field with the
// value, and the query parameter a bar filters by.
var dashboardBars = []struct {
	group          analytics.GroupBy
	title, testID  string
	field, filterK string
}{
	{analytics.Countries, "Top countries", "bars-countries", "country", "country"},
	{analytics.Devices, "Devices", "bars-devices", "device", "device"},
	{analytics.Browsers, "Browsers", "bars-browsers", "browser", "browser"},
	{analytics.Referers, "Referrers", "bars-referers", "referer", "referer"},
	{analytics.TopLinks, "Top links", "bars-links", "shortLink", "linkId"},
}

// analyticsView runs the dashboard's queries. linkID pins the panel to one
// link (the link page). Invalid parameters are shown, not thrown.
func (h *Handlers) analyticsView(c *fiber.Ctx, base string, vals url.Values, linkID string, showFilters bool) (vc.AnalyticsView, error) {
	ws := viewer(c).Workspace
	ctx := c.UserContext()
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
	own := func(mod func(url.Values)) string {
		nv := url.Values{}
		for k, vs := range vals {
			if k == "linkId" && linkID != "" {
				continue
			}
			nv[k] = append([]string(nil), vs...)
		}
		mod(nv)
		if e := nv.Encode(); e != "" {
			return base + "?" + e
		}
		return base
	}
	v := vc.AnalyticsView{Base: base, Event: ev, ShowFilters: showFilters}
	for _, i := range analytics.Intervals {
		iv := string(i)
		v.Intervals = append(v.Intervals, vc.Option{
			Value:    own(func(q url.Values) { q.Set("interval", iv); q.Del("start"); q.Del("end") }),
			Label:    intervalLabel(i),
			Selected: vals.Get("interval") == iv,
		})
	}
	for _, e := range []string{"clicks", "leads", "sales"} {
		e := e
		v.Events = append(v.Events, vc.Option{Value: own(func(q url.Values) { q.Set("event", e) }), Label: strings.ToUpper(e[:1]) + e[1:], Selected: e == ev})
	}
	if showFilters {
		for _, k := range []string{"interval", "start", "end", "timezone", "event", "linkId", "folderId"} {
			if val := vals.Get(k); val != "" {
				v.Hidden = append(v.Hidden, vc.Option{Value: k, Label: val})
			}
		}
		sels, err := h.filterSelects(c, vals)
		if err != nil {
			return v, err
		}
		v.FilterSelects = sels
		for _, f := range []struct{ name, label, ph string }{{"country", "Country", "US"}, {"device", "Device", "Desktop"}, {"browser", "Browser", "Chrome"}, {"os", "OS", "Mac OS"}, {"referer", "Referrer", "google.com"}} {
			v.FilterInputs = append(v.FilterInputs, vc.FilterInput{Name: f.name, Label: f.label, Value: vals.Get(f.name), Placeholder: f.ph})
		}
		for _, f := range filterParams {
			if val := vals.Get(f.key); val != "" {
				k := f.key
				v.Filters = append(v.Filters, vc.ActiveFilter{Label: f.label, Value: val, RemoveURL: own(func(q url.Values) { q.Del(k) })})
			}
		}
	}

	if err := ws.RequirePlan(models.PlanPro); err != nil {
		v.Error = "Analytics need the Pro plan or higher. Change the plan in Settings."
		return v, nil
	}
	parse := func(group analytics.GroupBy, event string, ep analytics.Endpoint) (*analytics.Query, error) {
		q := url.Values{}
		for k, vs := range vals {
			q[k] = vs
		}
		q.Set("event", event)
		if ep == analytics.EndpointAnalytics {
			q.Set("groupBy", string(group))
		} else {
			q.Del("groupBy")
			q.Set("limit", "20")
		}
		return analytics.Parse(q, ep, h.now())
	}
	// A bad parameter is shown above the charts; anything else is a 500.
	showErr := func(err error) (vc.AnalyticsView, error) {
		if e := apierr.As(err); e.Status() < 500 {
			v.Error = e.Message
			return v, nil
		}
		return v, err
	}

	// Totals and the timeseries, all three events.
	q, err := parse(analytics.Count, "composite", analytics.EndpointAnalytics)
	if err != nil {
		return showErr(err)
	}
	res, err := h.stats.Analytics(ctx, ws, q)
	if err != nil {
		return showErr(err)
	}
	t, _ := res.(analytics.Counters)
	v.Totals = vc.Totals{Clicks: thousands(t.Clicks), Leads: thousands(t.Leads), Sales: thousands(t.Sales), SaleAmount: money(t.SaleAmount)}
	q, err = parse(analytics.Timeseries, "composite", analytics.EndpointAnalytics)
	if err != nil {
		return showErr(err)
	}
	res, err = h.stats.Analytics(ctx, ws, q)
	if err != nil {
		return showErr(err)
	}
	rows, _ := res.([]analytics.Row)
	series := []vc.Series{{Name: "Clicks", Color: 0, Total: v.Totals.Clicks}, {Name: "Leads", Color: 1, Total: v.Totals.Leads}, {Name: "Sales", Color: 2, Total: v.Totals.Sales}}
	span := timeSpan(rows)
	for _, r := range rows {
		v.Chart.Labels = append(v.Chart.Labels, bucketLabel(fmt.Sprint(r["start"]), span))
		series[0].Points = append(series[0].Points, num(r["clicks"]))
		series[1].Points = append(series[1].Points, num(r["leads"]))
		series[2].Points = append(series[2].Points, num(r["sales"]))
	}
	v.Chart.Series = series

	// Top lists for the chosen event.
	for _, b := range dashboardBars {
		if b.group == analytics.TopLinks && linkID != "" {
			continue
		}
		q, err := parse(b.group, ev, analytics.EndpointAnalytics)
		if err != nil {
			return showErr(err)
		}
		res, err := h.stats.Analytics(ctx, ws, q)
		if err != nil {
			return showErr(err)
		}
		rows, _ := res.([]analytics.Row)
		list := vc.BarList{Title: b.title, TestID: b.testID}
		if len(rows) > 8 {
			rows = rows[:8]
		}
		metric := func(r analytics.Row) int64 {
			if ev == "sales" {
				return num(r["saleAmount"])
			}
			return num(r[ev])
		}
		var top int64
		for _, r := range rows {
			top = max(top, metric(r))
		}
		for _, r := range rows {
			n := metric(r)
			label := fmt.Sprint(r[b.field])
			filterVal := label
			if b.group == analytics.TopLinks {
				filterVal = fmt.Sprint(r["id"])
				label = strings.TrimPrefix(strings.TrimPrefix(label, "https://"), "http://")
			}
			fk := b.filterK
			href := own(func(q url.Values) { q.Set(fk, filterVal) })
			if linkID != "" || !showFilters {
				href = "/console/analytics?" + url.Values{fk: {filterVal}, "linkId": {linkID}}.Encode()
			}
			val := thousands(n)
			if ev == "sales" {
				val = money(n)
			}
			pct := 0
			if top > 0 {
				pct = int(n * 100 / top)
			}
			list.Rows = append(list.Rows, vc.BarRow{Label: label, Value: val, Href: href, Pct: pct})
		}
		v.Bars = append(v.Bars, list)
	}

	// The latest events (the API's /events; Business plan and up).
	if ws.Plan.AtLeast(models.PlanBusiness) {
		q, err = parse("", ev, analytics.EndpointEvents)
		if err != nil {
			return showErr(err)
		}
		evs, err := h.stats.Events(ctx, ws, q)
		if err != nil {
			return showErr(err)
		}
		for _, e := range evs {
			row := vc.EventRow{
				Time: eventTime(fmt.Sprint(e["timestamp"])), Event: fmt.Sprint(e["event"]),
				Link:    fmt.Sprint(e["domain"]) + "/" + fmt.Sprint(e["key"]),
				Country: str(e["country"]), Device: str(e["device"]), Browser: str(e["browser"]),
			}
			if cl, ok := e["click"].(map[string]any); ok {
				row.Referer = str(cl["referer"])
			}
			if amt, ok := e["saleAmount"]; ok {
				row.Amount = money(num(amt))
			}
			v.EventRows = append(v.EventRows, row)
		}
	}
	return v, nil
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

func num(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}

func str(v any) string {
	s, _ := v.(string)
	return s
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

const bucketLayout = "2006-01-02T15:04:05.000-0700"

// timeSpan is the distance between the first two buckets.
func timeSpan(rows []analytics.Row) time.Duration {
	if len(rows) < 2 {
		return 24 * time.Hour
	}
	a, err1 := time.Parse(bucketLayout, fmt.Sprint(rows[0]["start"]))
	b, err2 := time.Parse(bucketLayout, fmt.Sprint(rows[1]["start"]))
	if err1 != nil || err2 != nil {
		return 24 * time.Hour
	}
	return b.Sub(a)
}

// bucketLabel formats a bucket start for the x axis by bucket size.
func bucketLabel(s string, span time.Duration) string {
	t, err := time.Parse(bucketLayout, s)
	if err != nil {
		return s
	}
	switch {
	case span < 24*time.Hour:
		return t.Format("15:04")
	case span < 28*24*time.Hour:
		return t.Format("Jan 2")
	}
	return t.Format("Jan 2006")
}

func eventTime(s string) string {
	t, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err != nil {
		return s
	}
	return t.Format("Jan 2 15:04:05")
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
