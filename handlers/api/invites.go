package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/wire"
)

// GetInvite answers GET /invites/{token}: the invite behind a console invite
// link, for clients that accept invites over the API. The token is the
// credential (no API key). An expired invite is 410 invite_expired, an
// unknown token 404 not_found.
func (h *Handlers) GetInvite(c *fiber.Ctx) error {
	inv, w, err := h.DB.InviteByToken(c.UserContext(), c.Params("token"), h.Now())
	if err != nil {
		return err
	}
	return c.JSON(wire.InviteOf(inv, w))
}
