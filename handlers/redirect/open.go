package redirect

import (
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/internal/ttlmap"
)

// openLink is the link of a POST /track/open answer.
type openLink struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	Key    string `json:"key"`
	URL    string `json:"url"`
}

// openAnswer is POST /track/open's body: both keys always present.
type openAnswer struct {
	ClickID *string   `json:"clickId"`
	Link    *openLink `json:"link"`
}

// deeplinkTTL is how long a redirect to an app store is remembered for the
// app's first open (spec/parity.md §9).
const deeplinkTTL = time.Hour

// deeplinkClicks remembers, per (visitor IP, short domain), the last click
// that was sent to an app store, so the app's first open after the install
// (POST /track/open with dubDomain only) finds it. Per instance, like Dub's
// cache keyed on the IP.
type deeplinkClicks struct{ m *ttlmap.Map[openAnswer] }

func (d deeplinkClicks) key(ip, domain string) string { return ip + "|" + strings.ToLower(domain) }

// rememberStoreClick is called by the redirect when it sends a visitor to
// an app store through the interstitial.
func (h *Handlers) rememberStoreClick(c *fiber.Ctx, t *shortlink.Target, clickID string) {
	id := strings.Clone(clickID)
	h.deeplinks.m.Put(h.deeplinks.key(h.ip(c), t.Domain), openAnswer{ClickID: &id,
		Link: &openLink{ID: t.ID, Domain: t.Domain, Key: t.Key, URL: t.URL}}, h.Now(), h.Now().Add(deeplinkTTL))
}

// TrackOpen is POST /track/open (spec/parity.md §9), called by the mobile SDKs on
// an app's first open. With deepLink it records a deeplink click on that
// link (the same visitor within the dedup window gets the same id back);
// with only dubDomain it answers the click that sent this IP to the app
// store within the last hour, if any. No authentication.
func (h *Handlers) TrackOpen(c *fiber.Ctx) error {
	in, err := conversions.ParseTrackOpen(c.Body())
	if err != nil {
		return err
	}
	if in.DeepLink == "" {
		if a, ok := h.deeplinks.m.Get(h.deeplinks.key(h.ip(c), in.DubDomain), h.Now()); ok {
			return c.JSON(a)
		}
		return c.JSON(openAnswer{})
	}
	u, err := url.Parse(in.DeepLink)
	if err != nil {
		return apierr.Validation("custom", "deepLink", "Invalid URL")
	}
	domain := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	res, found, err := h.Cache.Get(c.UserContext(), domain, shortlink.LookupKey(strings.TrimPrefix(u.Path, "/")))
	if err != nil {
		return err
	}
	if !found || res.Link == nil {
		return apierr.New(apierr.NotFound, "Deep link not found: "+in.DeepLink)
	}
	t := res.Link
	if t.WorkspaceID == "" {
		return apierr.New(apierr.NotFound, "Deep link does not belong to a workspace.")
	}
	out := openAnswer{Link: &openLink{ID: t.ID, Domain: t.Domain, Key: t.Key, URL: t.URL}}
	if len(c.Request().Header.Peek("dub-no-track")) > 0 || c.Request().URI().QueryArgs().Has("dub-no-track") {
		return c.JSON(out)
	}
	ip, ua := h.ip(c), string(c.Request().Header.UserAgent())
	visitor := visitorKey(ip, ua, t.Domain, t.Key)
	clickID, seen := h.recent.get(visitor, h.Now())
	if !seen {
		clickID = ids.Click()
		if h.Clicks != nil {
			h.Clicks.Enqueue(ingest.Hit{
				ClickID: clickID, LinkID: t.ID, WorkspaceID: t.WorkspaceID, Domain: t.Domain, Key: t.Key,
				URL: t.URL, Time: h.Now(), IP: ip, UA: strings.Clone(ua), Geo: h.geoHint(c),
				Referer: string(c.Request().Header.Referer()), Trigger: ingest.TriggerDeeplink,
			})
		}
		h.recent.put(visitor, clickID, h.Now())
	}
	out.ClickID = &clickID
	return c.JSON(out)
}
