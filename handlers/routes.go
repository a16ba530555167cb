package handlers

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/handlers/embed"
	"github.com/relinkhq/relink/handlers/redirect"
	embedviews "github.com/relinkhq/relink/views/embed"
)

// routes is the whole route table, face by face.
func (s *Server) routes() {
	d := s.svc
	h := api.New(api.Deps{DB: d.DB, Config: d.Config, Now: d.Now, Links: d.Links, Conversions: d.Conversions,
		Analytics: d.Analytics, Logos: d.Logos, Webhooks: d.Webhooks, Pages: d.Pages, Stripe: d.Stripe, DomainChecks: d.DomainChecks,
		Workspaces: d.Workspaces, Portal: d.Portal})
	rd := s.redirects()
	emb := embed.New(embed.Deps{DB: d.DB, RateLimit: s.limiter, Now: d.Now, Log: d.Log, Referrals: d.Referrals,
		Portal: d.Portal, Sessions: d.Sessions, SecureCookies: !d.Config.DevMode})

	// Every face: liveness (no database) and readiness (database ping).
	for _, f := range []*fiber.App{s.api, s.app, s.short} {
		f.Get("/healthz", s.healthz)
		f.Get("/readyz", s.readyz)
	}
	// Database deadlines are per call (models.OpenTimeout: RELINK_DB_TIMEOUT
	// on every GORM call, 6x on a transaction), not per request: a request
	// whose database hangs fails its first call within the deadline, and
	// CPU-bound work (bcrypt at sign-in, a QR code) does not eat the
	// database's budget.

	// JSON API (root of the API origin, /api on the app origin).
	s.api.Use(s.requireHTTPS)
	s.linkRoutes(h)
	s.conversionRoutes(h, rd)
	s.embedDataRoutes(emb)
	s.analyticsRoutes(h)
	s.webhookRoutes(h)
	// (The API's catch-all, s.apiNotFound, is appended by sealRoutes after
	// every route.)

	// App origin: console, embed, static, default short domain in dev.
	s.app.Use(s.upgradeHTTPS)
	s.embedPageRoutes(emb)
	s.portalRoutes(emb)
	// Short-link domains.
	s.short.Use(s.upgradeHTTPS)
	s.consoleRoutes()

	// Pages plumbing: the embedded assets (static package) under /static/ on
	// both page faces. Pages link to them with static.URL(name), which adds
	// the content fingerprint ?v=; only fingerprinted requests get the
	// one-year immutable cache (handlers/static.go). /static is reserved and
	// never resolves as a short-link key. Pages render with render.Page and
	// set their CSP (with a per-request nonce) there; no X-Frame-Options is
	// sent, so the embed pages can be framed.
	for _, f := range []*fiber.App{s.app, s.short} {
		f.Get("/static/*", s.serveStatic)
	}

	// Operational counters (click pipeline, link cache).
	s.app.Get("/metrics", s.metrics)

	s.redirectRoutes(rd) // KEEP LAST: the short-link catch-alls
}

// embedDataRoutes: the embedded referral dashboard's data API
// (spec/partners-and-embed.md §6.7): /api/embed/referrals/* on the app origin
// (the dispatcher hands /api/* to this face). Auth is the public token in
// the Authorization header, 60 requests per minute per token.
func (s *Server) embedDataRoutes(emb *embed.Handlers) {
	a := s.api
	a.Get("/embed/referrals/token", emb.Auth, emb.Token)
	a.Get("/embed/referrals/links", emb.Auth, emb.ListLinks)
	a.Post("/embed/referrals/links", emb.Auth, emb.CreateLink)
	a.Patch("/embed/referrals/links/:linkId", emb.Auth, emb.UpdateLink)
	a.Get("/embed/referrals/earnings", emb.Auth, emb.ListEarnings)
	a.Get("/embed/referrals/earnings/timeseries", emb.Auth, emb.EarningsTimeseries)
	a.Post("/embed/referrals/bounties/:id/submissions", emb.Auth, emb.CreateSubmission)
	a.Get("/embed/referrals/leaderboard", emb.Auth, emb.ListLeaderboard)
	a.Get("/embed/referrals/analytics", emb.Auth, emb.Analytics)
	a.Get("/embed/referrals/events", emb.Auth, emb.Events)
}

