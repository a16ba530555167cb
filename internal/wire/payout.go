package wire

import "github.com/relinkhq/relink/models"

// Payout is the payout object (spec/parity.md §4.1).
type Payout struct {
	ID            string        `json:"id"`
	InvoiceID     *string       `json:"invoiceId"`
	Amount        int64         `json:"amount"`
	Currency      string        `json:"currency"`
	Status        string        `json:"status"`
	Description   *string       `json:"description"`
	PeriodStart   *string       `json:"periodStart"`
	PeriodEnd     *string       `json:"periodEnd"`
	CreatedAt     string        `json:"createdAt"`
	UpdatedAt     string        `json:"updatedAt"`
	InitiatedAt   *string       `json:"initiatedAt"`
	PaidAt        *string       `json:"paidAt"`
	FailureReason *string       `json:"failureReason"`
	Mode          string        `json:"mode"`
	Method        *string       `json:"method"`
	TraceID       *string       `json:"traceId"`
	Partner       PayoutPartner `json:"partner"`
	User          *PayoutUser   `json:"user"`
}

// PayoutPartner is the partner a payout carries: the commission's partner
// summary and two keys of its own.
type PayoutPartner struct {
	PartnerSummary
	DefaultPayoutMethod *string `json:"defaultPayoutMethod"`
	TenantID            *string `json:"tenantId"`
}

// PayoutUser is the user who confirmed a payout.
type PayoutUser struct {
	ID    string  `json:"id"`
	Name  *string `json:"name"`
	Email *string `json:"email"`
	Image *string `json:"image"`
}

// PayoutOf writes p with its partner (nil: deleted), the partner's
// enrollment (nil: none) and the confirming user (nil: none).
func PayoutOf(p *models.Payout, pn *models.Partner, e *models.Enrollment, u *models.User) Payout {
	j := Payout{
		ID: p.ID, InvoiceID: p.InvoiceID, Amount: p.Amount, Currency: p.Currency, Status: p.Status, Description: p.Description,
		PeriodStart: OptTimestamp(p.PeriodStart), PeriodEnd: OptTimestamp(p.PeriodEnd), CreatedAt: Timestamp(p.CreatedAt),
		UpdatedAt: Timestamp(p.UpdatedAt), InitiatedAt: OptTimestamp(p.InitiatedAt), PaidAt: OptTimestamp(p.PaidAt),
		FailureReason: p.FailureReason, Mode: models.PayoutModeExternal, Method: p.Method,
		Partner: PayoutPartner{PartnerSummary: DeletedPartner(p.PartnerID)},
	}
	if p.Mode != nil {
		j.Mode = *p.Mode
	}
	if pn != nil {
		j.Partner = PayoutPartner{PartnerSummary: PartnerSummaryOf(pn, nil), DefaultPayoutMethod: pn.DefaultPayoutMethod}
	}
	if e != nil {
		j.Partner.TenantID, j.Partner.GroupID = e.TenantID, e.GroupID
	}
	if u != nil {
		email := u.Email
		j.User = &PayoutUser{ID: u.ID, Name: u.Name, Email: &email}
	}
	return j
}
