package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/wire"
)

// inviteJSON is what an invite link's token reveals: which workspace, for
// which address, with which role, until when.
type inviteJSON struct {
	Email     string         `json:"email"`
	Role      string         `json:"role"`
	ExpiresAt string         `json:"expiresAt"`
	Workspace wire.Workspace `json:"workspace"`
}

// GetInvite answers GET /invites/{token}: the invite behind a console invite
// link, for clients that accept invites over the API. The token is the
// credential (no API key). An expired invite is 410 invite_expired, an
// unknown token 404 not_found.
func (h *Handlers) GetInvite(c *fiber.Ctx) error {
	inv, w, err := h.DB.InviteByToken(c.UserContext(), c.Params("token"), h.Now())
	if err != nil {
		return err
	}
	return c.JSON(inviteJSON{Email: inv.Email, Role: string(inv.Role), ExpiresAt: request.Timestamp(inv.ExpiresAt), Workspace: wire.WorkspaceOf(w)})
}
