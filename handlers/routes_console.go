package handlers

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console"
)

// consoleRoutes is the admin console (issue 7): /console/* on the app
// origin, and / sends there. Every route passes the Session middleware
// (session cookie, CSRF check on unsafe methods, frame-ancestors 'none',
// no-store); the signed-in routes also pass RequireUser, owner-only ones
// RequireOwner.
func (s *Server) consoleRoutes() {
	d := s.svc
	h := console.New(console.Deps{DB: d.DB, Config: d.Config, Now: d.Now, Logger: d.Log, Sessions: d.Sessions,
		Links: d.Links, Analytics: d.Analytics, Conversions: d.Conversions, Webhooks: d.Webhooks,
		Workspaces: d.Workspaces, DomainChecks: d.DomainChecks, Stripe: d.Stripe})
	s.app.Get("/", func(c *fiber.Ctx) error { return c.Redirect("/console", fiber.StatusFound) })
	g := s.app.Group("/console", h.Session)
	g.Get("/login", h.LoginForm)
	// Password guessing is slowed per client IP (bcrypt is slow as well).
	guard := s.limitIP("console-login", 10, 5*time.Minute, "Too many sign-in attempts from this address. Wait a few minutes and try again.")
	g.Post("/login", guard, h.Login)
	g.Post("/logout", h.Logout)
	g.Get("/invites/:token", h.Invite)
	g.Post("/invites/:token", guard, h.AcceptInvite)

	u := g.Group("", h.RequireUser)
	u.Get("/", h.Home)
	u.Post("/workspace", h.SwitchWorkspace)
	u.Get("/settings", h.Settings)
	u.Post("/logout/everywhere", h.LogoutEverywhere)
	u.Post("/settings/password", h.ChangePassword)
	u.Post("/settings", h.RequireOwner, h.SaveSettings)
	u.Post("/settings/publishable-key", h.RequireOwner, h.RotatePublishableKey)
	u.Post("/settings/privacy", h.RequireOwner, h.SavePrivacy)
	u.Get("/settings/keys", h.Keys)
	u.Post("/settings/keys", h.CreateKey)
	u.Post("/settings/keys/:id/revoke", h.RevokeKey)
	u.Get("/settings/stripe", h.StripeSettings)
	u.Post("/settings/stripe", h.RequireOwner, h.ConnectStripe)
	u.Post("/settings/stripe/disconnect", h.RequireOwner, h.DisconnectStripe)
	u.Post("/settings/stripe/trials", h.RequireOwner, h.SaveStripeTrials)
	u.Get("/webhooks", h.Webhooks)
	u.Post("/webhooks", h.RequireOwner, h.CreateWebhook)
	u.Get("/webhooks/:id", h.Webhook)
	u.Get("/webhooks/:id/log", h.WebhookLog)
	u.Post("/webhooks/:id", h.RequireOwner, h.UpdateWebhook)
	u.Post("/webhooks/:id/test", h.RequireOwner, h.SendTestWebhook)
	u.Post("/webhooks/:id/rotate", h.RequireOwner, h.RotateWebhookSecret)
	u.Post("/webhooks/:id/toggle", h.RequireOwner, h.ToggleWebhook)
	u.Post("/webhooks/:id/delete", h.RequireOwner, h.DeleteWebhook)
	u.Get("/links", h.Links)
	u.Get("/links/export", h.ExportLinks)
	u.Get("/analytics/export", h.ExportAnalytics)
	u.Get("/events/export", h.ExportEvents)
	u.Get("/import", h.Import)
	u.Post("/import", h.UploadImport)
	u.Post("/import/run", h.RunImport)
	u.Post("/import/api", h.RunAPIImport)
	u.Get("/import/progress", h.ImportProgress)
	u.Post("/links", h.CreateLink)
	u.Get("/links/:id", h.Link)
	u.Post("/links/:id", h.UpdateLink)
	u.Post("/links/:id/archive", h.ArchiveLink)
	u.Post("/links/:id/delete", h.DeleteLink)
	u.Get("/analytics", h.Analytics)
	u.Get("/program", h.Program)
	u.Post("/program", h.RequireOwner, h.CreateProgram)
	u.Post("/program/rewards", h.RequireOwner, h.SetReward)
	u.Post("/program/groups", h.RequireOwner, h.SetHoldingPeriod)
	u.Post("/program/groups/new", h.RequireOwner, h.CreateGroup)
	u.Post("/program/domain", h.RequireOwner, h.SetProgramDomain)
	u.Get("/program/discounts", h.Discounts)
	u.Post("/program/discounts", h.RequireOwner, h.SetGroupDiscount)
	u.Post("/program/discount-codes", h.RequireOwner, h.CreateDiscountCode)
	u.Post("/program/discount-codes/:id/delete", h.RequireOwner, h.DeleteDiscountCode)
	u.Get("/partners", h.Partners)
	u.Post("/partners", h.RequireOwner, h.Enroll)
	u.Get("/partners/:id", h.Partner)
	u.Post("/partners/:id/status", h.RequireOwner, h.SetPartnerStatus)
	u.Get("/commissions", h.Commissions)
	u.Post("/commissions/:id/status", h.RequireOwner, h.SetCommissionStatus)
	u.Get("/customers", h.Customers)
	u.Get("/domains", h.Domains)
	u.Post("/domains", h.CreateDomain)
	u.Post("/domains/:id/delete", h.DeleteDomain)
	u.Post("/domains/:id/verify", h.VerifyDomain)
	u.Post("/domains/:id/logo", h.SetDomainLogo)
	u.Post("/domains/:id/logo/delete", h.RemoveDomainLogo)
	u.Get("/tags", h.Tags)
	u.Post("/tags", h.CreateTag)
	u.Post("/tags/:id/delete", h.DeleteTag)
	u.Get("/folders", h.Folders)
	u.Post("/folders", h.CreateFolder)
	u.Post("/folders/:id/delete", h.DeleteFolder)
	u.Get("/folders/:id", h.Folder)
	u.Post("/folders/:id/access", h.SetFolderAccess)
	u.Post("/folders/:id/members/:user", h.SetFolderMemberRole)
	u.Get("/settings/members", h.Members)
	u.Post("/settings/members/invite", h.RequireOwner, h.CreateInvite)
	u.Post("/settings/members/:user/role", h.RequireOwner, h.SetRole)
	u.Post("/settings/members/:user/remove", h.RequireOwner, h.RemoveMember)
	u.Post("/settings/invites/:id/delete", h.RequireOwner, h.DeleteInvite)
	s.programConsoleRoutes(h, u)
}
