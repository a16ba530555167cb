package api

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/qr"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/models"
)

// QRCORS sets the CORS headers /qr carries on every answer (spec/links.md §9).
func QRCORS(c *fiber.Ctx) error {
	c.Set("Access-Control-Allow-Origin", "*")
	c.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	if c.Method() == fiber.MethodOptions {
		return c.SendStatus(fiber.StatusNoContent)
	}
	return c.Next()
}

// QRCode answers GET /qr with a PNG. No key is needed; a bearer token is
// ignored. A logo is drawn per qrLogo; one that cannot be loaded leaves the
// code without a logo (a code that scans beats an error), says why in the
// X-Relink-Logo-Error header and logs it.
func (h *Handlers) QRCode(c *fiber.Ctx) error {
	p, err := qr.Parse(func(k string) string { return Query(c, k) }, func(s string) (string, bool) {
		u := links.URLify(s)
		return u, links.ValidURL(u)
	})
	if err != nil {
		return err
	}
	if ref, err := h.qrLogo(c.UserContext(), p); err != nil {
		return err
	} else if ref != "" && h.Logos != nil {
		img, err := h.Logos.Load(c.UserContext(), ref)
		if err != nil {
			slog.Warn("qr logo not drawn", "url", p.URL, "err", err)
			c.Set("X-Relink-Logo-Error", err.Error())
		}
		p.LogoImage = img
	}
	png, err := qr.PNG(p)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "image/png")
	c.Set(fiber.HeaderCacheControl, "public, max-age=86400")
	return c.Send(png)
}

// qrLogo picks the logo for a code (spec/links.md §9's rules, with no house logo:
// a self-hosted Relink brands nobody's codes). The URL before its query is
// looked up as a short link; there is a logo only when it is one of ours, in
// a paid workspace, and hideLogo is not set: the logo parameter when given,
// else the link's domain's logo.
func (h *Handlers) qrLogo(ctx context.Context, p *qr.Params) (string, error) {
	if p.HideLogo || h.DB == nil {
		return "", nil
	}
	u, err := url.Parse(p.URL)
	if err != nil || u.Host == "" {
		return "", nil
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	key := shortlink.LookupKey(u.Path)
	l, err := h.DB.LinkByDomainKey(ctx, host, key)
	if models.IsNotFound(err) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	ws, err := h.DB.WorkspaceByID(ctx, l.WorkspaceID)
	if err != nil {
		return "", err
	}
	if ws.Plan == models.PlanFree {
		return "", nil
	}
	if p.Logo != "" {
		return p.Logo, nil
	}
	d, err := h.DB.DomainByName(ctx, l.Domain)
	if models.IsNotFound(err) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	if d.Logo != nil && d.WorkspaceID == l.WorkspaceID {
		return *d.Logo, nil
	}
	return "", nil
}
