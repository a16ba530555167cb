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

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	pages "github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/domainset"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/internal/ttlmap"
	"github.com/relinkhq/relink/models"
	"github.com/relinkhq/relink/views/layout"
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
	d         Deps
	recent    *recentClicks  // POST /track/click's and /track/visit's same-visitor answers
	deeplinks deeplinkClicks // app-store redirects, for POST /track/open

	visitsRefused atomic.Int64 // POST /track/visit: pages off the allowed hostnames
}

// New builds the handlers.
func New(d Deps) *Handlers {
	return &Handlers{d: d, recent: newRecentClicks(d.TrackDedup, recentClicksMax),
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
	if host == h.d.DefaultDomain {
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
	return h.serve(c, h.d.DefaultDomain, true)
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
		r, _, err := h.d.Cache.Get(c.UserContext(), domain, v.Key)
		if err != nil {
			return err
		}
		res = r
	}
	cookieName := "dub_id_" + hostOnly(domain) + "_" + v.Key
	if res != nil && res.Link != nil {
		h.linkVisit(c, &v, res.Link, cookieName)
	}
	now := h.d.Now()
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
		v.Country = func() string { return h.d.Geo.Country(ip, h.geoHint(c)) }
	}
}

// clickID is the dub_id cookie's id when it looks like one, else a new id
// (spec/links.md §10.4).
func clickID(c *fiber.Ctx, cookieName string) string {
	id := c.Cookies(cookieName)
	if id == "" || len(id) > 64 {
		return ids.Click()
	}
	return strings.Clone(id)
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
			Secure: h.d.SecureCookie, SameSite: fiber.CookieSameSiteLaxMode})
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
		return page(c, fiber.StatusOK, "Inspect link", views.Inspect(views.Preview{URL: t.URL, ShortLink: shortLink(t), Title: t.Title}))
	case shortlink.ActPassword:
		return h.passwordPage(c, t, rawPath, d.Status == fiber.StatusUnauthorized)
	case shortlink.ActExpired:
		if d.URL == "" {
			return page(c, fiber.StatusGone, "Link expired", views.Expired(domain, t.Key))
		}
		return c.Redirect(d.URL, d.Status)
	case shortlink.ActProxy:
		return render(c, fiber.StatusOK, views.Proxy(views.Preview{URL: t.URL, ShortLink: shortLink(t),
			Title: t.Title, Description: t.Description, Image: t.Image, Video: t.Video}))
	case shortlink.ActInterstitial:
		u := h.d.AppURL + "/deeplink/" + domain + "/" + origKey
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

// record hands the click to the pipeline; every string is copied because
// Fiber reuses its buffers after the handler returns.
func (h *Handlers) record(c *fiber.Ctx, t *shortlink.Target, v shortlink.Visit, final string, now time.Time) {
	if h.d.Clicks == nil {
		return
	}
	qr := string(c.Request().URI().QueryArgs().Peek("qr")) == "1"
	h.d.Clicks.Enqueue(ingest.Hit{
		ClickID: v.ClickID, LinkID: t.ID, WorkspaceID: t.WorkspaceID, Domain: t.Domain, Key: t.Key,
		URL: final, Time: now, IP: v.IP, UA: strings.Clone(v.UA),
		Referer: string(c.Request().Header.Referer()), QR: qr, Geo: h.geoHint(c), Bot: v.Bot,
	})
}

func (h *Handlers) ip(c *fiber.Ctx) string {
	if h.d.ClientIP != nil {
		return h.d.ClientIP(c)
	}
	return c.Context().RemoteIP().String()
}

// geoHint copies the geo headers, but only from a trusted proxy.
func (h *Handlers) geoHint(c *fiber.Ctx) geo.Hint {
	if h.d.TrustedProxy == nil || !h.d.TrustedProxy(c) {
		return geo.Hint{}
	}
	hint := h.d.Headers.FromHeaders(func(k string) string { return string(c.Request().Header.Peek(k)) })
	return hint
}

// notFound is #2: the domain's notFoundUrl (307) or the 404 page.
func (h *Handlers) notFound(c *fiber.Ctx, domain, key, notFoundURL string) error {
	if notFoundURL != "" {
		return c.Redirect(notFoundURL, fiber.StatusTemporaryRedirect)
	}
	c.Set("X-Robots-Tag", "googlebot: noindex")
	return page(c, fiber.StatusNotFound, "Link not found", views.NotFound(domain, key))
}

const (
	passwordLimit  = 30
	passwordWindow = 10 * time.Minute
)

func notFoundURL(res *shortlink.Resolved) string {
	if res == nil {
		return ""
	}
	return res.DomainNotFoundURL
}

