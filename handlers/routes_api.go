package handlers

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/handlers/redirect"
	"github.com/relinkhq/relink/models"
)

// linkRoutes: workspaces, links, domains, tags, folders, QR (spec/links.md §5-9).
func (s *Server) linkRoutes(h *api.Handlers) {
	a := s.api
	a.Get("/workspaces/:idOrSlug", s.key("workspaces.read"), h.GetWorkspace)
	a.Patch("/workspaces/:idOrSlug", s.key("workspaces.write"), h.UpdateWorkspace)
	a.Get("/invites/:token", h.GetInvite) // console invite links (issue 7); the token is the credential

	s.parityRoutes(h) // before /links/:linkId and /domains/:slug
	// Fixed paths before /links/:linkId.
	a.Get("/links/info", s.key("links.read"), h.LinkInfo)
	a.Get("/links/count", s.key("links.read"), h.CountLinks)
	a.Get("/links/export", s.key("links.read"), h.ExportLinks)
	a.Put("/links/upsert", s.key("links.write"), h.UpsertLink)
	a.Post("/links/bulk", s.key("links.write"), s.linksUsage, h.BulkCreateLinks)
	a.Patch("/links/bulk", s.key("links.write"), h.BulkUpdateLinks)
	a.Delete("/links/bulk", s.key("links.write"), h.BulkDeleteLinks)
	a.Get("/links", s.key("links.read"), h.ListLinks)
	a.Post("/links", s.key("links.write"), s.linksUsage, h.CreateLink)
	a.Get("/links/:linkId", s.key("links.read"), h.GetLink)
	a.Patch("/links/:linkId", s.key("links.write"), h.UpdateLink)
	a.Put("/links/:linkId", s.key("links.write"), h.UpdateLink)
	a.Delete("/links/:linkId", s.key("links.write"), h.DeleteLink)
	a.Get("/domains/default", s.key("domains.read"), h.DefaultDomains)
	a.Get("/domains", s.key("domains.read"), h.ListDomains)
	a.Post("/domains", s.key("domains.write"), h.CreateDomain)
	a.Get("/domains/:slug", s.key("domains.read"), h.GetDomain)
	a.Get("/domains/:slug/verify", s.key("domains.read"), h.VerifyDomain)
	a.Patch("/domains/:slug", s.key("domains.write"), h.UpdateDomain)
	a.Delete("/domains/:slug", s.key("domains.write"), h.DeleteDomain)
	a.Get("/tags", s.key("tags.read"), h.ListTags)
	a.Post("/tags", s.key("tags.write"), h.CreateTag)
	a.Patch("/tags/:id", s.key("tags.write"), h.UpdateTag)
	a.Put("/tags/:id", s.key("tags.write"), h.UpdateTag)
	a.Delete("/tags/:id", s.key("tags.write"), h.DeleteTag)
	a.Get("/folders", s.key("folders.read"), h.ListFolders)
	a.Post("/folders", s.key("folders.write"), s.plan(models.PlanPro), h.CreateFolder)
	a.Get("/folders/permissions", s.key("folders.read"), s.plan(models.PlanBusiness), h.FolderPermissions)
	a.Get("/folders/:id", s.key("folders.read"), h.GetFolder)
	a.Get("/folders/:id/users", s.key("folders.read"), s.plan(models.PlanBusiness), h.FolderUsers)
	a.Patch("/folders/:id", s.key("folders.write"), s.plan(models.PlanPro), h.UpdateFolder)
	a.Delete("/folders/:id", s.key("folders.write"), s.plan(models.PlanPro), h.DeleteFolder)
	a.Get("/openapi.json", api.OpenAPI)       // the API's description (docs/openapi.md)
	a.Get(api.AvatarPath+":seed", api.Avatar) // partners without an image (spec/parity.md §8.7)
	a.Options("/qr", api.QRCORS)
	a.Get("/qr", api.QRCORS, s.limitIP("qr", 10, 10*time.Second, "Don't DDoS me pls 🥺"), h.QRCode)
}

