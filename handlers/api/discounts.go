package api

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// ListDiscountCodes answers GET /discount-codes (§8.3).
func (h *Handlers) ListDiscountCodes(c *fiber.Ctx) error {
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100})
	if err != nil {
		return err
	}
	cs, err := h.Conversions.ListDiscountCodes(c.UserContext(), request.Workspace(c), models.DiscountCodeFilter{
		PartnerID: Query(c, "partnerId"), DiscountID: Query(c, "discountId"), Offset: p.Offset(), Limit: p.PageSize,
	})
	if err != nil {
		return err
	}
	out := make([]wire.DiscountCode, len(cs))
	for i := range cs {
		out[i] = wire.DiscountCodeOf(&cs[i])
	}
	return c.JSON(out)
}

var discountCodeRe = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// parseDiscountCode validates a POST /discount-codes body in upstream's
// order (code, partnerId, linkId); a blank code is treated as absent.
func parseDiscountCode(body []byte) (conversions.DiscountCodeInput, error) {
	var in conversions.DiscountCodeInput
	o, err := input.Decode(body)
	if err != nil {
		return in, err
	}
	if v := o.Str("code", input.Str{Trim: true}); v.Has() && v.Value != "" {
		switch {
		case utf8.RuneCountInString(v.Value) > 100:
			o.Fail("too_big", "code", "Code must be 100 characters or fewer.")
		case !discountCodeRe.MatchString(v.Value):
			o.Fail("invalid_format", "code", "Code can only contain letters, numbers, dashes, and underscores.")
		}
		in.Code = v.Value
	}
	in.PartnerID = o.Str("partnerId", input.Str{Required: true}).Value
	in.LinkID = o.Str("linkId", input.Str{Required: true}).Value
	return in, o.Err()
}

// CreateDiscountCode answers POST /discount-codes with 200 (not 201: the
// SDK wants 200) and the code.
func (h *Handlers) CreateDiscountCode(c *fiber.Ctx) error {
	in, err := parseDiscountCode(c.Body())
	if err != nil {
		return err
	}
	if h.Config != nil && h.Config.AppURL != nil {
		in.AppURL = strings.TrimSuffix(h.Config.AppURL.String(), "/")
	}
	dc, err := h.Conversions.CreateDiscountCode(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.JSON(wire.DiscountCodeOf(dc))
}

// DeleteDiscountCode answers DELETE /discount-codes/{idOrCode} with {"id"}.
func (h *Handlers) DeleteDiscountCode(c *fiber.Ctx) error {
	id, err := h.Conversions.DeleteDiscountCode(c.UserContext(), request.Workspace(c), Param(c, "idOrCode"))
	if err != nil {
		return err
	}
	return c.JSON(idJSON{ID: id})
}
