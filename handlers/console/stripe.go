package console

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/stripeapp"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// The Stripe settings page (docs/stripe.md): the workspace's Stripe webhook
// endpoint, through the service `relink stripe connect|disconnect|status`
// uses (stripeapp.Service), so the console and the CLI write the same rows
// with the same rules. Business plan and above, as Dub's Stripe app.

// StripeSettings shows the endpoint URL, the events to select, each mode's
// secret (masked) and the latest events.
func (h *Handlers) StripeSettings(c *fiber.Ctx) error {
	return h.stripePage(c, fiber.StatusOK, c.Query("saved"), "", "")
}

func (h *Handlers) stripePage(c *fiber.Ctx, status int, saved, errMode, errMsg string) error {
	ws := viewer(c).Workspace
	st, err := h.Stripe.Status(c.UserContext(), h.Config.APIURL.String(), ws.ID)
	if err != nil {
		return err
	}
	v := vc.StripeView{CSRF: session(c).CSRF, Upgrade: !ws.Plan.AtLeast(models.PlanBusiness), CanEdit: viewer(c).Role == models.RoleOwner,
		EndpointURL: st.EndpointURL, Events: st.Events, Error: errMsg, ErrorMode: errMode,
		FreeTrials: st.FreeTrials.Enabled, TrackQuantity: st.FreeTrials.TrackQuantity}
	if saved == models.StripeLive || saved == models.StripeTest || saved == "removed" || saved == "trials" {
		v.Saved = saved
	}
	for _, m := range []struct{ mode, label string }{{models.StripeLive, "Live mode"}, {models.StripeTest, "Test mode"}} {
		sm := vc.StripeMode{Mode: m.mode, Label: m.label}
		for _, e := range st.Endpoints {
			if e.Mode == m.mode {
				sm.Connected, sm.Secret, sm.UpdatedAt = true, e.Secret, date(e.UpdatedAt)
				if e.LastEventAt != nil {
					sm.LastEvent = e.LastEventAt.UTC().Format("Jan 2, 2006 15:04 UTC")
				}
			}
		}
		v.Modes = append(v.Modes, sm)
	}
	for _, e := range st.RecentEvents {
		v.Recent = append(v.Recent, vc.StripeEvent{ID: e.ID, Type: e.Type, Mode: e.Mode, Response: e.Response,
			At: e.ReceivedAt.UTC().Format("Jan 2 15:04:05")})
	}
	return h.page(c, status, "Stripe", "stripe", vc.Stripe(v))
}

// stripePlan refuses the Stripe forms below the Business plan (the page
// says so; a crafted post gets the API's 403).
func stripePlan(c *fiber.Ctx) error {
	return viewer(c).Workspace.RequirePlan(models.PlanBusiness)
}

// ConnectStripe stores or replaces a mode's signing secret (owners). A
// value that is not a whsec_ secret is shown on that mode's field (400).
func (h *Handlers) ConnectStripe(c *fiber.Ctx) error {
	if err := stripePlan(c); err != nil {
		return err
	}
	mode := c.FormValue("mode")
	err := h.Stripe.Connect(c.UserContext(), viewer(c).Workspace.ID, mode, strings.TrimSpace(c.FormValue("secret")))
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Status() < 500 {
		return h.stripePage(c, ae.Status(), "", mode, ae.Message)
	}
	if err != nil {
		return err
	}
	h.Logger.Info("stripe connected", "workspace_id", viewer(c).Workspace.ID, "mode", mode, "user_id", viewer(c).User.ID)
	return redirect(c, route.URL(route.StripeSettings)+"?saved="+mode)
}

// DisconnectStripe forgets a mode's secret (owners).
func (h *Handlers) DisconnectStripe(c *fiber.Ctx) error {
	if err := stripePlan(c); err != nil {
		return err
	}
	if err := h.Stripe.Disconnect(c.UserContext(), viewer(c).Workspace.ID, c.FormValue("mode")); err != nil {
		return err
	}
	return redirect(c, route.URL(route.StripeSettings)+"?saved=removed")
}

// SaveStripeTrials stores the free-trial settings (owners).
func (h *Handlers) SaveStripeTrials(c *fiber.Ctx) error {
	if err := stripePlan(c); err != nil {
		return err
	}
	ft := stripeapp.FreeTrials{Enabled: c.FormValue("freeTrials") == "on", TrackQuantity: c.FormValue("trackQuantity") == "on"}
	if err := h.Stripe.SetFreeTrials(c.UserContext(), viewer(c).Workspace.ID, ft); err != nil {
		return err
	}
	return redirect(c, route.URL(route.StripeSettings)+"?saved=trials")
}
