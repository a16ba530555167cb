package handlers

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/handlers/console"
	"github.com/relinkhq/relink/models"
)

// programRoutes are the partner-program operations of spec/parity.md §2-§7:
// manual commissions, bulk status changes, payouts, applications, bans and
// bounty submissions. Upstream declares no scope on them, so any valid key
// of the workspace passes the scope gate (spec/parity.md §0.1); the changes need
// the owner or member role, as upstream's requiredRoles.
func (s *Server) programRoutes(h *api.Handlers) {
	a := s.api
	biz := s.plan(models.PlanBusiness)
	writers := s.writers()
	a.Post("/commissions", s.key(""), writers, biz, h.CreateCommission)
	a.Patch("/commissions/bulk", s.key(""), writers, h.BulkUpdateCommissions)
	a.Get("/payouts", s.key(""), h.ListPayouts)
	a.Post("/partners/ban", s.key(""), writers, biz, h.BanPartner)
	a.Post("/partners/deactivate", s.key(""), writers, biz, h.DeactivatePartner)
	a.Get("/partners/applications", s.key(""), biz, h.ListApplications)
	a.Post("/partners/applications/approve", s.key(""), writers, biz, h.ApproveApplication)
	a.Post("/partners/applications/reject", s.key(""), writers, biz, h.RejectApplication)
	a.Get("/bounties/:bountyId/submissions", s.key(""), biz, h.ListBountySubmissions)
	a.Post("/bounties/:bountyId/submissions/:submissionId/approve", s.key(""), writers, biz, h.ApproveBountySubmission)
	a.Post("/bounties/:bountyId/submissions/:submissionId/reject", s.key(""), writers, biz, h.RejectBountySubmission)
}

// programConsoleRoutes are the console pages of the same operations, and the
// public application page (/apply/<program slug>) on the app origin.
func (s *Server) programConsoleRoutes(h *console.Handlers, u fiber.Router) {
	s.app.Get("/apply/:slug", h.ApplyForm)
	s.app.Post("/apply/:slug", s.limitIP("apply", 3, time.Minute, "Too many requests. Please try again later."), h.Apply)
	u.Get("/applications", h.Applications)
	u.Post("/applications/open", h.RequireOwner, h.SetApplicationsOpen)
	u.Post("/applications/:id", h.RequireOwner, h.ReviewApplication)
	u.Get("/payouts", h.Payouts)
	u.Get("/payouts.csv", h.PayoutsCSV)
	u.Post("/payouts/confirm", h.RequireOwner, h.ConfirmPayouts)
	u.Post("/payouts/:id", h.RequireOwner, h.SetPayoutStatus)
	u.Get("/bounties", h.Bounties)
	u.Post("/bounties", h.RequireOwner, h.CreateBounty)
	u.Post("/bounties/edit", h.RequireOwner, h.EditBounty)
	u.Post("/bounties/:bounty/submissions/:id", h.RequireOwner, h.ReviewSubmission)
}
