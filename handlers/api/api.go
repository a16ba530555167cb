// Package api holds the handlers of the Dub-compatible JSON API: each parses
// its input into a typed request, makes one call into models or internal/…,
// and writes the response. Routes live in handlers/app.go.
package api

import (
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/domaincheck"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/metatags"
	"github.com/relinkhq/relink/internal/portal"
	"github.com/relinkhq/relink/internal/qr"
	"github.com/relinkhq/relink/internal/stripeapp"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/workspaces"
	"github.com/relinkhq/relink/models"
)

// Deps are the API handlers' dependencies.
type Deps struct {
	DB     *models.DB
	Config *config.Config
	Now    func() time.Time
	// Links runs the link, domain, tag and folder rules.
	Links *links.Service
	// Conversions runs tracking, customers, partners, commissions and embed
	// tokens.
	Conversions *conversions.Service
	// Analytics answers /analytics and /events.
	Analytics analytics.Engine
	// Webhooks runs the /webhooks management rules.
	Webhooks *webhooks.Service
	// Logos loads the logos drawn on QR codes (RELINK_QR_LOGO_FETCH).
	Logos *qr.Logos
	// Pages fetches GET /links/metatags' pages (RELINK_METATAGS_FETCH).
	Pages *metatags.Fetcher
	// DomainChecks answers GET /domains/{slug}/verify.
	DomainChecks *domaincheck.Service
	// Stripe handles the workspaces' Stripe webhook endpoints.
	Stripe *stripeapp.Service
	// Workspaces changes workspaces' settings.
	Workspaces *workspaces.Service
	// Portal resolves partner-profile callers (the portal's cookie or a
	// partner token).
	Portal *portal.Service
}

// Handlers is the API's handler set.
type Handlers struct {
	Deps
}

// New returns the API handlers.
func New(d Deps) *Handlers {
	return &Handlers{Deps: d}
}
