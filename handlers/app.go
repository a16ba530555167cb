// Package handlers builds Relink's HTTP server: one Fiber app per face (API,
// app, short-link) behind a dispatcher that picks the face by Host and arrival
// port, and the route table of every face.
package handlers

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/valyala/fasthttp"
	"golang.org/x/crypto/acme/autocert"

	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/handlers/console"
	"github.com/relinkhq/relink/handlers/embed"
	"github.com/relinkhq/relink/handlers/redirect"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/models"
	"github.com/relinkhq/relink/static"
	embedviews "github.com/relinkhq/relink/views/embed"
)

// Server is the assembled HTTP server.
type Server struct {
	svc *app.Services
	log *slog.Logger
	// limiter is the one rate-limit gate, shared with the embed face.
	limiter *request.RateLimit
	Root    *fiber.App // the dispatcher every listener serves
	api     *fiber.App
	app     *fiber.App
	short   *fiber.App

	// stopping is set when the shutdown begins (answer.go).
	stopping atomic.Bool

	// readyExtra adds fields to /readyz (the click journal's backlog) and,
	// when the instance should get no traffic, why.
	readyExtra func() (map[string]any, string)

	// seal runs once, on the first request: it appends the API's catch-all
	// and builds each face's handler, so the route trees are not rebuilt
	// (under Fiber's app mutex) on every request.
	seal               sync.Once
	apiH, appH, shortH fasthttp.RequestHandler
	acme               *autocert.Manager  // nil unless RELINK_ACME_EMAIL is set
	acmeHTTP           fiber.Handler      // serves /.well-known/acme-challenge/
	track              *redirect.Handlers // the client-side tracking counters (/metrics)
	asks               tlsAskCounts       // the on-demand TLS check's answers (/metrics)
}

// New mounts every face's routes over the services internal/app built.
func New(svc *app.Services) *Server {
	static.Load() // fingerprint and compress the assets before the first request
	s := &Server{svc: svc, log: svc.Log, limiter: &request.RateLimit{Limiter: svc.Limiter, Now: svc.Now, Log: svc.Log}}
	s.api = s.newFace(request.FaceAPI)
	s.app = s.newFace(request.FaceApp)
	s.short = s.newFace(request.FaceShort)

	if svc.Config.ACMEEmail != "" {
		s.acme = s.acmeManager()
		s.acmeHTTP = adaptor.HTTPHandler(s.acme.HTTPHandler(nil))
	}

	s.Root = fiber.New(s.fiberConfig())
	s.Root.Use(s.logRequests, s.recoverPanics, s.dispatch)

	s.routes()
	s.readyExtra = func() (map[string]any, string) {
		st := svc.Clicks.Stats()
		// The journal's backlog includes the queued and pending clicks.
		out := map[string]any{"clickBacklog": max(st.JournalBacklog, uint64(st.Queued+st.Pending)), "clickJournalFull": st.JournalFull}
		if st.JournalFull {
			out["clickJournal"] = st.JournalState
			return out, "click journal refuses clicks: " + journalReason(st.JournalState)
		}
		return out, ""
	}
	return s
}

// Services returns what the server was built over.
func (s *Server) Services() *app.Services { return s.svc }

func (s *Server) fiberConfig() fiber.Config {
	return fiber.Config{
		AppName:               "relink",
		DisableStartupMessage: true,
		BodyLimit:             s.svc.Config.BodyLimit,
		ErrorHandler:          s.handleError,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           120 * time.Second,
		// Request line and headers: an analytics query of 10,000 characters
		// (the spec's limit) percent-encoded is up to 90,000 bytes, and
		// 16 KiB refused it with 431 (issue 15). fasthttp pools these
		// buffers per connection.
		ReadBufferSize: 128 * 1024,
	}
}

func (s *Server) newFace(f request.Face) *fiber.App {
	app := fiber.New(s.fiberConfig())
	app.Use(s.recoverPanics, s.guardInput)
	return app
}

