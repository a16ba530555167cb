// Package redirect serves short links (spec/links.md §10): it resolves host+key
// through the link cache, decides the destination, answers, and hands the
// click to the ingest pipeline without touching the database.
package redirect

import (
	"log/slog"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	pages "github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/domainset"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/internal/ttlmap"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
	views "github.com/relinkhq/relink/views/redirect"
)

// Deps are the redirect's collaborators.
type Deps struct {
	Cache   *shortlink.Cache
	Clicks  *ingest.Pipeline
	Geo     *geo.Locator // country for geo targeting; nil: trusted headers only
	Headers geo.Headers  // trusted proxy geo headers
	Limiter ratelimit.Limiter
	Logger  *slog.Logger
	Now     func() time.Time
	// DefaultDomain is the short domain the app face serves (dev); the
	// short-link face uses the request's host.
	DefaultDomain string
	// AppURL is the app origin serving the app-store interstitial
	// (/deeplink/…).
	AppURL string
	// APIURL is the API origin (partner avatars of POST /track/click).
	APIURL string
	// Wire builds the short link the inspect and proxy pages show, as the
	// API writes it (links.Service.Wire).
	Wire wire.Writer
	// DB serves what is read per request and not cached: the domains'
	// app-association files and POST /track/click's workspace and partner.
	// The redirect itself never reads it.
	DB *models.DB
	// Conversions decides POST /track/click's partner and discount.
	Conversions *conversions.Service
	// TrackDedup is how long POST /track/click answers the same visitor on
	// the same link with the same click id (RELINK_CLICK_DEDUP_WINDOW).
	TrackDedup time.Duration
	// ClientIP and TrustedProxy come from the server (X-Forwarded-For and
	// geo headers are believed only from trusted proxies).
	ClientIP     func(c *fiber.Ctx) string
	TrustedProxy func(c *fiber.Ctx) bool
	SecureCookie bool // mark the password cookie Secure (off in dev)
}

// Handlers serves redirects.
type Handlers struct {
	Deps
	recent    *recentClicks  // POST /track/click's and /track/visit's same-visitor answers
	deeplinks deeplinkClicks // app-store redirects, for POST /track/open

	visitsRefused atomic.Int64 // POST /track/visit: pages off the allowed hostnames
}

// New builds the handlers.
func New(d Deps) *Handlers {
	return &Handlers{Deps: d, recent: newRecentClicks(d.TrackDedup, recentClicksMax),
		deeplinks: deeplinkClicks{m: ttlmap.New[openAnswer](recentClicksMax)}}
}

// Short serves `/` and `/*` on the short-link face: the domain is the Host.
// The default short domain is matched as configured (its port is part of
// its links' domain in dev); any other Host is a registered domain, named
// without its port, trailing dot or "www." (domainset.Normalize).
func (h *Handlers) Short(c *fiber.Ctx) error {
	host := strings.ToLower(string(c.Request().Host()))
	if strings.HasSuffix(host, ":443") || strings.HasSuffix(host, ":80") {
		host = host[:strings.LastIndexByte(host, ':')]
	}
	if host == h.DefaultDomain {
		return h.serve(c, host, false)
	}
	return h.serve(c, domainset.Normalize(host), false)
}

// Default serves the default short domain on the app face (dev). The root
// path, and any path that is not a link, are left to the app's own routes
// and its 404 page (routes registered after this catch-all still answer).
func (h *Handlers) Default(c *fiber.Ctx) error {
	if len(c.Request().URI().PathOriginal()) <= 1 {
		return c.Next()
	}
	return h.serve(c, h.DefaultDomain, true)
}

// serve answers a short link; appFace makes an unknown key fall through to
// the app's later routes instead of the link-not-found page. The rules are
// shortlink.Decide's; this reads the request and writes the answer.
func (h *Handlers) serve(c *fiber.Ctx, domain string, appFace bool) error {
	rawPath := string(c.Request().URI().PathOriginal())
	if i := strings.IndexByte(rawPath, '?'); i >= 0 {
		rawPath = rawPath[:i]
	}
	origKey := strings.TrimPrefix(rawPath, "/") // as sent, for the cookie Path
	key := origKey
	if strings.IndexByte(key, '%') >= 0 {
		k, err := url.PathUnescape(key)
		if err != nil {
			return h.notFound(c, domain, key, "")
		}
		key = k
	}
	face := shortlink.ShortFace
	if appFace {
		face = shortlink.AppFace
	}
	if shortlink.IsReserved(key, face) {
		return c.Next()
	}
	inspect := false
	if strings.HasSuffix(key, "+") {
		key, inspect = strings.TrimSuffix(key, "+"), true
	}
	// The domain's app-association files (spec/links.md §10.1), for iOS universal
	// links and Android app links.
	if key == aasaPath || key == assetLinksPath {
		return h.wellKnown(c, domain, key)
	}
	v := h.visit(c, shortlink.LookupKey(key), inspect)
	v.Domain, v.FullKey = domain, key
	var res *shortlink.Resolved
	if !shortlink.IsProbe(v.Key) { // #1 needs no lookup
		r, _, err := h.Cache.Get(c.UserContext(), domain, v.Key)
		if err != nil {
			return err
		}
		res = r
	}
	cookieName := "dub_id_" + hostOnly(domain) + "_" + v.Key
	if res != nil && res.Link != nil {
		h.linkVisit(c, &v, res.Link, cookieName)
	}
	now := h.Now()
	d := shortlink.Decide(res, v, now)
	if d.Action == shortlink.ActNotFound && appFace {
		return c.Next()
	}
	if d.SetClickCookie {
		c.Cookie(&fiber.Cookie{Name: cookieName, Value: v.ClickID, Path: "/" + origKey, MaxAge: 3600})
	}
	if d.Variant != "" {
		c.Cookie(&fiber.Cookie{Name: "dub_test_url", Value: d.Variant, Path: "/" + origKey, MaxAge: 604800})
	}
	if d.Record {
		h.record(c, d.Link, v, d.URL, now)
		if d.Action == shortlink.ActInterstitial {
			h.rememberStoreClick(c, d.Link, v.ClickID) // for the app's first open (POST /track/open)
		}
	}
	return h.answer(c, d, domain, v.Key, origKey, rawPath)
}

