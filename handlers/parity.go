package handlers

import (
	"time"

	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/handlers/redirect"
	"github.com/relinkhq/relink/models"
)

// parityRoutes are the single operations of spec/parity.md §10-§12 that take an
// API key (or none). They are registered before /domains/:slug, so
// "status" and "register" are never taken for a slug.
func (s *Server) parityRoutes(h *api.Handlers) {
	a := s.api
	writers := s.writers()
	a.Post("/customers", s.key(""), writers, s.plan(models.PlanBusiness), h.CreateCustomer)
	a.Get("/domains/status", s.key("domains.read"), s.plan(models.PlanEnterprise), h.DomainStatus)
	a.Post("/domains/register", s.key("domains.write"), s.plan(models.PlanEnterprise), h.RegisterDomain)
	a.Post("/domains/:slug/primary", s.key("domains.write"), h.SetPrimaryDomain)
	// Discount codes (§8): any role lists, owners and members write.
	biz := s.plan(models.PlanBusiness)
	a.Get("/discount-codes", s.key(""), biz, h.ListDiscountCodes)
	a.Post("/discount-codes", s.key(""), writers, biz, h.CreateDiscountCode)
	a.Delete("/discount-codes/:idOrCode", s.key(""), writers, biz, h.DeleteDiscountCode)
	// Link previews (§12): no key; 10 a second per IP, as upstream.
	a.Get("/links/metatags", s.limitIP("metatags", 10, 10*time.Second, "Don't DDoS me pls 🥺"), h.Metatags)
}

// trackOpenRoutes is POST /track/open (§9): public, CORS as /track/click,
// limited per IP like it (upstream has no limit; each call may record a
// click). It shares the redirect handlers' app-store click memory.
func (s *Server) trackOpenRoutes(rd *redirect.Handlers) {
	a := s.api
	a.Options("/track/open", redirect.TrackCORS)
	a.Post("/track/open", redirect.TrackCORS, s.limitIP("track-open", 600, time.Minute, "Too many requests."), rd.TrackOpen)
}
