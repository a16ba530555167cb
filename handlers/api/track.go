package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/wire"
)

// TrackLead answers POST /track/lead; it returns after the lead is committed.
func (h *Handlers) TrackLead(c *fiber.Ctx) error {
	in, err := conversions.ParseTrackLead(c.Body())
	if err != nil {
		return err
	}
	r, err := h.Conversions.TrackLead(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.TrackLead(r.ClickID, r.Link, wire.TrackCustomer(r.Customer)))
}

// TrackSale answers POST /track/sale; a repeated invoiceId answers the first
// response again.
func (h *Handlers) TrackSale(c *fiber.Ctx) error {
	in, err := conversions.ParseTrackSale(c.Body())
	if err != nil {
		return err
	}
	r, err := h.Conversions.TrackSale(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.JSON(r)
}