// visit reads what the decision needs from the request.
func (h *Handlers) visit(c *fiber.Ctx, key string, inspect bool) shortlink.Visit {
	args := c.Request().URI().QueryArgs()
	v := shortlink.Visit{
		Key: key, Inspect: inspect, UA: string(c.Request().Header.UserAgent()),
		Bot:                 c.Method() == fiber.MethodHead || len(args.Peek("bot")) > 0,
		NoTrack:             len(c.Request().Header.Peek("dub-no-track")) > 0 || args.Has("dub-no-track"),
		SkipDeeplinkPreview: args.Has("skip_deeplink_preview"),
	}
	if q := c.Request().URI().QueryString(); len(q) > 0 {
		v.Query = string(q)
	}
	return v
}

// linkVisit adds what only a found link needs: the click id, and (only
// for links that use them, to keep the common redirect cheap) the password
// candidate, the pinned A/B variant and the visitor's country.
func (h *Handlers) linkVisit(c *fiber.Ctx, v *shortlink.Visit, t *shortlink.Target, cookieName string) {
	v.ClickID = clickID(c, cookieName)
	v.IP = h.ip(c) // the click's, and Singular's ip=
	if t.Password != "" {
		v.Password, v.PasswordVia = passwordCandidate(c, t)
	}
	if len(t.TestVariants) > 0 {
		v.PinnedVariant = c.Cookies("dub_test_url")
	}
	if len(t.Geo) > 0 {
		ip := v.IP
		v.Country = func() string { return h.Geo.Country(ip, h.geoHint(c)) }
	}
}

// passwordCandidate is #4's candidate: the form's on POST, else ?pw=, else
// the dub_password_{linkId} cookie.
func passwordCandidate(c *fiber.Ctx, t *shortlink.Target) (string, shortlink.Via) {
	switch {
	case c.Method() == fiber.MethodPost:
		return c.FormValue("password"), shortlink.ViaForm
	case c.Query("pw") != "":
		return c.Query("pw"), shortlink.ViaQuery
	}
	return c.Cookies("dub_password_" + t.ID), shortlink.ViaCookie
}

// answer writes the decision.
func (h *Handlers) answer(c *fiber.Ctx, d shortlink.Decision, domain, key, origKey, rawPath string) error {
	t := d.Link
	if d.SetPasswordCookie {
		c.Cookie(&fiber.Cookie{Name: "dub_password_" + t.ID, Value: t.Password, Path: rawPath, HTTPOnly: true,
			Secure: h.SecureCookie, SameSite: fiber.CookieSameSiteLaxMode})
	}
	if t != nil && (d.Rule >= 8 || d.Action == shortlink.ActExpired && d.URL != "") {
		c.Set(fiber.HeaderCacheControl, "private, no-store")
		if !t.DoIndex {
			c.Set("X-Robots-Tag", "googlebot: noindex")
		}
	}
	switch d.Action {
	case shortlink.ActProbe:
		c.Set("X-Robots-Tag", "googlebot: noindex")
		return c.Redirect(d.URL, d.Status)
	case shortlink.ActNotFound:
		return h.notFound(c, domain, key, d.URL)
	case shortlink.ActInspect:
		return page(c, fiber.StatusOK, "Inspect link", views.Inspect(views.Preview{URL: t.URL, ShortLink: h.shortLink(t), Title: t.Title}))
	case shortlink.ActPassword:
		return h.passwordPage(c, t, rawPath, d.Status == fiber.StatusUnauthorized)
	case shortlink.ActExpired:
		if d.URL == "" {
			return page(c, fiber.StatusGone, "Link expired", views.Expired(domain, t.Key))
		}
		return c.Redirect(d.URL, d.Status)
	case shortlink.ActProxy:
		return render(c, fiber.StatusOK, views.Proxy(views.Preview{URL: t.URL, ShortLink: h.shortLink(t),
			Title: t.Title, Description: t.Description, Image: t.Image, Video: t.Video}))
	case shortlink.ActInterstitial:
		u := h.AppURL + "/deeplink/" + domain + "/" + origKey
		if q := c.Request().URI().QueryString(); len(q) > 0 {
			u += "?" + string(q)
		}
		return c.Redirect(u, d.Status)
	case shortlink.ActPlaceholder:
		return page(c, fiber.StatusOK, domain, views.Placeholder(domain))
	case shortlink.ActRefresh:
		return render(c, fiber.StatusOK, views.Refresh(d.URL))
	case shortlink.ActCloak:
		if err := render(c, fiber.StatusOK, views.Cloaked(views.Preview{URL: d.URL, Title: t.Title}, !t.DoIndex)); err != nil {
			return err
		}
		// The page frames the destination: allow exactly that frame.
		c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; style-src 'nonce-"+pages.Nonce(c)+"'; frame-src "+frameSource(d.URL)+"; base-uri 'none'")
		return nil
	}
	return c.Redirect(d.URL, d.Status)
}
