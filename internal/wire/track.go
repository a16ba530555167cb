package wire

import "github.com/relinkhq/relink/models"

// The answers of POST /track/lead and POST /track/sale
// (spec/partners-and-embed.md §1.2, §1.3).

// TrackLead is POST /track/lead's answer.
type TrackLead struct {
	Click    TrackClick    `json:"click"`
	Link     *TrackLink    `json:"link"`
	Customer TrackCustomer `json:"customer"`
}

// TrackClick names the click a lead was attributed to.
type TrackClick struct {
	ID string `json:"id"`
}

// TrackLink is the link a lead was attributed to.
type TrackLink struct {
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

// TrackCustomer is the customer of a tracked lead.
type TrackCustomer struct {
	Name       *string `json:"name"`
	Email      *string `json:"email"`
	Avatar     *string `json:"avatar"`
	ExternalID *string `json:"externalId"`
}

// TrackLead writes a tracked lead: its click, its link (nil: none) and
// customer.
func (w Writer) TrackLead(clickID string, l *models.Link, c TrackCustomer) TrackLead {
	out := TrackLead{Click: TrackClick{ID: clickID}, Customer: c}
	if l != nil {
		out.Link = &TrackLink{ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: w.LinkShort(l), URL: l.URL,
			PartnerID: l.PartnerID, ProgramID: l.ProgramID, TenantID: l.TenantID, ExternalID: l.ExternalID}
	}
	return out
}

// SaleCustomer is the customer part of the sale answer.
type SaleCustomer struct {
	ID         string  `json:"id"`
	Name       *string `json:"name"`
	Email      *string `json:"email"`
	Avatar     *string `json:"avatar"`
	ExternalID *string `json:"externalId"`
}

// SaleInfo is the sale part of the sale answer.
type SaleInfo struct {
	Amount           int64          `json:"amount"`
	Currency         string         `json:"currency"`
	PaymentProcessor string         `json:"paymentProcessor"`
	InvoiceID        *string        `json:"invoiceId"`
	Metadata         map[string]any `json:"metadata"`
}

// TrackSale is POST /track/sale's answer. It is also what an invoiceId
// stores and replays (internal/conversions).
type TrackSale struct {
	EventName string        `json:"eventName"`
	Customer  *SaleCustomer `json:"customer"`
	Sale      *SaleInfo     `json:"sale"`
}
