package redirect

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/shortlink"
	views "github.com/relinkhq/relink/views/redirect"
)

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
	if h.DB != nil {
		d, err := h.DB.DomainByName(c.UserContext(), hostOnly(domain))
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
	res, found, err := h.Cache.Get(c.UserContext(), domain, key)
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
	if store == "" || t.Password != "" || t.Expired(h.Now()) {
		return c.Redirect(cont, fiber.StatusFound)
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return page(c, fiber.StatusOK, "Open in the app", views.Deeplink(views.DeeplinkPage{
		ShortLink: short, Continue: cont, Store: store, Title: t.Title, Desc: t.Description, Image: t.Image}))
}
