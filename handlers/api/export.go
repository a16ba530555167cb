package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/export"
	"github.com/relinkhq/relink/models"
)

// ExportLinks answers GET /links/export: the links the list's filters select
// (every folder's unless folderId names one), created between start and end
// (whole days, as upstream), as CSV with the chosen columns (internal/export).
// Upstream answers 202 and emails a file past 1,000 links; Relink streams
// every row.
func (h *Handlers) ExportLinks(c *fiber.Ctx) error {
	q, err := parseLinkQuery(c)
	if err != nil {
		return err
	}
	created, err := exportCreatedRange(c)
	if err != nil {
		return err
	}
	d, err := export.Links(c.UserContext(), h.Links, actor(c), q, created, c.Query("columns"))
	if err != nil {
		return err
	}
	return render.Download(c, d)
}

// ExportEvents answers GET /events/export: every event GET /events' filters
// select, as CSV with upstream's columns (internal/export). Upstream answers
// 202 and emails a file past 1,000 events; Relink streams every row.
func (h *Handlers) ExportEvents(c *fiber.Ctx) error {
	d, err := export.Events(c.UserContext(), analytics.WithFolderAccess(h.Analytics, h.folderReader(c)), request.Workspace(c), request.QueryValues(c), h.Now())
	if err != nil {
		return err
	}
	return render.Download(c, d)
}

// ExportAnalytics answers GET /analytics/export: upstream's zip of one CSV
// per grouping (internal/export); the routes put upstream's once-per-30-
// seconds limit in front.
func (h *Handlers) ExportAnalytics(c *fiber.Ctx) error {
	d, err := export.Analytics(c.UserContext(), analytics.WithFolderAccess(h.Analytics, h.folderReader(c)), request.Workspace(c), request.QueryValues(c), h.Now())
	if err != nil {
		return err
	}
	return render.Download(c, d)
}

// exportCreatedRange reads start and end (ISO dates or date-times) as the
// first and last day of creation, whole days in UTC as upstream.
func exportCreatedRange(c *fiber.Ctx) (models.LinkCreated, error) {
	var r models.LinkCreated
	start, err := request.ParseTime("start", c.Query("start"), time.UTC)
	if err != nil {
		return r, err
	}
	end, err := request.ParseTime("end", c.Query("end"), time.UTC)
	if err != nil {
		return r, err
	}
	if start != nil {
		s := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
		r.From = &s
	}
	if end != nil {
		e := time.Date(end.Year(), end.Month(), end.Day(), 23, 59, 59, 999_000_000, time.UTC)
		r.To = &e
	}
	if r.From != nil && r.To != nil && r.From.After(*r.To) {
		return r, apierr.New(apierr.Unprocessable, "The end date must be after the start date.")
	}
	return r, nil
}
