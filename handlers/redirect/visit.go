package redirect

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
)

// TriggerPageview is the trigger of the clicks POST /track/visit records.
const TriggerPageview = "pageview"

// TrackVisit is POST /track/visit, Dub's site-visit tracking (its route
// apps/web/app/(ee)/api/track/visit): the browser script reports a page a
// visitor opened on a site with no click id yet. The site's short domain
// and the page's path name the link (models.RootKey for "/"); the click is
// recorded with trigger pageview and the page's URL as its destination, and
// its id is answered for the dub_id cookie. The same visitor on the same
// link within the dedup window gets the same id and no new click (shared
// with POST /track/click).
//
// A page off the workspace's allowed hostnames is answered as Dub answers
// it: 200 with a fresh click id that is not recorded. Each such refusal is
// counted (Stats().VisitsRefused, relink_track_visits_refused_total) and
// logged.
func (h *Handlers) TrackVisit(c *fiber.Ctx) error {
	in, err := conversions.ParseTrackVisit(c.Body())
	if err != nil {
		return err
	}
	t, err := h.clientTarget(c, in.Domain, in.Key)
	if err != nil {
		return err
	}
	clickID, err := h.clientClick(c, t, in.URL, in.Referrer, TriggerPageview)
	if apierr.Is(err, apierr.Forbidden) {
		h.visitsRefused.Add(1)
		h.Logger.Info("track visit: page not on the allowed hostnames, visit not recorded",
			"workspace", t.WorkspaceID, "domain", t.Domain, "key", t.Key, "reason", err.Error())
		clickID, err = ids.Click(), nil
	}
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"clickId": clickID})
}

// Stats are the client-side tracking counters.
type Stats struct {
	VisitsRefused int64 // POST /track/visit calls not recorded: page off the allowed hostnames
}

// Stats reads the counters.
func (h *Handlers) Stats() Stats {
	return Stats{VisitsRefused: h.visitsRefused.Load()}
}