// routes is the whole route table, face by face.
func (s *Server) routes() {
	d := s.svc
	h := api.New(api.Deps{DB: d.DB, Config: d.Config, Now: d.Now, Links: d.Links, Conversions: d.Conversions,
		Analytics: d.Analytics, Logos: d.Logos, Webhooks: d.Webhooks, Pages: d.Pages, Stripe: d.Stripe, DomainChecks: d.DomainChecks,
		LinkJSON: d.ClickWebhooks.Links, Workspaces: d.Workspaces, Portal: d.Portal})
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

// Face returns the Fiber app that serves face f. Routes added to it before
// the first request is served are part of the route table; tests use this to
// mount probes (a panicking handler, a slow one) on a real face.
func (s *Server) Face(f request.Face) *fiber.App {
	switch f {
	case request.FaceAPI:
		return s.api
	case request.FaceShort:
		return s.short
	}
	return s.app
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

// dispatch hands the request to the face that serves it.
func (s *Server) dispatch(c *fiber.Ctx) error {
	s.seal.Do(s.sealRoutes)
	// Every answer (JSON, pages, downloads, redirects, errors) on every
	// face: no browser sniffs a JSON body or an upload into HTML.
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	path := c.Path()
	if s.acmeHTTP != nil && strings.HasPrefix(path, "/.well-known/acme-challenge/") {
		return s.acmeHTTP(c)
	}
	if path == TLSAskPath {
		return s.tlsAsk(c)
	}
	face := s.faceOf(c)
	request.SetOriginalPath(c, path)
	if face == request.FaceApp && (path == "/api" || strings.HasPrefix(path, "/api/")) {
		face = request.FaceAPI
		rest := strings.TrimPrefix(path, "/api")
		if rest == "" {
			rest = "/"
		}
		c.Request().URI().SetPath(rest)
	}
	request.SetFace(c, face)
	if s.IsHTTPS(c) {
		// Browsers that reached us over HTTPS keep to it for a year.
		c.Set(fiber.HeaderStrictTransportSecurity, "max-age=31536000")
	}
	switch face {
	case request.FaceAPI:
		s.apiH(c.Context())
	case request.FaceShort:
		s.shortH(c.Context())
	default:
		s.appH(c.Context())
	}
	return nil
}

// faceOf matches Host against the origins, then falls back to the arrival port.
func (s *Server) faceOf(c *fiber.Ctx) request.Face {
	cfg := s.svc.Config
	host := CanonicalHost(request.Host(c))
	switch host {
	case CanonicalHost(cfg.APIURL.Host):
		return request.FaceAPI
	case CanonicalHost(cfg.AppURL.Host):
		return request.FaceApp
	case CanonicalHost(cfg.ShortDomain):
		return request.FaceShort
	}
	if !bad([]byte(host)) && s.svc.Domains.IsRegistered(host) {
		return request.FaceShort
	}
	// Unknown host: the face of the port it arrived on.
	port := request.LocalPort(c)
	if port == config.Port(cfg.APIURL) && port != config.Port(cfg.AppURL) {
		return request.FaceAPI
	}
	return request.FaceApp
}

// CanonicalHost lower-cases a host and drops the default ports, so
// "Example.com:443" and "example.com" compare equal.
func CanonicalHost(h string) string {
	h = strings.ToLower(h)
	if strings.HasSuffix(h, ":80") {
		return strings.TrimSuffix(h, ":80")
	}
	return strings.TrimSuffix(h, ":443")
}

// healthz is liveness: the process serves requests. It never touches the
// database, so a database outage does not get healthy instances restarted.
func (s *Server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok", "face": string(request.FaceOf(c))})
}

// readyz is readiness: the database answers a ping within min(2s,
// RELINK_DB_TIMEOUT). A load balancer takes a 503 instance out of rotation.
func (s *Server) readyz(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(context.Background(), min(2*time.Second, s.dbTimeout()))
	defer cancel()
	out := fiber.Map{"status": "ok", "database": "ok"}
	var reasons []string
	if err := s.svc.DB.SQL().PingContext(ctx); err != nil {
		s.log.Error("readyz: database unreachable", "err", err)
		out["database"] = "unreachable"
		reasons = append(reasons, "database unreachable")
	}
	if s.readyExtra != nil {
		extra, notReady := s.readyExtra()
		for k, v := range extra {
			out[k] = v
		}
		if notReady != "" {
			// Redirects still answer, but their clicks are refused: a load
			// balancer should send the traffic to an instance that records it.
			reasons = append(reasons, notReady)
		}
	}
	if len(reasons) > 0 {
		out["status"], out["reason"] = "unavailable", strings.Join(reasons, "; ")
		c.Set(fiber.HeaderRetryAfter, "1")
		return c.Status(fiber.StatusServiceUnavailable).JSON(out)
	}
	return c.JSON(out)
}

// journalReason says why the click journal refuses clicks.
func journalReason(state string) string {
	if state == ingest.ReasonJournalMax {
		return "RELINK_CLICK_JOURNAL_MAX reached (the database is behind)"
	}
	return "its disk refuses writes (full, or an I/O error)"
}

// dbTimeout is RELINK_DB_TIMEOUT (its default for a hand-built Config).
func (s *Server) dbTimeout() time.Duration {
	if t := s.svc.Config.DBTimeout; t > 0 {
		return t
	}
	return models.DefaultTimeout
}

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
