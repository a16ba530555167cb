// Package redirect serves short links (links.md §10): it resolves host+key
// through the link cache, decides the destination, answers, and hands the
// click to the ingest pipeline without touching the database.
package redirect

import (
	"crypto/subtle"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"golang.org/x/net/idna"

	pages "github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/useragent"
	"github.com/relinkhq/relink/models"
	"github.com/relinkhq/relink/views/layout"
	views "github.com/relinkhq/relink/views/redirect"
)

// Deps are the redirect's collaborators.
type Deps struct {
	Cache   *Cache
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
	// DB serves what is read per request and not cached: the domains'
	// app-association files and POST /track/click's workspace and partner.
	// The redirect itself never reads it.
	DB *models.DB
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
	d      Deps
	recent *recentClicks // POST /track/click's and /track/visit's same-visitor answers

	visitsRefused atomic.Int64 // POST /track/visit: pages off the allowed hostnames
}

// New builds the handlers.
func New(d Deps) *Handlers {
	return &Handlers{d: d, recent: newRecentClicks(d.TrackDedup, recentClicksMax)}
}

// reserved are the app's top-level paths; they never resolve as keys
// (DESIGN.md, redirects row).
var reserved = []string{"api", "embed", "static", "console", "healthz"}

// isReserved reports whether the first path segment of key is reserved.
func isReserved(key string) bool {
	first, _, _ := strings.Cut(key, "/")
	for _, r := range reserved {
		if strings.EqualFold(first, r) {
			return true
		}
	}
	return false
}

// Short serves `/` and `/*` on the short-link face: the domain is the Host.
func (h *Handlers) Short(c *fiber.Ctx) error {
	host := strings.ToLower(string(c.Request().Host()))
	if strings.HasSuffix(host, ":443") || strings.HasSuffix(host, ":80") {
		host = host[:strings.LastIndexByte(host, ':')]
	}
	return h.serve(c, strings.TrimPrefix(host, "www."), false)
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
// the app's later routes instead of the link-not-found page.
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
			return h.notFound(c, domain, key, nil)
		}
		key = k
	}
	if isReserved(key) {
		return c.Next()
	}
	inspect := false
	if strings.HasSuffix(key, "+") {
		key, inspect = strings.TrimSuffix(key, "+"), true
	}
	// The domain's app-association files (links.md §10.1), for iOS universal
	// links and Android app links.
	if key == aasaPath || key == assetLinksPath {
		return h.wellKnown(c, domain, key)
	}
	// #1: crawlers of well-known paths and PHP probes are sent home untracked.
	low := strings.ToLower(key)
	if strings.HasPrefix(low, ".well-known") || strings.HasSuffix(low, ".php") || strings.HasSuffix(low, ".php7") {
		c.Set("X-Robots-Tag", "googlebot: noindex")
		return c.Redirect("/?dub-no-track=1", fiber.StatusFound)
	}
	key = lookupKey(key)

	res, found, err := h.d.Cache.Get(c.UserContext(), domain, key)
	if err != nil {
		return err
	}
	// #2, #6: unknown or disabled.
	if !found || res.Link == nil {
		if appFace {
			return c.Next()
		}
		return h.notFound(c, domain, key, res)
	}
	t := res.Link
	if inspect && t.Password == "" { // #3
		return page(c, fiber.StatusOK, "Inspect link", views.Inspect(views.Preview{URL: t.URL, ShortLink: shortLink(t), Title: t.Title}))
	}
	// #4: password.
	var dropParams []string
	if t.Password != "" {
		ok, via, err := h.checkPassword(c, t, rawPath)
		if err != nil || !ok {
			return err
		}
		if via == "pw" {
			dropParams = []string{"pw"}
		}
	}
	now := h.d.Now()
	// #7: expired.
	if t.Expired(now) {
		switch {
		case t.ExpiredURL != "":
			return h.redirectTo(c, t, t.ExpiredURL, fiber.StatusFound)
		case res.DomainExpiredURL != "":
			return h.redirectTo(c, t, res.DomainExpiredURL, fiber.StatusTemporaryRedirect)
		}
		return page(c, fiber.StatusGone, "Link expired", views.Expired(domain, t.Key))
	}

	// From here on the visitor reaches the link: click id, cookie, click.
	cookieName := "dub_id_" + hostOnly(domain) + "_" + key
	clickID := c.Cookies(cookieName)
	if clickID == "" || len(clickID) > 64 {
		clickID = ids.Click()
	} else {
		clickID = strings.Clone(clickID)
	}
	c.Cookie(&fiber.Cookie{Name: cookieName, Value: clickID, Path: "/" + origKey, MaxAge: 3600})
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	if !t.DoIndex {
		c.Set("X-Robots-Tag", "googlebot: noindex")
	}

	ua := c.Request().Header.UserAgent()
	reqBot := c.Method() == fiber.MethodHead || len(c.Request().URI().QueryArgs().Peek("bot")) > 0
	noTrack := len(c.Request().Header.Peek("dub-no-track")) > 0 || c.Request().URI().QueryArgs().Has("dub-no-track")
	qr := string(c.Request().URI().QueryArgs().Peek("qr")) == "1"

	dest := t.URL
	if len(t.TestVariants) > 0 && t.TestCompletedAt.After(now) {
		dest = h.pickVariant(c, t, origKey)
	}
	// #9: crawlers get the custom preview, not the redirect, and no click.
	if t.Proxy && (reqBot || useragent.IsBot(string(ua))) {
		return render(c, fiber.StatusOK, views.Proxy(views.Preview{URL: t.URL, ShortLink: shortLink(t),
			Title: t.Title, Description: t.Description, Image: t.Image, Video: t.Video}))
	}
	target, status := dest, fiber.StatusFound
	if t.Root() {
		status = fiber.StatusMovedPermanently
	}
	// #12, #13: the visitor's OS target; store is the app store it lists (or "").
	osTarget, store := t.storeTarget(string(ua))
	switch {
	case osTarget != "":
		target = osTarget
	case len(t.Geo) > 0: // #14
		if u := t.Geo[h.d.Geo.Country(h.ip(c), h.geoHint(c))]; u != "" {
			target = u
		}
	}
	final := ""
	if target != "" {
		d := destination{clickID: clickID, key: t.Key, track: t.TrackConversion || t.Partner, partner: t.Partner,
			noTrack: noTrack, dropParams: dropParams}
		if q := c.Request().URI().QueryString(); len(q) > 0 {
			d.reqQuery = string(q)
		}
		final = d.build(target)
	}
	if !noTrack {
		h.record(c, t, clickID, final, qr, reqBot, string(ua), now)
	}
	// #12, #13: a store destination goes through the interstitial first,
	// unless the visitor comes from it (skip_deeplink_preview).
	if store != "" && !c.Request().URI().QueryArgs().Has("skip_deeplink_preview") {
		u := h.d.AppURL + "/deeplink/" + domain + "/" + origKey
		if q := c.Request().URI().QueryString(); len(q) > 0 {
			u += "?" + string(q)
		}
		return c.Redirect(u, fiber.StatusTemporaryRedirect)
	}
	switch {
	case dest == "" && target == "": // #8: root without destination
		return page(c, fiber.StatusOK, domain, views.Placeholder(domain))
	case hasScheme(final, "mailto:", "sms:", "tel:", "tg:", "whatsapp:", "xmpp:"): // #10
		return render(c, fiber.StatusOK, views.Refresh(final))
	case t.Rewrite: // #11
		if err := render(c, fiber.StatusOK, views.Cloaked(views.Preview{URL: final, Title: t.Title}, !t.DoIndex)); err != nil {
			return err
		}
		// The page frames the destination: allow exactly that frame.
		c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; style-src 'nonce-"+pages.Nonce(c)+"'; frame-src "+frameSource(final)+"; base-uri 'none'")
		return nil
	}
	return c.Redirect(final, status)
}

