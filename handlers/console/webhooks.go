package console

import (
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// The console's webhooks pages (issue 14): list and create, and per
// webhook its settings, secret (shown once), state, test events and
// delivery log. Changes are owner-only (RequireOwner on the routes).

func (h *Handlers) canEditWebhooks(c *fiber.Ctx) bool { return viewer(c).Role == models.RoleOwner }

func hasWebhooks(ws *models.Workspace) bool { return ws.Plan.AtLeast(models.PlanBusiness) }

func (h *Handlers) webhooksView(c *fiber.Ctx) (vc.WebhooksView, error) {
	ws := viewer(c).Workspace
	v := vc.WebhooksView{CSRF: session(c).CSRF, CanEdit: h.canEditWebhooks(c), Form: emptyWebhookForm(), Upgrade: !hasWebhooks(ws)}
	list, err := h.Deps.Webhooks.List(c.UserContext(), ws.ID)
	if err != nil {
		return v, err
	}
	for _, w := range list {
		row := vc.WebhookRow{ID: w.ID, Name: w.Name, URL: w.URL, Triggers: fmt.Sprintf("%d", len(w.Triggers)),
			Disabled: w.DisabledAt != nil, Reason: disabledReason(w)}
		if len(w.Triggers) <= 2 {
			row.Triggers = strings.Join(w.Triggers, ", ")
		}
		v.Webhooks = append(v.Webhooks, row)
	}
	return v, nil
}

func disabledReason(w *webhooks.Webhook) string {
	if w.DisabledAt == nil {
		return ""
	}
	when := w.DisabledAt.UTC().Format("Jan 2, 15:04 UTC")
	if w.DisabledReason != nil && *w.DisabledReason == webhooks.ReasonFailures {
		return fmt.Sprintf("after %d consecutive failed deliveries (%s)", w.ConsecutiveFailures, when)
	}
	return "by a user (" + when + ")"
}

// Webhooks lists the workspace's webhooks with the create form.
func (h *Handlers) Webhooks(c *fiber.Ctx) error {
	v, err := h.webhooksView(c)
	if err != nil {
		return err
	}
	return h.renderWebhooks(c, fiber.StatusOK, v)
}

// CreateWebhook creates a webhook and opens its page with the secret.
func (h *Handlers) CreateWebhook(c *fiber.Ctx) error {
	ws := viewer(c).Workspace
	body, f := webhookBody(c)
	var w *webhooks.Webhook
	in, err := webhooks.ParseInput(body, true)
	if err == nil && !hasWebhooks(ws) {
		err = apierr.New(apierr.Forbidden, "Webhooks need the Business plan or higher.")
	}
	if err == nil {
		in.CreatedBy = viewer(c).User.ID
		w, err = h.Deps.Webhooks.Create(c.UserContext(), ws, in)
	}
	if err != nil {
		msg, ok := userError(err)
		if !ok {
			return err
		}
		v, verr := h.webhooksView(c)
		if verr != nil {
			return verr
		}
		v.Form, v.Error = f, msg
		return h.renderWebhooks(c, fiber.StatusUnprocessableEntity, v)
	}
	v, err := h.webhookView(c, w.ID)
	if err != nil {
		return err
	}
	v.NewSecret, v.Notice = w.Secret, "Webhook created."
	return h.renderWebhook(c, fiber.StatusCreated, w.Name, v)
}

func (h *Handlers) webhookView(c *fiber.Ctx, id string) (vc.WebhookView, error) {
	ws := viewer(c).Workspace
	w, err := h.Deps.Webhooks.Get(c.UserContext(), ws.ID, id)
	if err != nil {
		return vc.WebhookView{}, err
	}
	linkIDs, err := webhooks.LinkIDs(c.UserContext(), h.DB, w.ID)
	if err != nil {
		return vc.WebhookView{}, err
	}
	folderIDs, err := webhooks.FolderIDs(c.UserContext(), h.DB, w.ID)
	if err != nil {
		return vc.WebhookView{}, err
	}
	v := vc.WebhookView{CSRF: session(c).CSRF, CanEdit: h.canEditWebhooks(c), ID: w.ID, Name: w.Name, URL: w.URL,
		Form: formOf(w, linkIDs, folderIDs), SecretHint: maskSecret(w.Secret), Disabled: w.DisabledAt != nil,
		Reason: disabledReason(w), Failures: w.ConsecutiveFailures}
	v.Log, err = h.webhookLog(c, w.ID)
	return v, err
}

const logRows = 50

func (h *Handlers) webhookLog(c *fiber.Ctx, id string) (vc.WebhookLogView, error) {
	lp := pageOf(c, logRows)
	v := vc.WebhookLogView{ID: id, Poll: lp.Page == 1}
	log, total, err := h.Deps.Webhooks.AttemptPage(c.UserContext(), viewer(c).Workspace.ID, id, lp.Size, lp.Offset())
	if err != nil {
		return v, err
	}
	v.Pager = *pagerFor(c, route.URL(route.Webhook, id), lp, len(log), total)
	for _, a := range log {
		e := vc.WebhookLogEntry{Time: a.CreatedAt.UTC().Format("Jan 2 15:04:05"), Event: a.Event, EventID: a.EventID,
			Status: fmt.Sprintf("%d", a.HTTPStatus), Duration: (time.Duration(a.DurationMS) * time.Millisecond).String(),
			Request: a.RequestBody, Response: a.ResponseBody, Error: a.Error, OK: a.HTTPStatus >= 200 && a.HTTPStatus < 300}
		if a.Error != "" {
			e.Status = "failed"
		}
		v.Entries = append(v.Entries, e)
	}
	return v, nil
}

// Webhook is one webhook's page.
func (h *Handlers) Webhook(c *fiber.Ctx) error {
	v, err := h.webhookView(c, c.Params("id"))
	if err != nil {
		return err
	}
	return h.renderWebhook(c, fiber.StatusOK, v.Name, v)
}

// WebhookLog is the delivery log fragment (htmx polling).
func (h *Handlers) WebhookLog(c *fiber.Ctx) error {
	v, err := h.webhookLog(c, c.Params("id"))
	if err != nil {
		return err
	}
	return render.Component(c, fiber.StatusOK, vc.WebhookLog(v))
}

// UpdateWebhook saves the settings form (a PATCH with every field).
func (h *Handlers) UpdateWebhook(c *fiber.Ctx) error {
	ws := viewer(c).Workspace
	body, f := webhookBody(c)
	in, err := webhooks.ParseInput(body, false)
	if err == nil {
		_, err = h.Deps.Webhooks.Update(c.UserContext(), ws, c.Params("id"), in)
	}
	if err != nil {
		msg, ok := userError(err)
		if !ok || apierr.Is(err, apierr.NotFound) {
			return err
		}
		v, verr := h.webhookView(c, c.Params("id"))
		if verr != nil {
			return verr
		}
		v.Form, v.Error = f, msg
		return h.renderWebhook(c, fiber.StatusUnprocessableEntity, v.Name, v)
	}
	return redirect(c, route.URL(route.Webhook, c.Params("id")))
}

// RotateWebhookSecret gives the webhook a new secret and shows it once.
func (h *Handlers) RotateWebhookSecret(c *fiber.Ctx) error {
	w, err := h.Deps.Webhooks.RotateSecret(c.UserContext(), viewer(c).Workspace.ID, c.Params("id"))
	if err != nil {
		return err
	}
	v, err := h.webhookView(c, w.ID)
	if err != nil {
		return err
	}
	v.NewSecret, v.Notice = w.Secret, "Secret rotated. Deliveries are signed with the new secret from now on."
	return h.renderWebhook(c, fiber.StatusOK, v.Name, v)
}

// ToggleWebhook enables a disabled webhook or disables an enabled one.
func (h *Handlers) ToggleWebhook(c *fiber.Ctx) error {
	ws := viewer(c).Workspace
	w, err := h.Deps.Webhooks.Get(c.UserContext(), ws.ID, c.Params("id"))
	if err != nil {
		return err
	}
	if _, err := h.Deps.Webhooks.SetDisabled(c.UserContext(), ws, w.ID, w.DisabledAt == nil); err != nil {
		msg, ok := userError(err)
		if !ok {
			return err
		}
		v, verr := h.webhookView(c, w.ID)
		if verr != nil {
			return verr
		}
		v.Error = msg
		return h.renderWebhook(c, fiber.StatusForbidden, v.Name, v)
	}
	return redirect(c, route.URL(route.Webhook, w.ID))
}

// DeleteWebhook deletes the webhook and returns to the list.
func (h *Handlers) DeleteWebhook(c *fiber.Ctx) error {
	if err := h.Deps.Webhooks.Delete(c.UserContext(), viewer(c).Workspace.ID, c.Params("id")); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Webhooks))
}

