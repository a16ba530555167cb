package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/links"
)

// partnerSelector reads partnerId / tenantId from a body.
func partnerSelector(o *input.Object) conversions.PartnerSelector {
	var s conversions.PartnerSelector
	if v := o.Str("partnerId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		s.PartnerID = *v
	}
	if v := o.Str("tenantId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		s.TenantID = *v
	}
	return s
}

// parsePartnerLink validates POST /partners/links and PUT
// /partners/links/upsert bodies; upsert requires url.
func parsePartnerLink(body []byte, upsert bool) (conversions.PartnerLinkInput, error) {
	var in conversions.PartnerLinkInput
	o, err := input.DecodeNullish(body)
	if err != nil {
		return in, err
	}
	in.PartnerSelector = partnerSelector(o)
	if v := o.Str("url", input.Str{Required: upsert, Trim: true, Max: 32000}).Ptr(); v != nil && *v != "" {
		in.URL = links.URLify(*v)
		if !links.ValidURL(in.URL) || links.UnsafeScheme(in.URL) {
			o.Fail("invalid_format", "url", "Invalid URL")
		}
	}
	if v := o.Str("key", input.Str{Trim: true, Max: 190}).Ptr(); v != nil {
		in.Key = *v
	}
	o.Str("comments", input.Str{Max: input.MaxIdentifier}).Ptr()
	in.LinkProps = parseLinkProps(o)
	return in, o.Err()
}

// CreatePartnerLink answers POST /partners/links with 201 and the link.
func (h *Handlers) CreatePartnerLink(c *fiber.Ctx) error {
	in, err := parsePartnerLink(c.Body(), false)
	if err != nil {
		return err
	}
	in.UserID = actor(c).UserID
	l, err := h.Conversions.CreatePartnerLink(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(h.Links.Wire.APILink(l))
}

// UpsertPartnerLink answers PUT /partners/links/upsert with 200 and the link.
func (h *Handlers) UpsertPartnerLink(c *fiber.Ctx) error {
	in, err := parsePartnerLink(c.Body(), true)
	if err != nil {
		return err
	}
	in.UserID = actor(c).UserID
	l, err := h.Conversions.UpsertPartnerLink(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.APILink(l))
}

// ListPartnerLinks answers GET /partners/links.
func (h *Handlers) ListPartnerLinks(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	prog, err := h.DB.DefaultProgram(c.UserContext(), ws.ID)
	if err != nil {
		return err
	}
	e, err := h.Conversions.ResolveEnrollment(c.UserContext(), h.DB, ws, prog,
		conversions.PartnerSelector{PartnerID: c.Query("partnerId"), TenantID: c.Query("tenantId")})
	if err != nil {
		return err
	}
	ls, err := h.DB.PartnerLinks(c.UserContext(), ws.ID, prog.ID, e.PartnerID)
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.PartnerLinks(ls))
}
