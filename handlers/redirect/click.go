package redirect

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/shortlink"
)

// clickID is the dub_id cookie's id when it looks like one, else a new id
// (spec/links.md §10.4).
func clickID(c *fiber.Ctx, cookieName string) string {
	id := c.Cookies(cookieName)
	if id == "" || len(id) > 64 {
		return ids.Click()
	}
	return strings.Clone(id)
}

// record hands the click to the pipeline; every string is copied because
// Fiber reuses its buffers after the handler returns.
func (h *Handlers) record(c *fiber.Ctx, t *shortlink.Target, v shortlink.Visit, final string, now time.Time) {
	if h.Clicks == nil {
		return
	}
	qr := string(c.Request().URI().QueryArgs().Peek("qr")) == "1"
	h.Clicks.Enqueue(ingest.Hit{
		ClickID: v.ClickID, LinkID: t.ID, WorkspaceID: t.WorkspaceID, Domain: t.Domain, Key: t.Key,
		URL: final, Time: now, IP: v.IP, UA: strings.Clone(v.UA),
		Referer: string(c.Request().Header.Referer()), QR: qr, Geo: h.geoHint(c), Bot: v.Bot,
	})
}

func (h *Handlers) ip(c *fiber.Ctx) string {
	if h.ClientIP != nil {
		return h.ClientIP(c)
	}
	return c.Context().RemoteIP().String()
}

// geoHint copies the geo headers, but only from a trusted proxy.
func (h *Handlers) geoHint(c *fiber.Ctx) geo.Hint {
	if h.TrustedProxy == nil || !h.TrustedProxy(c) {
		return geo.Hint{}
	}
	hint := h.Headers.FromHeaders(func(k string) string { return string(c.Request().Header.Peek(k)) })
	return hint
}
