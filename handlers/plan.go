package handlers

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/models"
)

func rateLimitFor(plan string, analytics bool) (int, time.Duration) {
	return ratelimit.PlanLimit(plan, analytics)
}

// plan gates a route on the workspace's plan; it must follow key().
func (s *Server) plan(min models.Plan) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := request.Workspace(c).RequirePlan(min); err != nil {
			return err
		}
		return c.Next()
	}
}
