package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// PayoutsJSON renders payouts (wire.Payout) with their partner and
// confirming user; the console's CSV export uses the same rows.
func (h *Handlers) PayoutsJSON(ctx context.Context, ws *models.Workspace, programID string, ps []models.Payout) ([]wire.Payout, error) {
	partnerIDs := make([]string, len(ps))
	for i := range ps {
		partnerIDs[i] = ps[i].PartnerID
	}
	partners, err := h.DB.PartnersByID(ctx, ws.ID, partnerIDs)
	if err != nil {
		return nil, err
	}
	enrollments, err := h.DB.EnrollmentsByPartner(ctx, ws.ID, programID, partnerIDs)
	if err != nil {
		return nil, err
	}
	users := map[string]*models.User{}
	out := make([]wire.Payout, len(ps))
	for i := range ps {
		p := &ps[i]
		var u *models.User
		if p.UserID != nil {
			var ok bool
			if u, ok = users[*p.UserID]; !ok {
				if u, err = h.DB.UserByID(ctx, *p.UserID); err != nil && !models.IsNotFound(err) {
					return nil, err
				}
				if err != nil {
					u = nil
				}
				users[*p.UserID] = u
			}
		}
		out[i] = wire.PayoutOf(p, partners[p.PartnerID], enrollments[p.PartnerID], u)
	}
	return out, nil
}

// ListPayouts answers GET /payouts (spec/parity.md §4.3): a bare array.
func (h *Handlers) ListPayouts(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := request.Workspace(c)
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100, SortBy: []string{"amount", "initiatedAt", "paidAt"}, DefaultOrder: "desc"})
	if err != nil {
		return err
	}
	q := models.PayoutQuery{InvoiceID: Query(c, "invoiceId"), GroupID: models.ParseSetFilter(Query(c, "groupId")),
		SortBy: p.SortBy, Desc: p.Desc(), Limit: p.PageSize, Offset: p.Offset()}
	if s := Query(c, "status"); s != "" {
		if !contains(models.PayoutStatuses, s) {
			return apierr.Validation("invalid_value", "status", "Invalid option: expected one of "+request.Options(models.PayoutStatuses))
		}
		q.Status = s
	}
	prog, err := h.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return err
	}
	q.PartnerID = Query(c, "partnerId")
	if tenant := Query(c, "tenantId"); q.PartnerID == "" && tenant != "" {
		e, err := h.DB.EnrollmentByTenant(ctx, ws.ID, prog.ID, tenant)
		if models.IsNotFound(err) {
			return apierr.Newf(apierr.NotFound, "Partner with specified tenantId %s not found.", tenant)
		}
		if err != nil {
			return err
		}
		q.PartnerID = e.PartnerID
	}
	ps, err := h.DB.ListPayouts(ctx, ws.ID, prog.ID, q)
	if err != nil {
		return err
	}
	out, err := h.PayoutsJSON(ctx, ws, prog.ID, ps)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
