package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// commissionsJSON renders commissions (wire.APICommission) with their
// partner and customer.
func (h *Handlers) commissionsJSON(ctx context.Context, ws *models.Workspace, programID string, cs []models.Commission) ([]wire.APICommission, error) {
	var partnerIDs, customerIDs []string
	for _, c := range cs {
		partnerIDs = append(partnerIDs, c.PartnerID)
		if c.CustomerID != nil {
			customerIDs = append(customerIDs, *c.CustomerID)
		}
	}
	partners, err := h.DB.PartnersByID(ctx, ws.ID, partnerIDs)
	if err != nil {
		return nil, err
	}
	enrollments, err := h.DB.EnrollmentsByPartner(ctx, ws.ID, programID, partnerIDs)
	if err != nil {
		return nil, err
	}
	customers, err := h.DB.CustomersByID(ctx, ws.ID, customerIDs)
	if err != nil {
		return nil, err
	}
	out := make([]wire.APICommission, len(cs))
	for i, c := range cs {
		var cust *wire.APICustomer
		if c.CustomerID != nil {
			if cu := customers[*c.CustomerID]; cu != nil {
				cj := wire.APICustomerOf(cu, conversions.DisplayName(cu))
				cust = &cj
			}
		}
		out[i] = wire.APICommissionOf(&cs[i], partners[c.PartnerID], enrollments[c.PartnerID], cust)
	}
	return out, nil
}

// ListCommissions answers GET /commissions (§4.5): an array of the program's
// commissions with earnings other than 0.
func (h *Handlers) ListCommissions(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := request.Workspace(c)
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100, SortBy: []string{"createdAt", "amount"}, DefaultOrder: "desc"})
	if err != nil {
		return err
	}
	q := models.CommissionQuery{
		InvoiceID: c.Query("invoiceId"), CustomerID: c.Query("customerId"), PayoutID: c.Query("payoutId"),
		GroupID: models.ParseSetFilter(c.Query("groupId")), SortBy: p.SortBy, Desc: p.Desc(),
		StartingAfter: c.Query("startingAfter"), EndingBefore: c.Query("endingBefore"), Limit: p.PageSize, Offset: p.Offset(),
	}
	if err := checkCursor(c, p, q.StartingAfter, q.EndingBefore); err != nil {
		return err
	}
	if t := models.ParseSetFilter(c.Query("type")); t != nil {
		valid := t.Values[:0:0]
		for _, v := range t.Values {
			if contains(models.CommissionTypes, v) {
				valid = append(valid, v)
			}
		}
		if len(valid) == 0 {
			return c.JSON([]wire.APICommission{})
		}
		t.Values = valid
		q.Type = t
	}
	if s := c.Query("status"); s != "" {
		if !contains(models.CommissionStatuses, s) {
			return apierr.Validation("invalid_value", "status", "Invalid option: expected one of "+request.Options(models.CommissionStatuses))
		}
		q.Status = s
	}
	interval, start, end, loc, err := parseWindow(c)
	if err != nil {
		return err
	}
	q.Start, q.End = start, end
	if start == nil {
		if from, ok := conversions.IntervalStart(interval, h.now(), loc); ok {
			q.Start = &from
		}
	}
	prog, err := h.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return err
	}
	q.PartnerID = models.ParseSetFilter(c.Query("partnerId"))
	if q.PartnerID == nil {
		if tenant := c.Query("tenantId"); tenant != "" {
			e, err := h.DB.EnrollmentByTenant(ctx, ws.ID, prog.ID, tenant)
			if models.IsNotFound(err) {
				return apierr.Newf(apierr.NotFound, "Partner with specified tenantId %s not found.", tenant)
			}
			if err != nil {
				return err
			}
			q.PartnerID = &models.SetFilter{Values: []string{e.PartnerID}}
		}
	}
	q.DefaultStatus = q.Type == nil && q.CustomerID == "" && q.PayoutID == "" && c.Query("partnerId") == ""
	cs, err := h.DB.ListCommissions(ctx, ws.ID, prog.ID, q)
	if err != nil {
		return err
	}
	out, err := h.commissionsJSON(ctx, ws, prog.ID, cs)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (h *Handlers) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

// parseCommissionPatch validates a PATCH /commissions/{id} body.
func parseCommissionPatch(body []byte) (conversions.CommissionPatch, error) {
	var p conversions.CommissionPatch
	o, err := input.DecodeNullish(body)
	if err != nil {
		return p, err
	}
	nonNeg := input.Num{Min: input.Bound(0)}
	p.Earnings = o.Int("earnings", nonNeg)
	p.SaleAmount = o.Int("saleAmount", nonNeg)
	p.ModifySaleAmount = o.Int("modifySaleAmount", input.Num{})
	p.Currency = "usd"
	if v := o.Str("currency", input.Str{Trim: true, Lower: true, Min: 1, Max: input.MaxIdentifier}).Ptr(); v != nil {
		p.Currency = *v
	}
	if s := o.Enum("status", conversions.EditableStatuses, ""); s != "" {
		p.Status = &s
	}
	if amount := o.Int("amount", nonNeg); amount != nil && p.SaleAmount == nil {
		p.SaleAmount = amount // deprecated alias
	}
	if mod := o.Int("modifyAmount", input.Num{}); mod != nil && p.ModifySaleAmount == nil {
		p.ModifySaleAmount = mod // deprecated alias
	}
	return p, o.Err()
}

// UpdateCommission answers PATCH /commissions/{id}.
func (h *Handlers) UpdateCommission(c *fiber.Ctx) error {
	patch, err := parseCommissionPatch(c.Body())
	if err != nil {
		return err
	}
	ws := request.Workspace(c)
	cm, err := h.Conversions.UpdateCommission(c.UserContext(), ws, c.Params("id"), patch)
	if err != nil {
		return err
	}
	out, err := h.commissionsJSON(c.UserContext(), ws, cm.ProgramID, []models.Commission{*cm})
	if err != nil {
		return err
	}
	return c.JSON(out[0])
}

// CreateReferralsEmbedToken answers POST /tokens/embed/referrals (§5) with
// 201 and a new public token for one enrollment.
func (h *Handlers) CreateReferralsEmbedToken(c *fiber.Ctx) error {
	o, err := input.DecodeNullish(c.Body())
	if err != nil {
		return err
	}
	var in conversions.EmbedInput
	if v := o.Str("partnerId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.PartnerID = *v
	}
	if v := o.Str("tenantId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.TenantID = *v
	}
	if p := o.Child("partner"); p != nil {
		pin := parsePartnerBody(p)
		if p.Err() != nil {
			o.SetErr(p.Err())
		}
		in.Partner = &pin
	}
	if o.Err() != nil {
		return o.Err()
	}
	if in.PartnerID == "" && in.TenantID == "" && in.Partner == nil {
		return apierr.Validation("custom", "", "You must provide either partnerId, tenantId, or partner.")
	}
	token, expires, err := h.Conversions.EmbedToken(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(wire.EmbedToken{PublicToken: token, Expires: wire.Timestamp(expires)})
}
