package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/qr"
)

// QRCORS sets the CORS headers /qr carries on every answer (links.md §9).
func QRCORS(c *fiber.Ctx) error {
	c.Set("Access-Control-Allow-Origin", "*")
	c.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	if c.Method() == fiber.MethodOptions {
		return c.SendStatus(fiber.StatusNoContent)
	}
	return c.Next()
}

// QRCode answers GET /qr with a PNG. No key is needed; a bearer token is
// ignored. The logo parameter is accepted and not drawn.
func (h *Handlers) QRCode(c *fiber.Ctx) error {
	p, err := qr.Parse(func(k string) string { return Query(c, k) }, func(s string) (string, bool) {
		u := links.URLify(s)
		return u, links.ValidURL(u)
	})
	if err != nil {
		return err
	}
	png, err := qr.PNG(p)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "image/png")
	c.Set(fiber.HeaderCacheControl, "public, max-age=86400")
	return c.Send(png)
}
