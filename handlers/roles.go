package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// roles gates a route on the workspace role of the user the API key acts
// as (spec/parity.md §0.1 "roles", §13.2): a key without a user (a machine key)
// acts as an owner (key() refuses a key whose user has left the workspace,
// as upstream does). It must follow key() and precede plan().
func (s *Server) roles(allowed ...models.Role) fiber.Handler {
	names := make([]string, len(allowed))
	for i, r := range allowed {
		names[i] = string(r)
	}
	msg := "You don't have the required role to access this endpoint. Required role(s): " + strings.Join(names, ", ") + "."
	return func(c *fiber.Ctx) error {
		role := keyRole(c)
		for _, r := range allowed {
			if role == r {
				return c.Next()
			}
		}
		return apierr.New(apierr.Forbidden, msg)
	}
}

// writers is upstream's requiredRoles: ["owner", "member"], the gate of
// every program, customer and conversion change (spec/parity.md §0.1).
func (s *Server) writers() fiber.Handler { return s.roles(models.RoleOwner, models.RoleMember) }

// keyRole is the workspace role of the request's key's user: a key without a
// user (a machine key) acts as an owner; key() has refused keys whose user
// left the workspace.
func keyRole(c *fiber.Ctx) models.Role {
	p := request.PrincipalOf(c)
	if p == nil || p.Key == nil || p.Key.UserRole == nil {
		return models.RoleOwner
	}
	return *p.Key.UserRole
}
