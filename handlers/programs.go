package handlers

import (
	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/models"
)

// programRoutes are the partner-program operations of parity.md §2-§7:
// manual commissions, bulk status changes, payouts, applications, bans and
// bounty submissions. Upstream declares no scope on them, so any valid key
// of the workspace passes the scope gate (parity.md §0.1).
func (s *Server) programRoutes(h *api.Handlers) {
	a := s.api
	biz := s.plan(models.PlanBusiness)
	a.Post("/commissions", s.key(""), biz, h.CreateCommission)
	a.Patch("/commissions/bulk", s.key(""), h.BulkUpdateCommissions)
	a.Get("/payouts", s.key(""), h.ListPayouts)
	a.Post("/partners/ban", s.key(""), biz, h.BanPartner)
	a.Post("/partners/deactivate", s.key(""), biz, h.DeactivatePartner)
}
