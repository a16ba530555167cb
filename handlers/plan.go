package handlers

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
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

// usageMessage is upstream's limit message, with the self-hosted remedy.
func usageMessage(limit int64, what string, plan models.Plan) string {
	return fmt.Sprintf("You've reached your monthly limit of %d %s on the %s plan. %s", limit, what, planName(plan), upgradeHint)
}

const upgradeHint = "Ask your Relink administrator to move the workspace to a higher plan for higher limits."

// planName is a plan as upstream's messages write it ("Free").
func planName(p models.Plan) string {
	if p == "" {
		return ""
	}
	return strings.ToUpper(string(p[:1])) + string(p[1:])
}

// paidAnalytics is spec/analytics.md §1.1's paid-plan gate of /analytics; it
// must follow key() and precede eventUsage.
func (s *Server) paidAnalytics(c *fiber.Ctx) error {
	if !request.Workspace(c).Plan.AtLeast(models.PlanPro) {
		return apierr.New(apierr.Forbidden, "Analytics API is only available on paid plans.")
	}
	return c.Next()
}

// eventUsage is spec/analytics.md §1.1 gate 8: with usage limits on
// (RELINK_USAGE_LIMITS=plan), a workspace whose events this month exceed
// its plan's limit gets 403 forbidden from /analytics and /events. Clicks
// are still recorded; only reading them is gated. It must follow key() and
// the plan gates (paidAnalytics, plan).
func (s *Server) eventUsage(c *fiber.Ctx) error {
	if !s.svc.Config.UsageLimits {
		return c.Next()
	}
	w := request.Workspace(c)
	limit := models.PlanLimits(w.Plan).Events
	if limit == 0 {
		return c.Next()
	}
	used, err := s.svc.EventUsage(c.UserContext(), w.ID, models.UsagePeriodStart(s.svc.Now()))
	if err != nil {
		return err
	}
	if used > limit {
		return apierr.New(apierr.Forbidden, usageMessage(limit, "clicks", w.Plan))
	}
	return c.Next()
}

// linksUsage gates link creation (spec/links.md §4.7 and §5.9) with usage limits
// on: a workspace that created its plan's monthly number of links gets 403
// forbidden from POST /links; POST /links/bulk is refused as well when the
// body's links would take it over the limit. Upstream answers the second
// case with exceeded_limit, which the SDKs' 403 schema rejects, so Relink
// sends forbidden for both (spec/links.md §3 "Recommend": a deliberate choice
// for typed SDK errors).
func (s *Server) linksUsage(c *fiber.Ctx) error {
	if !s.svc.Config.UsageLimits {
		return c.Next()
	}
	w := request.Workspace(c)
	limit := models.PlanLimits(w.Plan).Links
	if limit == 0 {
		return c.Next()
	}
	used, err := s.svc.DB.LinksUsage(c.UserContext(), w.ID, models.UsagePeriodStart(s.svc.Now()))
	if err != nil {
		return err
	}
	if used >= limit {
		return apierr.New(apierr.Forbidden, usageMessage(limit, "links", w.Plan))
	}
	if strings.HasSuffix(c.Path(), "/bulk") {
		// Only the count matters here; a malformed body is the handler's
		// 422 to report.
		var items []json.RawMessage
		if json.Unmarshal(c.Body(), &items) == nil && used+int64(len(items)) > limit {
			return apierr.New(apierr.Forbidden, fmt.Sprintf("You can create %d more links this month on the %s plan, and this request has %d. %s",
				limit-used, planName(w.Plan), len(items), upgradeHint))
		}
	}
	return c.Next()
}
