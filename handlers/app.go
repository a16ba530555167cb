// Package handlers builds Relink's HTTP server: one Fiber app per face (API,
// app, short-link) behind a dispatcher that picks the face by Host and arrival
// port, and the route table of every face.
package handlers

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/valyala/fasthttp"
	"golang.org/x/crypto/acme/autocert"

	"github.com/relinkhq/relink/handlers/redirect"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/static"
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
	static.Load() // fingerprint the assets before the first request (compressed on first use)
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
