package redirect

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/internal/ttlmap"
)

// TrackCORS sets the CORS headers POST /track/click carries on every answer
// (spec/partners-and-embed.md §1.4); OPTIONS is answered 204.
func TrackCORS(c *fiber.Ctx) error {
	c.Set("Access-Control-Allow-Origin", "*")
	c.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	c.Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
	if c.Method() == fiber.MethodOptions {
		return c.SendStatus(fiber.StatusNoContent)
	}
	return c.Next()
}

// trackClickPartner is the partner of a partner link's click (§1.4,
// spec/parity.md §8.7): image always set (the partner's, else the avatar of
// handlers/api.Avatar), groupId and tenantId left out when null.
type trackClickPartner struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	Image    string  `json:"image"`
	GroupID  *string `json:"groupId,omitempty"`
	TenantID *string `json:"tenantId,omitempty"`
}

// TrackClick is POST /track/click (§1.4), the click a client-side script
// records when a visitor lands on the site through a link that did not pass
// the redirect (a partner's ?via= link, for instance). It answers the click
// id to keep in the dub_id cookie; the click goes through the same pipeline
// as a redirect's. The same visitor on the same link within the dedup
// window gets the same id back and no new click.
func (h *Handlers) TrackClick(c *fiber.Ctx) error {
	in, err := conversions.ParseTrackClick(c.Body())
	if err != nil {
		return err
	}
	t, err := h.clientTarget(c, in.Domain, in.Key)
	if err != nil {
		return err
	}
	clickID, err := h.clientClick(c, t, in.URL, in.Referrer, "")
	if err != nil {
		return err
	}
	out := fiber.Map{"clickId": clickID}
	if t.Partner { // partner links only: the partner and its enrollment's discount
		p, d, err := h.trackPartner(c, t)
		if err != nil {
			return err
		}
		out["partner"], out["discount"] = p, d
	}
	return c.JSON(out)
}

// clientTarget is the link the client-side script names by domain and key:
// 404 "Link not found ..." when there is none or it has no workspace.
func (h *Handlers) clientTarget(c *fiber.Ctx, domain, key string) (*shortlink.Target, error) {
	res, found, err := h.Cache.Get(c.UserContext(), domain, shortlink.LookupKey(key))
	if err != nil {
		return nil, err
	}
	if !found || res.Link == nil || res.Link.WorkspaceID == "" {
		return nil, apierr.Newf(apierr.NotFound, "Link not found for domain: %s and key: %s.", domain, key)
	}
	return res.Link, nil
}

// clientClick records a click the client-side script reports on t (POST
// /track/click and /track/visit) and answers its id. The same visitor on
// the same link within the dedup window gets the id it got before and no
// new click; a new click from a page off the workspace's allowed hostnames
// is refused with CheckPageHost's 403; a request marked dub-no-track gets a
// fresh id and records nothing (Dub's recordClick). dest ("" for the link's destination)
// is the URL recorded; trigger ("" for link) the click's trigger.
func (h *Handlers) clientClick(c *fiber.Ctx, t *shortlink.Target, dest, referrer, trigger string) (string, error) {
	ip, ua := h.ip(c), string(c.Request().Header.UserAgent())
	visitor := visitorKey(ip, ua, t.Domain, t.Key)
	if clickID, seen := h.recent.get(visitor, h.Now()); seen {
		return clickID, nil
	}
	if err := h.checkAllowedHostname(c, t.WorkspaceID); err != nil {
		return "", err
	}
	clickID := ids.Click()
	if dest == "" {
		dest = t.URL
	}
	// dub-no-track (header or query, as on a redirect): an id, no click.
	if len(c.Request().Header.Peek("dub-no-track")) > 0 || c.Request().URI().QueryArgs().Has("dub-no-track") {
		return clickID, nil
	}
	if h.Clicks != nil {
		h.Clicks.Enqueue(ingest.Hit{
			ClickID: clickID, LinkID: t.ID, WorkspaceID: t.WorkspaceID, Domain: t.Domain, Key: t.Key,
			URL: strings.Clone(dest), Time: h.Now(), IP: ip, UA: strings.Clone(ua), Referer: strings.Clone(referrer),
			Geo: h.geoHint(c), Trigger: trigger,
		})
	}
	h.recent.put(visitor, clickID, h.Now())
	return clickID, nil
}

// trackClickDiscount is the enrollment's discount (spec/parity.md §8.7).
type trackClickDiscount struct {
	ID           string  `json:"id"`
	Amount       int64   `json:"amount"`
	Type         string  `json:"type"`
	MaxDuration  *int    `json:"maxDuration"`
	CouponID     *string `json:"couponId"`
	CouponTestID *string `json:"couponTestId"`
}

// trackPartner is the partner object of a partner link's click (§1.4) and
// its enrollment's discount (§8.7: nil when none or its amount is 0); the
// partner is nil when it or its enrollment is gone.
func (h *Handlers) trackPartner(c *fiber.Ctx, t *shortlink.Target) (*trackClickPartner, *trackClickDiscount, error) {
	p, e, d, err := h.Conversions.ClickPartner(c.UserContext(), t.WorkspaceID, t.ProgramID, t.PartnerID)
	if err != nil || p == nil {
		return nil, nil, err
	}
	out := &trackClickPartner{ID: p.ID, Name: p.Name, Image: h.APIURL + request.AvatarPath + p.ID}
	if p.Image != nil && *p.Image != "" {
		out.Image = *p.Image
	}
	if e != nil {
		out.GroupID, out.TenantID = e.GroupID, e.TenantID
	}
	if d == nil {
		return out, nil, nil
	}
	return out, &trackClickDiscount{ID: d.ID, Amount: d.Amount, Type: d.Type, MaxDuration: d.MaxDuration,
		CouponID: d.CouponID, CouponTestID: d.CouponTestID}, nil
}

// checkAllowedHostname refuses a new click whose page (Referer, else
// Origin) is not on the workspace's allowed hostnames (§1.4).
func (h *Handlers) checkAllowedHostname(c *fiber.Ctx, workspaceID string) error {
	if h.DB == nil {
		return nil
	}
	ws, err := h.DB.WorkspaceByID(c.UserContext(), workspaceID)
	if err != nil {
		return err
	}
	return request.CheckPageHost(c, ws)
}

// visitorKey identifies a visitor on a link: the identity hash of spec/links.md
// §10.4 with the domain and key.
func visitorKey(ip, ua, domain, key string) string {
	return ingest.IdentityHash(ip, ua) + "|" + domain + "|" + key
}

// recentClicksMax bounds the visitors POST /track/click remembers.
const recentClicksMax = 200000

// recentClicks remembers the click id given to a visitor on a link for the
// dedup window, so a repeat call answers the same id. It is per instance:
// with several instances behind a balancer that does not stick visitors to
// one, a repeat may get a new id (the pipeline's own dedup still counts it
// once per instance). A zero window (dedup off) remembers nothing.
type recentClicks struct {
	window time.Duration
	m      *ttlmap.Map[string]
}

func newRecentClicks(window time.Duration, max int) *recentClicks {
	return &recentClicks{window: window, m: ttlmap.New[string](max)}
}

func (r *recentClicks) get(k string, now time.Time) (string, bool) {
	if r.window <= 0 {
		return "", false
	}
	return r.m.Get(k, now)
}

func (r *recentClicks) put(k, id string, now time.Time) {
	if r.window > 0 {
		r.m.Put(k, id, now, now.Add(r.window))
	}
}
