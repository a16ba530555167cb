package api

import "github.com/gofiber/fiber/v2"

// StripeWebhook is POST /stripe/webhook/{workspaceId}, the workspace's
// Stripe webhook endpoint (docs/stripe.md). The Stripe-Signature header is
// verified against the workspace's endpoint secrets; an unsigned, badly
// signed or stale request gets 400 and records nothing.
func (h *Handlers) StripeWebhook(c *fiber.Ctx) error {
	res, err := h.Stripe.Receive(c.UserContext(), c.Params("workspaceId"), c.Body(), c.Get("Stripe-Signature"))
	if err != nil {
		return err
	}
	return c.JSON(res)
}
