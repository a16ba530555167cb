package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
)

type partnerIDJSON struct {
	PartnerID string `json:"partnerId"`
}

// BanPartner answers POST /partners/ban (parity.md §6.1).
func (h *Handlers) BanPartner(c *fiber.Ctx) error {
	o, err := decodeObject(c.Body())
	if err != nil {
		return err
	}
	sel := partnerSelector(o)
	reason := o.str("reason", strOpts{})
	if o.err == nil && (reason == nil || !contains(conversions.BanReasons, *reason)) {
		o.fail("invalid_value", "reason", "Invalid option: expected one of "+quoteOptions(conversions.BanReasons))
	}
	if o.err != nil {
		return o.err
	}
	id, err := h.Conversions.BanPartner(c.UserContext(), request.Workspace(c), sel, *reason)
	if err != nil {
		return err
	}
	return c.JSON(partnerIDJSON{PartnerID: id})
}

// DeactivatePartner answers POST /partners/deactivate (parity.md §6.2).
func (h *Handlers) DeactivatePartner(c *fiber.Ctx) error {
	o, err := decodeObject(c.Body())
	if err != nil {
		return err
	}
	sel := partnerSelector(o)
	if o.err != nil {
		return o.err
	}
	id, err := h.Conversions.DeactivatePartner(c.UserContext(), request.Workspace(c), sel)
	if err != nil {
		return err
	}
	return c.JSON(partnerIDJSON{PartnerID: id})
}
