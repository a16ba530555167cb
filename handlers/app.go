// Package handlers builds Relink's HTTP server: one Fiber app per face (API,
// app, short-link) behind a dispatcher that picks the face by Host and arrival
// port, and the route table of every face.
package handlers

import (
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/valyala/fasthttp"
	"golang.org/x/crypto/acme/autocert"

	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/models"
	"github.com/relinkhq/relink/static"
)

// Deps is everything the handlers need, built once by cmd/relink.
type Deps struct {
	Config  *config.Config
	DB      *models.DB
	Limiter ratelimit.Limiter
	Logger  *slog.Logger
	Now     func() time.Time
	// IsShortDomain reports whether host (lower-case, with port if any) is a
	// registered short domain other than the app host. Nil: only
	// Config.ShortDomain counts.
	IsShortDomain func(host string) bool
	// Analytics answers /analytics and /events; nil builds one over DB.
	Analytics *analytics.Engine
}

// Server is the assembled HTTP server.
type Server struct {
	deps  Deps
	log   *slog.Logger
	Root  *fiber.App // the dispatcher every listener serves
	api   *fiber.App
	app   *fiber.App
	short *fiber.App

	drainers []drainer

	// seal runs once, on the first request: it appends the API's catch-all
	// and builds each face's handler, so the route trees are not rebuilt
	// (under Fiber's app mutex) on every request.
	seal               sync.Once
	apiH, appH, shortH fasthttp.RequestHandler
	acme               *autocert.Manager // nil unless RELINK_ACME_EMAIL is set
	acmeHTTP           fiber.Handler     // serves /.well-known/acme-challenge/
}

// New builds the server and its route table.
func New(d Deps) *Server {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Limiter == nil {
		d.Limiter = ratelimit.NewMemory(d.Now)
	}
	static.Load() // fingerprint and compress the assets before the first request
	s := &Server{deps: d, log: d.Logger}
	s.api = s.newFace(request.FaceAPI)
	s.app = s.newFace(request.FaceApp)
	s.short = s.newFace(request.FaceShort)

	if d.Config.ACMEEmail != "" {
		s.acme = s.acmeManager()
		s.acmeHTTP = adaptor.HTTPHandler(s.acme.HTTPHandler(nil))
	}

	s.Root = fiber.New(s.fiberConfig())
	s.Root.Use(s.logRequests, s.recoverPanics, s.dispatch)

	s.routes()
	return s
}

func (s *Server) fiberConfig() fiber.Config {
	return fiber.Config{
		AppName:               "relink",
		DisableStartupMessage: true,
		BodyLimit:             s.deps.Config.BodyLimit,
		ErrorHandler:          s.handleError,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           120 * time.Second,
		ReadBufferSize:        16 * 1024,
	}
}

func (s *Server) newFace(f request.Face) *fiber.App {
	app := fiber.New(s.fiberConfig())
	app.Use(s.recoverPanics)
	return app
}

// routes is the whole route table, face by face.
func (s *Server) routes() {
	d := s.deps
	h := api.New(api.Deps{DB: d.DB, Config: d.Config, Now: d.Now, Analytics: d.Analytics})

	// Every face.
	for _, f := range []*fiber.App{s.api, s.app, s.short} {
		f.Get("/healthz", s.healthz)
	}

	// JSON API (root of the API origin, /api on the app origin).
	a := s.api
	a.Use(s.requireHTTPS)
	a.Get("/workspaces/:idOrSlug", s.key("workspaces.read"), h.GetWorkspace)
	a.Patch("/workspaces/:idOrSlug", s.key("workspaces.write"), h.UpdateWorkspace)

	// Analytics and events (analytics.md; internal/analytics).
	a.Get("/analytics", s.key("analytics.read"), h.GetAnalytics)
	a.Get("/analytics/:a/:b", s.key("analytics.read"), h.GetAnalyticsLegacy)
	a.Get("/analytics/:a", s.key("analytics.read"), h.GetAnalyticsLegacy)
	a.Get("/events", s.key("analytics.read"), s.plan(models.PlanBusiness), h.ListEvents)

	// (The API's catch-all, s.apiNotFound behind the key gate, is appended
	// by sealRoutes after every route.)

	// App origin: console, embed, static, default short domain in dev.
	s.app.Use(s.upgradeHTTPS)

	// Short-link domains.
	s.short.Use(s.upgradeHTTPS)

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

// sealRoutes ends the route table: an unmatched API path passes the key gate
// like any API route (so `curl /links` without a key is a 401, as upstream)
// and is then a 404 not_found. It then builds every face's handler once.
func (s *Server) sealRoutes() {
	s.api.Use(s.key(""), s.apiNotFound)
	s.apiH, s.appH, s.shortH = s.api.Handler(), s.app.Handler(), s.short.Handler()
}

// dispatch hands the request to the face that serves it.
func (s *Server) dispatch(c *fiber.Ctx) error {
	s.seal.Do(s.sealRoutes)
	path := c.Path()
	if s.acmeHTTP != nil && strings.HasPrefix(path, "/.well-known/acme-challenge/") {
		return s.acmeHTTP(c)
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
	cfg := s.deps.Config
	host := CanonicalHost(request.Host(c))
	switch host {
	case CanonicalHost(cfg.APIURL.Host):
		return request.FaceAPI
	case CanonicalHost(cfg.AppURL.Host):
		return request.FaceApp
	case CanonicalHost(cfg.ShortDomain):
		return request.FaceShort
	}
	if s.deps.IsShortDomain != nil && s.deps.IsShortDomain(host) {
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

func (s *Server) healthz(c *fiber.Ctx) error {
	if err := s.deps.DB.SQL().PingContext(c.UserContext()); err != nil {
		s.log.Error("healthz: database unreachable", "err", err)
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable", "database": "unreachable"})
	}
	return c.JSON(fiber.Map{"status": "ok", "face": string(request.FaceOf(c))})
}
