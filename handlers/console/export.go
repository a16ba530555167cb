package console

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/export"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// The console's downloads are the API's (internal/export): the same files,
// columns and streaming, for the signed-in user's workspace, over the
// page's current filters.

// columnsParam joins the checked columns (one "columns" field each) as the
// API's comma-separated list; none checked is "".
func columnsParam(c *fiber.Ctx) string {
	var ids []string
	for _, v := range c.Request().URI().QueryArgs().PeekMulti("columns") {
		if s := strings.TrimSpace(string(v)); s != "" {
			ids = append(ids, s)
		}
	}
	return strings.Join(ids, ",")
}

func columnOptions(cols []export.Column) []vc.Option {
	out := make([]vc.Option, len(cols))
	for i, col := range cols {
		out[i] = vc.Option{Value: col.ID, Label: col.Label, Selected: col.Default}
	}
	return out
}

// linksExportForm is the links page's download, over the list's filters.
func linksExportForm(f vc.LinkFilters) vc.ExportForm {
	form := vc.ExportForm{Title: "Export", Action: route.URL(route.ExportLinks), Submit: "Download CSV", TestID: "links-export",
		Columns: columnOptions(export.LinkColumns()), Note: "Every link the filters above select, newest first."}
	for _, kv := range [][2]string{{"search", f.Search}, {"domain", f.Domain}, {"tag", f.Tag}, {"folder", f.Folder}} {
		if kv[1] != "" {
			form.Hidden = append(form.Hidden, vc.Option{Value: kv[0], Label: kv[1]})
		}
	}
	if f.Archived {
		form.Hidden = append(form.Hidden, vc.Option{Value: "archived", Label: "1"})
	}
	return form
}

// ExportLinks downloads the links the list's filters select
// (GET /console/links/export).
func (h *Handlers) ExportLinks(c *fiber.Ctx) error {
	q := linkListQuery(linkFilters(c))
	d, err := export.Links(c.UserContext(), h.Deps.Links, h.actor(c), q, models.LinkCreated{}, columnsParam(c))
	if err != nil {
		return err
	}
	return render.Download(c, d)
}

// analyticsExportForms are the dashboard's two downloads over its current
// window and filters: analytics (Pro and up, as the dashboard) and the
// chosen event's events (Business and up, as upstream).
func analyticsExportForms(ws *models.Workspace, d *dashboard) (vc.ExportForm, vc.ExportForm) {
	var hidden []vc.Option
	for _, k := range slices.Sorted(maps.Keys(d.vals)) {
		if vs := d.vals[k]; k != "columns" && len(vs) > 0 {
			hidden = append(hidden, vc.Option{Value: k, Label: vs[len(vs)-1]})
		}
	}
	an := vc.ExportForm{Title: "Download analytics", Action: route.URL(route.ExportAnalytics), Hidden: hidden, Submit: "Download ZIP",
		Note: "One CSV per breakdown (time series, countries, devices, referrers, top links, …) for this period and these filters.", TestID: "analytics-export"}
	ev := vc.ExportForm{Title: "Export " + d.event, Action: route.URL(route.ExportEvents), Hidden: hidden, Submit: "Download CSV",
		Columns: columnOptions(export.EventColumns(analytics.Event(d.event))), TestID: "events-export",
		Note: "Every " + strings.TrimSuffix(d.event, "s") + " event of this period and these filters, newest first."}
	if !ws.Plan.AtLeast(models.PlanPro) {
		an.Disabled = "Analytics downloads need the Pro plan or higher. Change the plan in Settings."
	}
	if !ws.Plan.AtLeast(models.PlanBusiness) {
		ev.Disabled = "Event downloads need the Business plan or higher. Change the plan in Settings."
	}
	return an, ev
}

// dashboardValues are the dashboard's parameters as a download takes them
// (empty fields dropped, the dashboard's default window).
func dashboardValues(c *fiber.Ctx) url.Values {
	return newDashboard("", request.QueryValues(c), "", true).vals
}

// ExportAnalytics downloads the dashboard's analytics as upstream's zip
// (GET /console/analytics/export).
func (h *Handlers) ExportAnalytics(c *fiber.Ctx) error {
	ws := viewer(c).Workspace
	if err := ws.RequirePlan(models.PlanPro); err != nil {
		return apierr.New(apierr.Forbidden, "Analytics downloads need the Pro plan or higher.")
	}
	d, err := export.Analytics(c.UserContext(), analytics.WithFolderAccess(h.Deps.Analytics, h.folderReader(c)), ws, dashboardValues(c), h.Now())
	if err != nil {
		return err
	}
	return render.Download(c, d)
}

// ExportEvents downloads the dashboard's events as CSV with the checked
// columns (GET /console/events/export).
func (h *Handlers) ExportEvents(c *fiber.Ctx) error {
	ws := viewer(c).Workspace
	if !ws.Plan.AtLeast(models.PlanBusiness) {
		return apierr.New(apierr.Forbidden, "Event downloads need the Business plan or higher.")
	}
	vals := dashboardValues(c)
	if cols := columnsParam(c); cols != "" {
		vals.Set("columns", cols)
	} else {
		vals.Del("columns")
	}
	d, err := export.Events(c.UserContext(), analytics.WithFolderAccess(h.Deps.Analytics, h.folderReader(c)), ws, vals, h.Now())
	if err != nil {
		return err
	}
	return render.Download(c, d)
}
