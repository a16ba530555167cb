package wire

import "github.com/relinkhq/relink/models"

// Commission is a commission's own keys, as commission.created and the
// API's Commission object write them, with metadata after userId as the SDK
// expects.
type Commission struct {
	ID          string         `json:"id"`
	Type        string         `json:"type"`
	Amount      int64          `json:"amount"`
	Earnings    int64          `json:"earnings"`
	Currency    string         `json:"currency"`
	Status      string         `json:"status"`
	InvoiceID   *string        `json:"invoiceId"`
	Description *string        `json:"description"`
	Quantity    int64          `json:"quantity"`
	UserID      *string        `json:"userId"`
	Metadata    map[string]any `json:"metadata"`
	CreatedAt   string         `json:"createdAt"`
	UpdatedAt   string         `json:"updatedAt"`
}

// CommissionFields writes c's own keys.
func CommissionFields(c *models.Commission) Commission {
	return Commission{ID: c.ID, Type: c.Type, Amount: c.Amount, Earnings: c.Earnings, Currency: c.Currency,
		Status: c.Status, InvoiceID: c.InvoiceID, Description: c.Description, Quantity: c.Quantity, UserID: c.UserID,
		Metadata: c.Metadata, CreatedAt: Timestamp(c.CreatedAt), UpdatedAt: Timestamp(c.UpdatedAt)}
}

// CommissionLink is commission.created's link (spec/webhooks.md §3.9).
type CommissionLink struct {
	ID        string `json:"id"`
	ShortLink string `json:"shortLink"`
	Domain    string `json:"domain"`
	Key       string `json:"key"`
}

// CommissionEvent is the data of commission.created and commission.updated
// (spec/webhooks.md §3.9).
type CommissionEvent struct {
	Commission
	Partner  *Partner        `json:"partner"`
	Customer *Customer       `json:"customer"`
	Link     *CommissionLink `json:"link"`
}

// CommissionEvent writes a commission with its partner, customer and link
// (nil when it has none).
func (w Writer) CommissionEvent(c *models.Commission, p *Partner, cust *models.Customer, l *models.Link) CommissionEvent {
	d := CommissionEvent{Commission: CommissionFields(c), Partner: p, Customer: CustomerOf(cust)}
	if l != nil {
		d.Link = &CommissionLink{ID: l.ID, ShortLink: w.LinkShort(l), Domain: l.Domain, Key: l.Key}
	}
	return d
}

// APICommission is the Commission object (spec/partners-and-embed.md
// §4.5): its own keys and its partner as commission.created writes them,
// and the API customer.
type APICommission struct {
	Commission
	PaidAt   *string        `json:"paidAt"`
	Partner  PartnerSummary `json:"partner"`
	Customer *APICustomer   `json:"customer"`
}

// APICommissionOf writes c with its partner (nil: deleted), the partner's
// enrollment (nil: none) and its customer (nil: none).
func APICommissionOf(c *models.Commission, p *models.Partner, e *models.Enrollment, cust *APICustomer) APICommission {
	j := APICommission{Commission: CommissionFields(c), PaidAt: OptTimestamp(c.PaidAt), Partner: DeletedPartner(c.PartnerID),
		Customer: cust}
	if p != nil {
		var group *string
		if e != nil {
			group = e.GroupID
		}
		j.Partner = PartnerSummaryOf(p, group)
	}
	return j
}
