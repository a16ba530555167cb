package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
)

type trackClickJSON struct {
	ID string `json:"id"`
}

type trackLinkJSON struct {
	ID         string  `json:"id"`
	Domain     string  `json:"domain"`
	Key        string  `json:"key"`
	ShortLink  string  `json:"shortLink"`
	URL        string  `json:"url"`
	PartnerID  *string `json:"partnerId"`
	ProgramID  *string `json:"programId"`
	TenantID   *string `json:"tenantId"`
	ExternalID *string `json:"externalId"`
}

type trackCustomerJSON struct {
	Name       *string `json:"name"`
	Email      *string `json:"email"`
	Avatar     *string `json:"avatar"`
	ExternalID *string `json:"externalId"`
}

type trackLeadResponse struct {
	Click    trackClickJSON    `json:"click"`
	Link     *trackLinkJSON    `json:"link"`
	Customer trackCustomerJSON `json:"customer"`
}

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
	out := trackLeadResponse{
		Click: trackClickJSON{ID: r.ClickID},
		Customer: trackCustomerJSON{Name: r.Customer.Name, Email: r.Customer.Email, Avatar: r.Customer.Avatar,
			ExternalID: r.Customer.ExternalID},
	}
	if l := r.Link; l != nil {
		out.Link = &trackLinkJSON{ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: h.Links.Wire.LinkShort(l), URL: l.URL,
			PartnerID: l.PartnerID, ProgramID: l.ProgramID, TenantID: l.TenantID, ExternalID: l.ExternalID}
	}
	return c.JSON(out)
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
