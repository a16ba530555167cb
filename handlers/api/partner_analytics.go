package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
)

type analyticsCountJSON struct {
	Clicks     int64 `json:"clicks"`
	Leads      int64 `json:"leads"`
	Sales      int64 `json:"sales"`
	SaleAmount int64 `json:"saleAmount"`
	Earnings   int64 `json:"earnings"`
}

type analyticsTimeseriesJSON struct {
	Start string `json:"start"`
	analyticsCountJSON
}

type analyticsTopLinkJSON struct {
	Link      string  `json:"link"`
	ID        string  `json:"id"`
	Domain    string  `json:"domain"`
	Key       string  `json:"key"`
	ShortLink string  `json:"shortLink"`
	URL       string  `json:"url"`
	Title     *string `json:"title"`
	Comments  *string `json:"comments"`
	FolderID  *string `json:"folderId"`
	PartnerID *string `json:"partnerId"`
	CreatedAt string  `json:"createdAt"`
	analyticsCountJSON
}

func countJSON(r conversions.AnalyticsRow) analyticsCountJSON {
	return analyticsCountJSON{Clicks: r.Clicks, Leads: r.Leads, Sales: r.Sales, SaleAmount: r.SaleAmount, Earnings: r.Earnings}
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
		out := make([]analyticsTimeseriesJSON, len(r.Timeseries))
		for i, row := range r.Timeseries {
			out[i] = analyticsTimeseriesJSON{Start: request.Timestamp(row.Start), analyticsCountJSON: countJSON(row)}
		}
		return c.JSON(out)
	case "top_links":
		out := make([]analyticsTopLinkJSON, len(r.TopLinks))
		for i, t := range r.TopLinks {
			l := &t.Link
			out[i] = analyticsTopLinkJSON{Link: l.ID, ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: h.Links.Wire.LinkShort(l),
				URL: l.URL, Title: l.Title, Comments: l.Comments, FolderID: l.FolderID, PartnerID: l.PartnerID,
				CreatedAt: request.Timestamp(l.CreatedAt), analyticsCountJSON: countJSON(t.AnalyticsRow)}
		}
		return c.JSON(out)
	}
	return c.JSON(countJSON(r.Count))
}