// record hands the click to the pipeline; every string is copied because
// Fiber reuses its buffers after the handler returns.
func (h *Handlers) record(c *fiber.Ctx, t *Target, clickID, final string, qr, bot bool, ua string, now time.Time) {
	if h.d.Clicks == nil {
		return
	}
	h.d.Clicks.Enqueue(ingest.Hit{
		ClickID: clickID, LinkID: t.ID, WorkspaceID: t.WorkspaceID, Domain: t.Domain, Key: t.Key,
		URL: final, Time: now, IP: h.ip(c), UA: strings.Clone(ua),
		Referer: string(c.Request().Header.Referer()), QR: qr, Geo: h.geoHint(c), Bot: bot,
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
func (h *Handlers) notFound(c *fiber.Ctx, domain, key string, res *Resolved) error {
	if res != nil && res.DomainNotFoundURL != "" {
		return c.Redirect(res.DomainNotFoundURL, fiber.StatusTemporaryRedirect)
	}
	c.Set("X-Robots-Tag", "googlebot: noindex")
	return page(c, fiber.StatusNotFound, "Link not found", views.NotFound(domain, key))
}

// redirectTo answers an expired link's redirect (no click).
func (h *Handlers) redirectTo(c *fiber.Ctx, t *Target, u string, status int) error {
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	if !t.DoIndex {
		c.Set("X-Robots-Tag", "googlebot: noindex")
	}
	return c.Redirect(u, status)
}

const (
	passwordLimit  = 30
	passwordWindow = 10 * time.Minute
)

// checkPassword is #4. It returns ok when the visitor may continue, and via
// "pw" when the password came in the query (it is then not forwarded).
// When not ok, the password page has been written.
func (h *Handlers) checkPassword(c *fiber.Ctx, t *Target, rawPath string) (ok bool, via string, err error) {
	cookieName := "dub_password_" + t.ID
	var candidate string
	switch {
	case c.Method() == fiber.MethodPost:
		candidate, via = c.FormValue("password"), "form"
	case c.Query("pw") != "":
		candidate, via = c.Query("pw"), "pw"
	default:
		candidate, via = c.Cookies(cookieName), "cookie"
	}
	if candidate != "" && subtle.ConstantTimeCompare([]byte(candidate), []byte(t.Password)) == 1 {
		if via == "form" {
			c.Cookie(&fiber.Cookie{Name: cookieName, Value: t.Password, Path: rawPath, HTTPOnly: true,
				Secure: h.d.SecureCookie, SameSite: fiber.CookieSameSiteLaxMode})
		}
		return true, via, nil
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	form := views.PasswordForm{Action: rawPath}
	if candidate == "" || via == "cookie" {
		return false, "", page(c, fiber.StatusOK, "Password required", views.Password(form))
	}
	// A wrong password: limited per link (links.md §10.2 #4).
	if h.d.Limiter != nil {
		res, lerr := h.d.Limiter.Allow(c.UserContext(), "pw:"+t.ID, passwordLimit, passwordWindow)
		if lerr != nil {
			h.d.Logger.Error("password rate limiter unavailable", "link_id", t.ID, "err", lerr)
		} else if !res.Allowed {
			return false, "", page(c, fiber.StatusTooManyRequests, "Too many attempts", views.TooManyAttempts())
		}
	}
	form.Error = "Incorrect password. Try again."
	return false, "", page(c, fiber.StatusUnauthorized, "Password required", views.Password(form))
}

// pickVariant chooses an A/B destination (links.md §10.2): a valid
// dub_test_url cookie pins it; else weighted random, then pinned for 7 days.
func (h *Handlers) pickVariant(c *fiber.Ctx, t *Target, origKey string) string {
	if pinned := c.Cookies("dub_test_url"); pinned != "" {
		for _, v := range t.TestVariants {
			if v.URL == pinned {
				return v.URL
			}
		}
	}
	total := 0.0
	for _, v := range t.TestVariants {
		total += v.Percentage
	}
	pick := t.TestVariants[len(t.TestVariants)-1].URL
	r := rand.Float64() * total
	for _, v := range t.TestVariants {
		if r < v.Percentage {
			pick = v.URL
			break
		}
		r -= v.Percentage
	}
	c.Cookie(&fiber.Cookie{Name: "dub_test_url", Value: pick, Path: "/" + origKey, MaxAge: 604800})
	return pick
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

// lookupKey turns a percent-decoded key into the cache's lookup key: the root
// for "", non-ASCII labels punycoded, lowercased (links.md §10.1).
func lookupKey(key string) string {
	if key == "" {
		return models.RootKey
	}
	if !isASCII(key) {
		if a, err := idna.Punycode.ToASCII(strings.Trim(key, "/")); err == nil {
			key = a
		}
	}
	return strings.ToLower(key)
}

// appStore names the store a target is a listing of: "the App Store" for
// apps.apple.com and itunes.apple.com, "Google Play" for play.google.com's
// app pages, else "".
func appStore(target string) string {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return ""
	}
	switch strings.ToLower(u.Hostname()) {
	case "apps.apple.com", "itunes.apple.com":
		return "the App Store"
	case "play.google.com":
		if strings.HasPrefix(u.Path, "/store/apps") {
			return "Google Play"
		}
	}
	return ""
}

// Deeplink serves the app-store interstitial at
// {app}/deeplink/{domain}/{key}?{query} (links.md §10.2 #12, #13). The click
// was recorded by the redirect that sent the visitor here; the page's button
// returns to the short link with skip_deeplink_preview=1, which carries the
// same click-id cookie, so no second click is stored.
func (h *Handlers) Deeplink(c *fiber.Ctx) error {
	rest := strings.TrimPrefix(string(c.Request().URI().PathOriginal()), "/deeplink/")
	domain, origKey, _ := strings.Cut(rest, "/")
	domain = strings.TrimPrefix(strings.ToLower(domain), "www.")
	key, err := url.PathUnescape(origKey)
	if err != nil || domain == "" {
		return h.notFound(c, domain, origKey, nil)
	}
	key = lookupKey(key)
	res, found, err := h.d.Cache.Get(c.UserContext(), domain, key)
	if err != nil {
		return err
	}
	if !found || res.Link == nil {
		return h.notFound(c, domain, key, res)
	}
	t := res.Link
	short := c.Protocol() + "://" + domain + "/" + origKey
	cont := short + "?"
	if q := c.Request().URI().QueryString(); len(q) > 0 {
		cont += string(q) + "&"
	}
	cont += "skip_deeplink_preview=1"
	_, store := t.storeTarget(string(c.Request().Header.UserAgent()))
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

func shortLink(t *Target) string {
	if t.Root() {
		return "https://" + t.Domain
	}
	return "https://" + t.Domain + "/" + t.Key
}

func hasScheme(u string, schemes ...string) bool {
	for _, s := range schemes {
		if len(u) >= len(s) && strings.EqualFold(u[:len(s)], s) {
			return true
		}
	}
	return false
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
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
