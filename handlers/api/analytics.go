package api

import (
	"context"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/wire/dubjson"
)

// GetAnalytics serves GET /analytics (spec/analytics.md §4); the routes put the
// paid-plan and usage gates in front of it.
func (h *Handlers) GetAnalytics(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	q, err := analytics.Parse(request.QueryValues(c), analytics.EndpointAnalytics, h.Now())
	if err != nil {
		return err
	}
	q.FolderAccess = h.folderReader(c)
	res, err := h.Analytics.Analytics(c.UserContext(), ws, q)
	if err != nil {
		return err
	}
	b, err := dubjson.AnalyticsJSON(res)
	return sendJSON(c, b, err)
}

// ListEvents serves GET /events (spec/analytics.md §6).
func (h *Handlers) ListEvents(c *fiber.Ctx) error {
	q, err := analytics.Parse(request.QueryValues(c), analytics.EndpointEvents, h.Now())
	if err != nil {
		return err
	}
	ws := request.Workspace(c)
	q.FolderAccess = h.folderReader(c)
	res, err := h.Analytics.Events(c.UserContext(), ws, q)
	if err != nil {
		return err
	}
	b, err := dubjson.Marshal(dubjson.Events(ws, res))
	return sendJSON(c, b, err)
}

// legacyGroupBy maps the old endpoint names of /analytics/{a}/{b}
// (spec/analytics.md §8) to groupBy values.
var legacyGroupBy = map[string]string{
	"clicks": "count", "count": "count", "timeseries": "timeseries", "countries": "countries",
	"country": "countries", "cities": "cities", "city": "cities", "devices": "devices", "device": "devices",
	"browsers": "browsers", "browser": "browsers", "os": "os", "triggers": "triggers", "trigger": "triggers",
	"referers": "referers", "referer": "referers", "top_links": "top_links", "top_urls": "top_urls",
}

func invalidLegacy() error {
	return apierr.Validation("invalid_value", "groupBy", "Invalid type value. Valid values are: count, timeseries, countries, cities, devices, browsers, os, triggers, referers, top_links, top_urls.")
}

// GetAnalyticsLegacy serves /analytics/{a} and /analytics/{a}/{b}: path
// values override event and groupBy; some forms answer a bare number.
func (h *Handlers) GetAnalyticsLegacy(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	vals := request.QueryValues(c)
	a, b := c.Params("a"), c.Params("b")
	bare := false
	switch a {
	case "clicks", "leads", "sales", "composite":
		vals.Set("event", a)
		bare = a == "clicks"
	default:
		g, ok := legacyGroupBy[a]
		if !ok {
			return invalidLegacy()
		}
		vals.Set("groupBy", g)
		bare = g == "count"
	}
	if b != "" {
		g, ok := legacyGroupBy[b]
		if !ok {
			return invalidLegacy()
		}
		vals.Set("groupBy", g)
		bare = bare || g == "count"
	}
	q, err := analytics.Parse(vals, analytics.EndpointAnalytics, h.Now())
	if err != nil {
		return err
	}
	q.FolderAccess = h.folderReader(c)
	res, err := h.Analytics.Analytics(c.UserContext(), ws, q)
	if err != nil {
		return err
	}
	if cnt := res.Total; res.GroupBy == analytics.Count && bare {
		switch q.Event {
		case analytics.Leads:
			return c.JSON(cnt.Leads)
		case analytics.Sales:
			return c.JSON(cnt.Sales)
		}
		return c.JSON(cnt.Clicks)
	}
	out, err := dubjson.AnalyticsJSON(res)
	return sendJSON(c, out, err)
}

// folderReader is the analytics folder check for the request's key user.
func (h *Handlers) folderReader(c *fiber.Ctx) func(context.Context, string) error {
	return request.FolderReader(h.Links, actor(c))
}

// sendJSON writes an answer encoded by dubjson (json.Marshal's bytes,
// without reflection over thousands of rows) as c.JSON would.
func sendJSON(c *fiber.Ctx, b []byte, err error) error {
	if err != nil {
		return fmt.Errorf("encode analytics answer: %w", err)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}