// passwordPage is #4's answer: the password form, or after a wrong
// password the form with an error, limited per link (spec/links.md §10.2 #4).
func (h *Handlers) passwordPage(c *fiber.Ctx, t *shortlink.Target, rawPath string, wrong bool) error {
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	form := views.PasswordForm{Action: rawPath}
	if !wrong {
		return page(c, fiber.StatusOK, "Password required", views.Password(form))
	}
	if h.d.Limiter != nil {
		res, err := h.d.Limiter.Allow(c.UserContext(), "pw:"+t.ID, passwordLimit, passwordWindow)
		if err != nil {
			h.d.Logger.Error("password rate limiter unavailable", "link_id", t.ID, "err", err)
		} else if !res.Allowed {
			return page(c, fiber.StatusTooManyRequests, "Too many attempts", views.TooManyAttempts())
		}
	}
	form.Error = "Incorrect password. Try again."
	return page(c, fiber.StatusUnauthorized, "Password required", views.Password(form))
}

const (
	aasaPath       = ".well-known/apple-app-site-association"
	assetLinksPath = ".well-known/assetlinks.json"
)

// wellKnown serves the domain's apple-app-site-association or
// assetlinks.json as stored on the domain (appleAppSiteAssociation,
// assetLinks); 404 when the domain has none. Apple and Google fetch these
// rarely, so they are read from the database, not the link cache.
func (h *Handlers) wellKnown(c *fiber.Ctx, domain, path string) error {
	var doc string
	if h.d.DB != nil {
		d, err := h.d.DB.DomainByName(c.UserContext(), hostOnly(domain))
		switch {
		case err == nil && path == aasaPath:
			doc = deref(d.AppleAppSiteAssociation)
		case err == nil:
			doc = deref(d.AssetLinks)
		case !apierr.Is(err, apierr.NotFound):
			return err
		}
	}
	c.Set("X-Robots-Tag", "googlebot: noindex")
	if doc == "" {
		c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
		return c.Status(fiber.StatusNotFound).SendString("No " + path[len(".well-known/"):] + " is configured for " + hostOnly(domain) + ".")
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.SendString(doc)
}

// Deeplink serves the app-store interstitial at
// {app}/deeplink/{domain}/{key}?{query} (spec/links.md §10.2 #12, #13). The click
// was recorded by the redirect that sent the visitor here; the page's button
// returns to the short link with skip_deeplink_preview=1, which carries the
// same click-id cookie, so no second click is stored.
func (h *Handlers) Deeplink(c *fiber.Ctx) error {
	rest := strings.TrimPrefix(string(c.Request().URI().PathOriginal()), "/deeplink/")
	domain, origKey, _ := strings.Cut(rest, "/")
	domain = strings.TrimPrefix(strings.ToLower(domain), "www.")
	key, err := url.PathUnescape(origKey)
	if err != nil || domain == "" {
		return h.notFound(c, domain, origKey, "")
	}
	key = shortlink.LookupKey(key)
	res, found, err := h.d.Cache.Get(c.UserContext(), domain, key)
	if err != nil {
		return err
	}
	if !found || res.Link == nil {
		return h.notFound(c, domain, key, notFoundURL(res))
	}
	t := res.Link
	short := c.Protocol() + "://" + domain + "/" + origKey
	cont := short + "?"
	if q := c.Request().URI().QueryString(); len(q) > 0 {
		cont += string(q) + "&"
	}
	cont += "skip_deeplink_preview=1"
	_, store := t.StoreTarget(string(c.Request().Header.UserAgent()))
	// Not a store visitor (the URL opened on a desktop), or a link whose
	// password or expiry the short link itself must handle (the page would
	// show its title to someone who has not given the password): the link
	// as usual.
	if store == "" || t.Password != "" || t.Expired(h.d.Now()) {
		return c.Redirect(cont, fiber.StatusFound)
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return page(c, fiber.StatusOK, "Open in the app", views.Deeplink(views.DeeplinkPage{
		ShortLink: short, Continue: cont, Store: store, Title: t.Title, Desc: t.Description, Image: t.Image}))
}

func shortLink(t *shortlink.Target) string {
	if t.Root() {
		return "https://" + t.Domain
	}
	return "https://" + t.Domain + "/" + t.Key
}

// hostOnly drops a port (dev domains like localhost:8080): ':' is not
// allowed in a cookie name.
func hostOnly(domain string) string {
	if i := strings.LastIndexByte(domain, ':'); i >= 0 && !strings.Contains(domain[i:], "]") {
		return domain[:i]
	}
	return domain
}

// frameSource is the CSP source of u's origin.
func frameSource(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https") {
		return "'none'"
	}
	return p.Scheme + "://" + p.Host
}

// page writes a readable page inside the app layout (never indexed).
func page(c *fiber.Ctx, status int, title string, body templ.Component) error {
	return pages.Page(c, status, layout.Page{Title: title, NoIndex: true}, body)
}

// render writes a whole-document page (OG card, refresh, cloaked) with the
// pages' CSP; its inline <style> carries the request's nonce.
func render(c *fiber.Ctx, status int, comp templ.Component) error {
	return pages.Component(c, status, comp)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
