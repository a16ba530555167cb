package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/wire"
)

func countJSON(r conversions.AnalyticsRow) wire.PartnerCount {
	return wire.PartnerCount{Clicks: r.Clicks, Leads: r.Leads, Sales: r.Sales, SaleAmount: r.SaleAmount, Earnings: r.Earnings}
}

// parseWindow reads interval (default all), start, end and timezone.
func parseWindow(c *fiber.Ctx) (interval string, start, end *time.Time, loc *time.Location, err error) {
	return request.ParseWindow(c, "all")
}

var analyticsGroupBys = []string{"count", "timeseries", "top_links"}

// PartnerAnalytics answers GET /partners/analytics (§3.6).
func (h *Handlers) PartnerAnalytics(c *fiber.Ctx) error {
	q := conversions.AnalyticsQuery{
		PartnerSelector: conversions.PartnerSelector{PartnerID: c.Query("partnerId"), TenantID: c.Query("tenantId")},
		GroupBy:         c.Query("groupBy", "count"),
	}
	if !contains(analyticsGroupBys, q.GroupBy) {
		return apierr.Validation("invalid_value", "groupBy", "Invalid option: expected one of "+request.Options(analyticsGroupBys))
	}
	var err error
	if q.Interval, q.Start, q.End, q.Location, err = parseWindow(c); err != nil {
		return err
	}
	r, err := h.Conversions.PartnerAnalytics(c.UserContext(), request.Workspace(c), q)
	if err != nil {
		return err
	}
	switch q.GroupBy {
	case "timeseries":
		out := make([]wire.PartnerTimeseries, len(r.Timeseries))
		for i, row := range r.Timeseries {
			out[i] = wire.PartnerTimeseries{Start: wire.Timestamp(row.Start), PartnerCount: countJSON(row)}
		}
		return c.JSON(out)
	case "top_links":
		out := make([]wire.PartnerTopLink, len(r.TopLinks))
		for i := range r.TopLinks {
			t := &r.TopLinks[i]
			out[i] = h.Links.Wire.PartnerTopLink(&t.Link, countJSON(t.AnalyticsRow))
		}
		return c.JSON(out)
	}
	return c.JSON(countJSON(r.Count))
}
