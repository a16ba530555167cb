package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/wire"
)

// ListWebhooks answers GET /webhooks: a bare array, newest first (§2.1).
func (h *Handlers) ListWebhooks(c *fiber.Ctx) error {
	list, err := h.Webhooks.List(c.UserContext(), request.Workspace(c).ID)
	if err != nil {
		return err
	}
	out := make([]wire.Webhook, len(list))
	for i, w := range list {
		out[i] = w.Object()
	}
	return c.JSON(out)
}

// CreateWebhook answers POST /webhooks with 201 (§2.2).
func (h *Handlers) CreateWebhook(c *fiber.Ctx) error {
	in, err := webhooks.ParseInput(c.Body(), true)
	if err != nil {
		return err
	}
	if k := request.PrincipalOf(c).Key; k != nil && k.UserID != nil {
		in.CreatedBy = *k.UserID // told by e-mail, as upstream tells the session's user
	}
	w, err := h.Webhooks.Create(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(w.Object())
}

// GetWebhook answers GET /webhooks/{id} (§2.3).
func (h *Handlers) GetWebhook(c *fiber.Ctx) error {
	w, err := h.Webhooks.Get(c.UserContext(), request.Workspace(c).ID, Param(c, "webhookId"))
	if err != nil {
		return err
	}
	return c.JSON(w.Object())
}

// UpdateWebhook answers PATCH /webhooks/{id} (§2.4).
func (h *Handlers) UpdateWebhook(c *fiber.Ctx) error {
	in, err := webhooks.ParseInput(c.Body(), false)
	if err != nil {
		return err
	}
	w, err := h.Webhooks.Update(c.UserContext(), request.Workspace(c), Param(c, "webhookId"), in)
	if err != nil {
		return err
	}
	return c.JSON(w.Object())
}

// DeleteWebhook answers DELETE /webhooks/{id} with {"id"} (§2.5).
func (h *Handlers) DeleteWebhook(c *fiber.Ctx) error {
	id := Param(c, "webhookId")
	if err := h.Webhooks.Delete(c.UserContext(), request.Workspace(c).ID, id); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"id": id})
}

// WebhookLinks answers GET /webhooks/{id}/links (§2.6).
func (h *Handlers) WebhookLinks(c *fiber.Ctx) error {
	w, err := h.Webhooks.Get(c.UserContext(), request.Workspace(c).ID, Param(c, "webhookId"))
	if err != nil {
		return err
	}
	ids, err := webhooks.LinkIDs(c.UserContext(), h.DB, w.ID)
	if err != nil {
		return err
	}
	return c.JSON(ids)
}

// WebhookFolders answers GET /webhooks/{id}/folders (§2.6).
func (h *Handlers) WebhookFolders(c *fiber.Ctx) error {
	w, err := h.Webhooks.Get(c.UserContext(), request.Workspace(c).ID, Param(c, "webhookId"))
	if err != nil {
		return err
	}
	ids, err := webhooks.FolderIDs(c.UserContext(), h.DB, w.ID)
	if err != nil {
		return err
	}
	return c.JSON(ids)
}

// WebhookEvents answers GET /webhooks/{id}/events: the latest 100 delivery
// attempts, newest first, request bodies parsed back into JSON (§2.7).
func (h *Handlers) WebhookEvents(c *fiber.Ctx) error {
	log, err := h.Webhooks.Attempts(c.UserContext(), request.Workspace(c).ID, Param(c, "webhookId"), 100)
	if err != nil {
		return err
	}
	out := make([]wire.WebhookEvent, len(log))
	for i, a := range log {
		out[i] = wire.WebhookEvent{EventID: a.EventID, WebhookID: a.WebhookID, MessageID: a.MessageID, Event: a.Event,
			URL: a.URL, HTTPStatus: a.HTTPStatus, RequestBody: wire.WebhookEventBody(a.RequestBody), ResponseBody: a.ResponseBody,
			Timestamp: wire.Timestamp(a.CreatedAt)}
	}
	return c.JSON(out)
}