// conversionRoutes: conversions and partner programs
// (spec/partners-and-embed.md §1-5). Tracking and customers need Business; embed
// tokens Advanced. Partner and commission routes work on the workspace's
// default program.
func (s *Server) conversionRoutes(h *api.Handlers, rd *redirect.Handlers) {
	a := s.api
	// Client-side click tracking (§1.4): public, CORS, limited per IP.
	a.Options("/track/click", redirect.TrackCORS)
	a.Post("/track/click", redirect.TrackCORS, s.limitIP("track-click", 600, time.Minute, "Too many requests."), rd.TrackClick)
	s.trackOpenRoutes(rd)
	// Site visits (Dub's /track/visit, docs/browser-script.md): the pageview
	// click of a page on a site whose short domain is configured.
	s.track = rd
	a.Options("/track/visit", redirect.TrackCORS)
	a.Post("/track/visit", redirect.TrackCORS, s.limitIP("track-visit", 600, time.Minute, "Too many requests."), rd.TrackVisit)
	// Client-side conversions (§1.5): the workspace's publishable key.
	for _, p := range []string{"/track/lead/client", "/track/sale/client"} {
		a.Options(p, redirect.TrackCORS)
	}
	a.Post("/track/lead/client", redirect.TrackCORS, s.publishableKey, h.TrackLead)
	a.Post("/track/sale/client", redirect.TrackCORS, s.publishableKey, h.TrackSale)
	a.Post("/track/lead", s.key("conversions.write"), s.writers(), s.plan(models.PlanBusiness), h.TrackLead)
	a.Post("/track/sale", s.key("conversions.write"), s.writers(), s.plan(models.PlanBusiness), h.TrackSale)
	a.Get("/customers", s.key("customers.read"), s.plan(models.PlanBusiness), h.ListCustomers)
	a.Get("/customers/:id", s.key("customers.read"), s.plan(models.PlanBusiness), h.GetCustomer)
	a.Patch("/customers/:id", s.key("customers.write"), s.writers(), s.plan(models.PlanBusiness), h.UpdateCustomer)
	a.Delete("/customers/:id", s.key("customers.write"), s.writers(), s.plan(models.PlanBusiness), h.DeleteCustomer)
	a.Post("/partners", s.key("programs.write"), s.writers(), s.plan(models.PlanBusiness), h.CreatePartner)
	a.Get("/partners", s.key("programs.read"), s.plan(models.PlanBusiness), h.ListPartners)
	a.Get("/partners/links", s.key("programs.read"), s.writers(), s.plan(models.PlanBusiness), h.ListPartnerLinks)
	a.Post("/partners/links", s.key("programs.write"), s.writers(), s.plan(models.PlanBusiness), h.CreatePartnerLink)
	a.Put("/partners/links/upsert", s.key("links.write"), s.plan(models.PlanBusiness), h.UpsertPartnerLink)
	a.Get("/partners/analytics", s.key("programs.read"), s.plan(models.PlanBusiness), h.PartnerAnalytics)
	// A partner's own analytics (docs/portal.md): the portal's session
	// cookie or a partner token, limited per client IP.
	a.Get("/partner-profile/programs/:programId/analytics",
		s.limitIP("partner-profile", 120, time.Minute, "Too many requests."), h.PartnerProfileAnalytics)
	a.Get("/commissions", s.key("programs.read"), h.ListCommissions)
	s.programRoutes(h) // before /commissions/:id: "bulk" is never an id
	// After every GET /partners/<word> route: those words are never ids.
	a.Get("/partners/:partnerId", s.key("programs.read"), s.plan(models.PlanBusiness), h.GetPartner)
	a.Patch("/commissions/:id", s.key("programs.write"), s.writers(), h.UpdateCommission)
	a.Post("/tokens/embed/referrals", s.key("links.write"), s.plan(models.PlanAdvanced), h.CreateReferralsEmbedToken)
	// A workspace's Stripe webhook endpoint (docs/stripe.md): no API key,
	// the Stripe-Signature header is the credential.
	a.Post("/stripe/webhook/:workspaceId", h.StripeWebhook)
}

// webhookRoutes: the /webhooks management API (spec/webhooks.md §2), Business
// plan and up; reads need webhooks.read, changes webhooks.write (owner keys
// only).
func (s *Server) webhookRoutes(h *api.Handlers) {
	a := s.api
	read := []fiber.Handler{s.key(""), s.webhookPerm("webhooks.read"), s.plan(models.PlanBusiness)}
	write := []fiber.Handler{s.key(""), s.webhookPerm("webhooks.write"), s.plan(models.PlanBusiness)}
	a.Get("/webhooks", append(read, h.ListWebhooks)...)
	a.Post("/webhooks", append(write, h.CreateWebhook)...)
	a.Get("/webhooks/:webhookId", append(read, h.GetWebhook)...)
	a.Patch("/webhooks/:webhookId", append(write, h.UpdateWebhook)...)
	a.Delete("/webhooks/:webhookId", append(write, h.DeleteWebhook)...)
	a.Get("/webhooks/:webhookId/links", append(read, h.WebhookLinks)...)
	a.Get("/webhooks/:webhookId/folders", append(read, h.WebhookFolders)...)
	a.Get("/webhooks/:webhookId/events", append(read, h.WebhookEvents)...)
}

// analyticsRoutes: analytics and events (spec/analytics.md; internal/analytics).
func (s *Server) analyticsRoutes(h *api.Handlers) {
	a := s.api
	a.Get("/analytics", s.key("analytics.read"), s.paidAnalytics, s.eventUsage, h.GetAnalytics)
	a.Get("/analytics/export", s.key("analytics.read"), s.paidAnalytics, s.eventUsage,
		s.limitWorkspace("analytics-export", 1, 30*time.Second, "Analytics export is limited to once every 30 seconds. Please try again shortly."), h.ExportAnalytics)
	a.Get("/analytics/:a/:b", s.key("analytics.read"), s.paidAnalytics, s.eventUsage, h.GetAnalyticsLegacy)
	a.Get("/analytics/:a", s.key("analytics.read"), s.paidAnalytics, s.eventUsage, h.GetAnalyticsLegacy)
	a.Get("/events", s.key("analytics.read"), s.plan(models.PlanBusiness), s.eventUsage, h.ListEvents)
	a.Get("/events/export", s.key("analytics.read"), s.plan(models.PlanBusiness), s.eventUsage, h.ExportEvents)
}

// Route is one route of a face: its method and Fiber path (":param", "*").
type Route struct{ Method, Path string }

// APIRoutes lists the API face's routes (HEAD and middleware left out), so a
// test can hold the OpenAPI document (GET /openapi.json) to them.
func (s *Server) APIRoutes() []Route {
	var out []Route
	seen := map[Route]bool{}
	for _, r := range s.api.GetRoutes(true) {
		rt := Route{r.Method, r.Path}
		if r.Method == fiber.MethodHead || seen[rt] {
			continue
		}
		seen[rt] = true
		out = append(out, rt)
	}
	return out
}
