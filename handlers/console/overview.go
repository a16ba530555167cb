package console

import (
	"context"
	"net/url"
	"sort"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// Home is /console: the workspace overview — the getting-started checklist
// until it is done, the last 30 days as a chart, the top links and the
// latest leads and sales.
func (h *Handlers) Home(c *fiber.Ctx) error {
	v := viewer(c)
	ctx := c.UserContext()
	ov := vc.OverviewView{Name: v.Workspace.Name, Slug: v.Workspace.Slug, Plan: string(v.Workspace.Plan), Role: string(v.Role)}
	n, err := h.Deps.Links.Count(ctx, h.actor(c), links.ListQuery{AllFolders: true, ShowArchived: true})
	if err != nil {
		return err
	}
	ov.Links = thousands(n)
	if ov.Checklist, err = h.checklist(ctx, v.Workspace); err != nil {
		return err
	}
	if err := h.overviewAnalytics(ctx, v.Workspace, &ov); err != nil {
		return err
	}
	return h.page(c, fiber.StatusOK, "Overview", "home", vc.Overview(ov))
}

// checklist is the getting-started list: a domain, a first link, an API
// key and a partner program. It is nil once every step is done.
func (h *Handlers) checklist(ctx context.Context, ws *models.Workspace) ([]vc.CheckItem, error) {
	ds, err := h.DB.WorkspaceDomains(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	nLinks, err := h.DB.CountKeyedLinks(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	ks, err := h.DB.ListAPIKeys(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	activeKey := false
	for _, k := range ks {
		activeKey = activeKey || k.RevokedAt == nil
	}
	_, perr := h.DB.DefaultProgram(ctx, ws.ID)
	if perr != nil && !models.IsNotFound(perr) {
		return nil, perr
	}
	items := []vc.CheckItem{
		{Key: "domain", Label: "Add your domain", Hint: "Short links on your own domain (go.example.com) instead of " + h.Deps.Links.DefaultDomain() + ".", Href: route.URL(route.Domains), Done: len(ds) > 0},
		{Key: "link", Label: "Create your first link", Hint: "A short link to any page; its clicks show up here.", Href: route.URL(route.Links), Done: nLinks > 0},
		{Key: "key", Label: "Create an API key", Hint: "Track leads and sales from your server with Dub's SDKs.", Href: route.URL(route.Keys), Done: activeKey},
		{Key: "program", Label: "Start a partner program", Hint: "Reward partners for the clicks, leads and sales they bring.", Href: route.URL(route.Program), Done: perr == nil},
	}
	for _, it := range items {
		if !it.Done {
			return items, nil
		}
	}
	return nil, nil
}

// overviewAnalytics fills the last 30 days: totals, the two charts, the
// top links (Pro plan and up, as the analytics page) and the latest
// conversions (Business plan and up, as the events table).
func (h *Handlers) overviewAnalytics(ctx context.Context, ws *models.Workspace, ov *vc.OverviewView) error {
	if err := ws.RequirePlan(models.PlanPro); err != nil {
		ov.AnalyticsNote = "Charts of clicks, leads and sales need the Pro plan or higher. Change the plan in Settings."
		return nil
	}
	d := newDashboard(route.URL(route.Analytics), url.Values{"interval": {"30d"}}, "", true)
	now := h.Now()
	run := func(g analytics.GroupBy, event string) (*analytics.Result, error) {
		q, err := d.parse(g, event, analytics.EndpointAnalytics, now)
		if err != nil {
			return nil, err
		}
		return h.Deps.Analytics.Analytics(ctx, ws, q)
	}
	tot, err := run(analytics.Count, "composite")
	if err != nil {
		return err
	}
	series, err := run(analytics.Timeseries, "composite")
	if err != nil {
		return err
	}
	top, err := run(analytics.TopLinks, "clicks")
	if err != nil {
		return err
	}
	t := tot.Total
	totals := vc.Totals{Clicks: thousands(t.Clicks), Leads: thousands(t.Leads), Sales: thousands(t.Sales), SaleAmount: money(t.SaleAmount)}
	ov.Totals, ov.HasAnalytics = totals, true
	ov.Chart, ov.ConvChart = charts(series.Buckets, totals)
	for i, b := range dashboardBars {
		if b.group == analytics.TopLinks {
			rows := top.Groups
			if len(rows) > 5 {
				rows = rows[:5]
			}
			ov.TopLinks = d.barList(i, rows, 0).Rows
		}
	}
	if !ws.Plan.AtLeast(models.PlanBusiness) {
		ov.ConversionsNote = "The latest leads and sales are listed on the Business plan and up."
		return nil
	}
	var evs []analytics.EventRecord
	for _, ev := range []string{"leads", "sales"} {
		q, err := d.parse("", ev, analytics.EndpointEvents, now)
		if err != nil {
			return err
		}
		q.Limit = 6
		got, err := h.Deps.Analytics.Events(ctx, ws, q)
		if err != nil {
			return err
		}
		evs = append(evs, got...)
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Timestamp.After(evs[j].Timestamp) })
	for i := range evs {
		if i == 6 {
			break
		}
		ov.Conversions = append(ov.Conversions, eventRow(&evs[i]))
	}
	return nil
}