// SendTestWebhook queues the chosen event's sample payload (§2.8).
func (h *Handlers) SendTestWebhook(c *fiber.Ctx) error {
	id := c.Params("id")
	evID, err := h.Deps.Webhooks.SendTest(c.UserContext(), viewer(c).Workspace.ID, id, c.FormValue("event"))
	v, verr := h.webhookView(c, id)
	if verr != nil {
		return verr
	}
	status := fiber.StatusAccepted
	if err != nil {
		msg, ok := userError(err)
		if !ok {
			return err
		}
		v.Error, status = msg, fiber.StatusUnprocessableEntity
	} else {
		v.Notice = "Test event " + evID + " queued; it appears in the delivery log below once attempted."
	}
	return h.renderWebhook(c, status, v.Name, v)
}

// renderWebhooks renders the webhooks page with the form's folder and link
// choices.
func (h *Handlers) renderWebhooks(c *fiber.Ctx, status int, v vc.WebhooksView) error {
	var err error
	if v.Form, err = h.webhookChoices(c, v.Form); err != nil {
		return err
	}
	return h.page(c, status, "Webhooks", "webhooks", vc.Webhooks(v))
}

// renderWebhook renders a webhook's page with the form's choices.
func (h *Handlers) renderWebhook(c *fiber.Ctx, status int, title string, v vc.WebhookView) error {
	var err error
	if v.Form, err = h.webhookChoices(c, v.Form); err != nil {
		return err
	}
	return h.page(c, status, title, "webhooks", vc.Webhook(v))
}
