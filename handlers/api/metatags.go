package api

import (
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/metatags"
)

// poweredBy ends every metatags answer, as upstream's does.
const poweredBy = "Dub - The Modern Link Attribution Platform"

type metatagsJSON struct {
	metatags.Tags
	PoweredBy string `json:"poweredBy"`
}

// parseMetatagsURL validates GET /links/metatags?url= (spec/parity.md §12).
func parseMetatagsURL(c *fiber.Ctx) (string, error) {
	if !c.Context().QueryArgs().Has("url") {
		return "", apierr.Validation("invalid_type", "url", "Invalid input: expected string, received null")
	}
	raw := Query(c, "url")
	if utf8.RuneCountInString(raw) > 32000 {
		return "", apierr.Validation("too_big", "url", "Must be 32000 or fewer characters long.")
	}
	u := links.URLify(raw)
	if !links.ValidURL(u) {
		return "", apierr.Validation("custom", "url", "Invalid URL")
	}
	return u, nil
}

// Metatags answers GET /links/metatags: the page's title, description and
// preview image, fetched under RELINK_METATAGS_FETCH's address rule. A page
// that cannot be read gives the answer built from its URL (200), never an
// error. No authentication; the route is rate-limited per IP.
func (h *Handlers) Metatags(c *fiber.Ctx) error {
	c.Set("Access-Control-Allow-Methods", "GET")
	c.Set("Access-Control-Allow-Headers", "Content-Type")
	u, err := parseMetatagsURL(c)
	if err != nil {
		return err
	}
	tags := h.Pages.Get(c.UserContext(), u)
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	return c.JSON(metatagsJSON{Tags: tags, PoweredBy: poweredBy})
}
