package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console"
	"github.com/relinkhq/relink/handlers/console/route"
)

// consoleRoutes mounts the admin console (issue 7) from its route table
// (handlers/console/route.Table): /console/* on the app origin, and / sends
// there. Every route under /console passes the Session middleware (session
// cookie, CSRF check on unsafe methods, frame-ancestors 'none', no-store);
// the signed-in routes also pass RequireUser, owner-only ones RequireOwner;
// a route with a Limit is rate-limited per client IP first. The Open routes
// (the public application page, /apply/<program slug>) are outside the
// console's session.
func (s *Server) consoleRoutes() {
	d := s.svc
	h := console.New(console.Deps{DB: d.DB, Config: d.Config, Now: d.Now, Logger: d.Log, Sessions: d.Sessions,
		Links: d.Links, Analytics: d.Analytics, Conversions: d.Conversions, Webhooks: d.Webhooks,
		Workspaces: d.Workspaces, DomainChecks: d.DomainChecks, Stripe: d.Stripe})
	s.app.Get("/", func(c *fiber.Ctx) error { return c.Redirect(route.URL(route.Home), fiber.StatusFound) })
	g := s.app.Group(route.Prefix, h.Session)
	for _, r := range route.Table {
		switch r.Access {
		case route.Open:
			s.mountConsole(s.app, h, r, r.Pattern)
		case route.Public:
			s.mountConsole(g, h, r, consolePath(r.Pattern))
		}
	}
	// RequireUser is mounted after the public routes, so it runs for every
	// other path under /console (an unknown one included).
	u := g.Group("", h.RequireUser)
	for _, r := range route.Table {
		if r.Access == route.User || r.Access == route.Owner {
			s.mountConsole(u, h, r, consolePath(r.Pattern))
		}
	}
}

// mountConsole mounts one route of the console's table on rt at path: its
// rate limit, then the owner check, then its handler. A table entry without
// a handler method is a programming error and panics when the server is
// built (TestConsoleRouteTable finds it first).
func (s *Server) mountConsole(rt fiber.Router, h *console.Handlers, r route.Route, path string) {
	fn, err := h.Handler(r.Name)
	if err != nil {
		panic(err)
	}
	var hs []fiber.Handler
	if r.Limit != nil {
		hs = append(hs, s.limitIP(r.Limit.Bucket, r.Limit.Max, r.Limit.Window, r.Limit.Message))
	}
	if r.Access == route.Owner {
		hs = append(hs, h.RequireOwner)
	}
	rt.Add(r.Method, path, append(hs, fn)...)
}

// consolePath is a console pattern relative to the /console group.
func consolePath(p string) string {
	rel, ok := strings.CutPrefix(p, route.Prefix)
	if !ok {
		panic("console route " + p + " is not under " + route.Prefix)
	}
	if rel == "" {
		return "/"
	}
	return rel
}
