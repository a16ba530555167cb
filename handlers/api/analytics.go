package api

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// queryValues reads the raw query string (a repeated key's last value wins
// in analytics.Parse; undecodable pairs are skipped).
func queryValues(c *fiber.Ctx) url.Values {
	v, _ := url.ParseQuery(string(c.Request().URI().QueryString()))
	return v
}

// GetAnalytics serves GET /analytics (analytics.md §4).
func (h *Handlers) GetAnalytics(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	if !ws.Plan.AtLeast(models.PlanPro) {
		return apierr.New(apierr.Forbidden, "Analytics API is only available on paid plans.")
	}
	q, err := analytics.Parse(queryValues(c), analytics.EndpointAnalytics, h.Now())
	if err != nil {
		return err
	}
	res, err := h.Analytics.Analytics(c.UserContext(), ws, q)
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// ListEvents serves GET /events (analytics.md §6).
func (h *Handlers) ListEvents(c *fiber.Ctx) error {
	q, err := analytics.Parse(queryValues(c), analytics.EndpointEvents, h.Now())
	if err != nil {
		return err
	}
	res, err := h.Analytics.Events(c.UserContext(), request.Workspace(c), q)
	if err != nil {
		return err
	}
	return c.JSON(res)
}
