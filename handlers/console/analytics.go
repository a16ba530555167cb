package console

import (
	"context"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
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
	v, err := h.analyticsView(c, route.URL(route.Analytics), request.QueryValues(c), "", true)
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
			q, err := nd.parse(b.group, d.event, analytics.EndpointAnalytics, h.Now())
			if err != nil {
				return err
			}
			res, err := h.Deps.Analytics.Analytics(ctx, ws, q)
			if err != nil {
				return err
			}
			rows = res.Groups
		}
		v.FilterSelects = append(v.FilterSelects, valueSelect(b.filter, b.filterK, cur, b.group, rows))
	}
	return nil
}
