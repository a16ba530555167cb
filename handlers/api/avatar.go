package api

import (
	"crypto/sha256"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
)

// AvatarPath is where Avatar is served (spec/parity.md §8.7 points at Dub's own
// https://api.dub.co/og/avatar/<id>; a self-hosted server links its own).
const AvatarPath = request.AvatarPath

// Avatar answers GET /og/avatar/{seed} with a deterministic gradient disc
// (SVG): the same seed always gives the same picture.
func Avatar(c *fiber.Ctx) error {
	sum := sha256.Sum256([]byte(c.Params("seed")))
	h1 := int(sum[0]) * 360 / 256
	h2 := (h1 + 40 + int(sum[1])%80) % 360
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">`+
		`<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">`+
		`<stop offset="0" stop-color="hsl(%d,70%%,60%%)"/><stop offset="1" stop-color="hsl(%d,70%%,45%%)"/>`+
		`</linearGradient></defs><circle cx="32" cy="32" r="32" fill="url(#g)"/></svg>`, h1, h2)
	c.Set(fiber.HeaderContentType, "image/svg+xml")
	c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	c.Set("Access-Control-Allow-Origin", "*")
	return c.SendString(svg)
}
