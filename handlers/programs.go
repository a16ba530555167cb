package handlers

import (
	"github.com/relinkhq/relink/handlers/api"
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
