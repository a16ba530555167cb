// Package console serves the admin console under /console on the app origin:
// server-rendered templ pages with htmx, signed-in users only (a securecookie
// session), CSRF tokens on every form and htmx request. Handlers parse, call
// the same models and internal packages the API handlers call, and render
// views/console components; no business logic lives here.
package console

import (
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/domaincheck"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/stripeapp"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/workspaces"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
	"github.com/relinkhq/relink/views/layout"
)

// Deps is what the console needs.
type Deps struct {
	DB     *models.DB
	Config *config.Config
	Now    func() time.Time
	Logger *slog.Logger
	// Sessions signs the session cookies (internal/app builds it from
	// RELINK_SESSION_KEYS).
	Sessions *auth.SessionCodec
	// The same services the API handlers call: link rules, the analytics
	// engine, and partner enrollment and commission changes.
	Links       *links.Service
	Analytics   analytics.Engine
	Conversions *conversions.Service
	// Webhooks runs the webhook management rules.
	Webhooks *webhooks.Service
	// Workspaces changes settings, members, invites and API keys.
	Workspaces *workspaces.Service
	// DomainChecks verifies domains' DNS (the domains page's "Check DNS").
	DomainChecks *domaincheck.Service
	// Stripe is the Stripe endpoint service `relink stripe` uses (the
	// Stripe settings page).
	Stripe *stripeapp.Service
}

// Handlers holds the console's handlers.
type Handlers struct {
	Deps
	secure bool // Secure cookies (outside dev)
	// imports are the workspaces' CSV uploads and import runs.
	imports *imports
}

// New returns the console handlers.
func New(d Deps) *Handlers {
	return &Handlers{Deps: d, secure: !d.Config.DevMode, imports: &imports{}}
}

// Viewer is the signed-in user and the workspace the console shows.
type Viewer struct {
	User       *models.User
	Workspace  *models.Workspace
	Role       models.Role
	Workspaces []models.Membership
}

type ctxKey int

const (
	keySession ctxKey = iota
	keyViewer
)

// viewer is the request's signed-in viewer (set by RequireUser).
func viewer(c *fiber.Ctx) *Viewer {
	v, _ := c.Context().UserValue(keyViewer).(*Viewer)
	if v == nil {
		panic("console: viewer read on a route without RequireUser")
	}
	return v
}

// page renders a console page: content inside the shell (sidebar, workspace
// switcher, sign-out) inside the layout, or content alone for an htmx
// fragment request.
func (h *Handlers) page(c *fiber.Ctx, status int, title, active string, content templ.Component) error {
	if render.WantsFragment(c) {
		return render.Component(c, status, content)
	}
	return render.Page(c, status, layout.Page{Title: title, NoIndex: true}, vc.Shell(h.shell(c, title, active), content))
}

// shell is the shell's view model.
func (h *Handlers) shell(c *fiber.Ctx, title, active string) vc.ShellView {
	v := viewer(c)
	s := vc.ShellView{Title: title, Active: active, CSRF: session(c).CSRF, UserEmail: v.User.Email}
	for _, m := range v.Workspaces {
		it := vc.WorkspaceItem{ID: m.Workspace.ID, Name: m.Workspace.Name, Slug: m.Workspace.Slug, Plan: string(m.Workspace.Plan), Current: m.Workspace.ID == v.Workspace.ID}
		s.Workspaces = append(s.Workspaces, it)
		if it.Current {
			s.Workspace = it
		}
	}
	return s
}

// bare renders a page without the shell (sign-in, invites, errors before
// sign-in).
func bare(c *fiber.Ctx, status int, title string, content templ.Component) error {
	return render.Page(c, status, layout.Page{Title: title, NoIndex: true}, content)
}

// redirect sends the browser on after a successful form post.
func redirect(c *fiber.Ctx, url string) error { return render.Redirect(c, url) }

// date formats a time for tables.
func date(t time.Time) string { return t.UTC().Format("Jan 2, 2006") }
