package embed

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/internal/wire/dubjson"
)

// The JSON data API of §6.7, served under /api/embed/referrals on the app
// origin (and /embed/referrals on the API origin). Every route runs behind
// Auth.

// Token answers GET /api/embed/referrals/token: the token as a JSON string,
// a validity probe.
func (h *Handlers) Token(c *fiber.Ctx) error {
	return c.JSON(BearerToken(c))
}

// ListLinks answers GET /api/embed/referrals/links, sorted by sale amount,
// leads, clicks.
func (h *Handlers) ListLinks(c *fiber.Ctx) error {
	sess := session(c)
	if err := sess.RequireGroup(); err != nil {
		return err
	}
	links, err := h.Referrals.Links(c.UserContext(), sess)
	if err != nil {
		return err
	}
	referrals.SortLinks(links)
	return c.JSON(links)
}

// CreateLink answers POST /api/embed/referrals/links (201).
func (h *Handlers) CreateLink(c *fiber.Ctx) error {
	var in referrals.LinkWrite
	if err := input.BindJSON(c.Body(), &in); err != nil {
		return err
	}
	l, err := h.Referrals.CreateLink(c.UserContext(), session(c), in)
	if err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(l)
}

// UpdateLink answers PATCH /api/embed/referrals/links/:linkId.
func (h *Handlers) UpdateLink(c *fiber.Ctx) error {
	var in referrals.LinkWrite
	if err := input.BindJSON(c.Body(), &in); err != nil {
		return err
	}
	l, err := h.Referrals.UpdateLink(c.UserContext(), session(c), c.Params("linkId"), in)
	if err != nil {
		return err
	}
	return c.JSON(l)
}

// ListEarnings answers GET /api/embed/referrals/earnings: page (1),
// pageSize (100, ≤100), interval (default 30d), withTotal.
func (h *Handlers) ListEarnings(c *fiber.Ctx) error {
	sess := session(c)
	if err := sess.RequireGroup(); err != nil {
		return err
	}
	page, _ := strconv.Atoi(c.Query("page", "1"))
	size, _ := strconv.Atoi(c.Query("pageSize", "100"))
	rows, total, err := h.Referrals.EarningsPage(c.UserContext(), sess, referrals.EarningsQuery{
		Page: page, PageSize: size, Interval: c.Query("interval", "30d"),
	})
	if err != nil {
		return err
	}
	out := make([]wire.Earnings, len(rows))
	for i, r := range rows {
		out[i] = wire.EarningsOf(r)
	}
	if c.Query("withTotal") == "true" {
		return c.JSON(fiber.Map{"data": out, "total": total})
	}
	return c.JSON(out)
}

// ListLeaderboard answers GET /api/embed/referrals/leaderboard.
func (h *Handlers) ListLeaderboard(c *fiber.Ctx) error {
	sess := session(c)
	if err := sess.RequireGroup(); err != nil {
		return err
	}
	rows, err := h.Referrals.Leaderboard(c.UserContext(), sess)
	if err != nil {
		return err
	}
	return c.JSON(rows)
}

// Analytics answers GET /api/embed/referrals/analytics for the partner's
// links only: groupBy count (default) or timeseries; [] without links.
func (h *Handlers) Analytics(c *fiber.Ctx) error {
	sess := session(c)
	if err := sess.RequireGroup(); err != nil {
		return err
	}
	links, err := h.Referrals.Links(c.UserContext(), sess)
	if err != nil {
		return err
	}
	if len(links) == 0 {
		return c.JSON([]any{})
	}
	interval := c.Query("interval", "30d")
	groupBy := c.Query("groupBy", "count")
	if groupBy != "timeseries" {
		groupBy = "count"
	}
	res, err := h.Referrals.Conversions.PartnerAnalytics(c.UserContext(), sess.Workspace, conversions.AnalyticsQuery{
		PartnerSelector: conversions.PartnerSelector{PartnerID: sess.Partner.ID}, GroupBy: groupBy, Interval: interval,
	})
	if err != nil {
		return err
	}
	if groupBy == "count" {
		r := res.Count
		return c.JSON(fiber.Map{"clicks": r.Clicks, "leads": r.Leads, "sales": r.Sales, "saleAmount": r.SaleAmount})
	}
	out := make([]wire.EmbedAnalyticsRow, len(res.Timeseries))
	for i, r := range res.Timeseries {
		out[i] = wire.EmbedAnalyticsRow{Start: wire.Timestamp(r.Start), Clicks: r.Clicks, Leads: r.Leads, Sales: r.Sales, SaleAmount: r.SaleAmount}
	}
	return c.JSON(out)
}

// Events answers GET /api/embed/referrals/events: the events of the
// partner's links, without IP addresses, customers reduced to {id, email
// (masked), name}; [] when the partner has no links. The referrals service
// redacts (referrals.PartnerEvent has no IP field); this writes Dub's JSON.
func (h *Handlers) Events(c *fiber.Ctx) error {
	sess := session(c)
	if err := sess.RequireGroup(); err != nil {
		return err
	}
	raw, _ := url.ParseQuery(string(c.Request().URI().QueryString()))
	evs, err := h.Referrals.Events(c.UserContext(), sess, raw)
	if err != nil {
		return err
	}
	return c.JSON(dubjson.PartnerEvents(sess.Workspace, evs))
}

// EarningsTimeseries answers GET /api/embed/referrals/earnings/timeseries:
// the token's partner's sale commission earnings (status pending, processed
// or paid; §3.6) per bucket, zero-filled.
//
// Query: interval (24h 7d 30d 90d 1y mtd qtd ytd all; default 30d), start
// and end (ISO; win over interval), timezone (IANA; buckets aligned in it),
// linkId (one of the partner's links; another id is 404), groupBy=linkId
// (adds data: {linkId: cents} with every link). Unknown keys are ignored.
// Answers [{start, earnings}] (and groupBy, data when grouped).
func (h *Handlers) EarningsTimeseries(c *fiber.Ctx) error {
	sess := session(c)
	var q conversions.EarningsQuery
	var err error
	if q.Interval, q.Start, q.End, q.Location, err = request.ParseWindow(c, "30d"); err != nil {
		return err
	}
	switch g := c.Query("groupBy"); g {
	case "":
	case "linkId":
		q.GroupByLink = true
	default:
		return apierr.Validation("invalid_value", "groupBy", `Invalid option: expected one of "linkId"`)
	}
	q.LinkID = c.Query("linkId")
	series, err := h.Referrals.EarningsSeries(c.UserContext(), sess, q)
	if err != nil {
		return err
	}
	out := make([]wire.EarningsBucket, len(series))
	for i, b := range series {
		out[i] = wire.EarningsBucket{Start: wire.Timestamp(b.Start), Earnings: b.Earnings}
		if q.GroupByLink {
			out[i].GroupBy, out[i].Data = "linkId", b.ByLink
		}
	}
	return c.JSON(out)
}
