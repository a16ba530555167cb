package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/models"
)

// payoutJSON is the payout object (spec/parity.md §4.1).
type payoutJSON struct {
	ID            string            `json:"id"`
	InvoiceID     *string           `json:"invoiceId"`
	Amount        int64             `json:"amount"`
	Currency      string            `json:"currency"`
	Status        string            `json:"status"`
	Description   *string           `json:"description"`
	PeriodStart   *string           `json:"periodStart"`
	PeriodEnd     *string           `json:"periodEnd"`
	CreatedAt     string            `json:"createdAt"`
	UpdatedAt     string            `json:"updatedAt"`
	InitiatedAt   *string           `json:"initiatedAt"`
	PaidAt        *string           `json:"paidAt"`
	FailureReason *string           `json:"failureReason"`
	Mode          string            `json:"mode"`
	Method        *string           `json:"method"`
	TraceID       *string           `json:"traceId"`
	Partner       payoutPartnerJSON `json:"partner"`
	User          *payoutUserJSON   `json:"user"`
}

// payoutPartnerJSON is the partner a payout carries: the commission's
// partner summary (one shape, internal/webhooks) and two keys of its own.
type payoutPartnerJSON struct {
	webhooks.PartnerSummary
	DefaultPayoutMethod *string `json:"defaultPayoutMethod"`
	TenantID            *string `json:"tenantId"`
}

type payoutUserJSON struct {
	ID    string  `json:"id"`
	Name  *string `json:"name"`
	Email *string `json:"email"`
	Image *string `json:"image"`
}

// PayoutsJSON renders payouts with their partner and confirming user; the
// console's CSV export uses the same rows.
func (h *Handlers) PayoutsJSON(ctx context.Context, ws *models.Workspace, programID string, ps []models.Payout) ([]payoutJSON, error) {
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
	out := make([]payoutJSON, len(ps))
	for i := range ps {
		p := &ps[i]
		j := payoutJSON{
			ID: p.ID, InvoiceID: p.InvoiceID, Amount: p.Amount, Currency: p.Currency, Status: p.Status, Description: p.Description,
			PeriodStart: optTime(p.PeriodStart), PeriodEnd: optTime(p.PeriodEnd), CreatedAt: request.Timestamp(p.CreatedAt), UpdatedAt: request.Timestamp(p.UpdatedAt),
			InitiatedAt: optTime(p.InitiatedAt), PaidAt: optTime(p.PaidAt), FailureReason: p.FailureReason, Mode: models.PayoutModeExternal,
			Method: p.Method, Partner: payoutPartnerJSON{PartnerSummary: webhooks.PartnerSummary{ID: p.PartnerID, Name: "Deleted Partner"}},
		}
		if p.Mode != nil {
			j.Mode = *p.Mode
		}
		if pn := partners[p.PartnerID]; pn != nil {
			email := pn.Email
			j.Partner = payoutPartnerJSON{PartnerSummary: webhooks.PartnerSummary{ID: pn.ID, Name: pn.Name, Email: &email, Image: pn.Image,
				PayoutsEnabledAt: optTime(pn.PayoutsEnabledAt), Country: pn.Country}, DefaultPayoutMethod: pn.DefaultPayoutMethod}
		}
		if e := enrollments[p.PartnerID]; e != nil {
			j.Partner.TenantID, j.Partner.GroupID = e.TenantID, e.GroupID
		}
		if p.UserID != nil {
			u, ok := users[*p.UserID]
			if !ok {
				if u, err = h.DB.UserByID(ctx, *p.UserID); err != nil && !models.IsNotFound(err) {
					return nil, err
				}
				if err != nil {
					u = nil
				}
				users[*p.UserID] = u
			}
			if u != nil {
				email := u.Email
				j.User = &payoutUserJSON{ID: u.ID, Name: u.Name, Email: &email}
			}
		}
		out[i] = j
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
