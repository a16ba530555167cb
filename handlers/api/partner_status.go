package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
)

type partnerIDJSON struct {
	PartnerID string `json:"partnerId"`
}

// BanPartner answers POST /partners/ban (spec/parity.md §6.1).
func (h *Handlers) BanPartner(c *fiber.Ctx) error {
	o, err := input.DecodeNullish(c.Body())
	if err != nil {
		return err
	}
	sel := partnerSelector(o)
	reason := o.Str("reason", input.Str{Max: input.MaxIdentifier}).Ptr()
	if o.Err() == nil && (reason == nil || !contains(conversions.BanReasons, *reason)) {
		o.Fail("invalid_value", "reason", "Invalid option: expected one of "+input.QuoteOptions(conversions.BanReasons))
	}
	if o.Err() != nil {
		return o.Err()
	}
	id, err := h.Conversions.BanPartner(c.UserContext(), request.Workspace(c), sel, *reason)
	if err != nil {
		return err
	}
	return c.JSON(partnerIDJSON{PartnerID: id})
}

// DeactivatePartner answers POST /partners/deactivate (spec/parity.md §6.2).
func (h *Handlers) DeactivatePartner(c *fiber.Ctx) error {
	o, err := input.DecodeNullish(c.Body())
	if err != nil {
		return err
	}
	sel := partnerSelector(o)
	if o.Err() != nil {
		return o.Err()
	}
	id, err := h.Conversions.DeactivatePartner(c.UserContext(), request.Workspace(c), sel)
	if err != nil {
		return err
	}
	return c.JSON(partnerIDJSON{PartnerID: id})
}