// embedPageRoutes: the embedded referral dashboard's pages
// (spec/partners-and-embed.md §6). The page takes ?token=; its htmx fragments
// take the token from the Authorization header (hx-headers). No cookie is
// read on these routes; frame-ancestors comes from the workspace's allowed
// hostnames.
func (s *Server) embedPageRoutes(emb *embed.Handlers) {
	s.app.Get(embedviews.PathPage, emb.Page)
	fragmentRoutes(s.app.Group("/embed/referrals/fragments", emb.FragmentAuth), emb)
}

// fragmentRoutes: the dashboard's htmx fragments, one set of handlers
// behind two doors (the embed's token, the portal's session).
func fragmentRoutes(frag fiber.Router, emb *embed.Handlers) {
	frag.Get("/overview", emb.Overview)
	frag.Get("/earnings", emb.Earnings)
	frag.Get("/links", emb.Links)
	frag.Post("/links", emb.SaveLink)
	frag.Post("/links/:id", emb.SaveLink)
	frag.Get("/leaderboard", emb.Leaderboard)
	frag.Get("/faq", emb.FAQ)
	frag.Get("/quickstart", emb.Quickstart)
	frag.Get("/bounties", emb.Bounties)
	frag.Post("/bounties/:id", emb.SubmitBounty)
	frag.Get("/resources", emb.Resources)
	frag.Get("/settings", emb.Settings)
}

// portalRoutes: the partner portal (issue 36, docs/portal.md) on the app
// origin. Every route passes PortalSession (cookie, CSRF on unsafe methods,
// no framing, no-store); sign-in links are limited per client IP here and
// per address in the handler; a program's page and fragments pass
// PortalAuth (the signed-in address must own the enrollment).
func (s *Server) portalRoutes(emb *embed.Handlers) {
	p := s.app.Group(embedviews.PortalPath, emb.PortalSession)
	p.Get("/", emb.PortalHome)
	p.Post("/login", s.limitIP("partner-link-ip", embed.LinksPerIP, embed.LinkWindow,
		"Too many sign-in links were asked from this address. Wait a few minutes, then try again."), emb.RequestLink)
	p.Get("/login/:token", emb.ConfirmLink)
	p.Post("/login/:token", s.limitIP("partner-link-use", embed.LinksPerIP, embed.LinkWindow,
		"Too many sign-in attempts from this address. Wait a few minutes, then try again."), emb.UseLink)
	p.Post("/logout", emb.PortalLogout)
	p.Post("/tokens", emb.CreateToken)
	p.Post("/tokens/revoke", emb.RevokeTokens)
	prog := p.Group("/programs/:enrollmentId", emb.PortalAuth)
	prog.Get("/", emb.PortalPage)
	fragmentRoutes(prog.Group("/fragments"), emb)
}

// redirectRoutes: redirects (spec/links.md §10): every path of a short-link
// domain is a key. Mounted LAST: the catch-all must come after every other
// app route; the reserved paths (shortlink's one list, checked against
// these routes by TestReservedPathsCoverRoutes) never resolve.
func (s *Server) redirectRoutes(rd *redirect.Handlers) {
	s.app.Get("/deeplink/*", rd.Deeplink) // the app-store interstitial (#12, #13)
	s.short.Get("/", rd.Short)
	s.short.Get("/*", rd.Short)
	s.short.Post("/*", rd.Short) // password form
	// The app host serves the default short domain (dev).
	if CanonicalHost(s.svc.Config.ShortDomain) == CanonicalHost(s.svc.Config.AppURL.Host) {
		s.app.Get("/*", rd.Default)
		s.app.Post("/*", rd.Default)
	}
}

// sealRoutes ends the route table: an unmatched API path is a 404 not_found
// JSON error. A request that carries credentials passes the key gate first,
// so it is counted against its key's rate limit and a bad key is still a 401.
// It then builds every face's handler once.
func (s *Server) sealRoutes() {
	gate := s.key("")
	s.api.Use(func(c *fiber.Ctx) error {
		if c.Get(fiber.HeaderAuthorization) == "" {
			return c.Next()
		}
		return gate(c)
	}, s.apiNotFound)
	s.apiH, s.appH, s.shortH = s.api.Handler(), s.app.Handler(), s.short.Handler()
}
