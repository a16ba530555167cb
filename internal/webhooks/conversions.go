package webhooks

import (
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// Customer is the lead/sale variant of the customer object (§3.1.3): no
// country, name never null (the caller passes the display name).
type Customer struct {
	ID                     string  `json:"id"`
	Name                   string  `json:"name"`
	Email                  *string `json:"email"`
	Avatar                 *string `json:"avatar"`
	ExternalID             string  `json:"externalId"`
	StripeCustomerID       *string `json:"stripeCustomerId"`
	Sales                  int64   `json:"sales"`
	SaleAmount             int64   `json:"saleAmount"`
	CreatedAt              string  `json:"createdAt"`
	FirstSaleAt            *string `json:"firstSaleAt"`
	SubscriptionCanceledAt *string `json:"subscriptionCanceledAt"`
}

// CustomerOf renders c with its display name.
func CustomerOf(c *models.Customer, name string) Customer {
	return Customer{ID: c.ID, Name: name, Email: c.Email, Avatar: c.Avatar, ExternalID: c.ExternalID,
		StripeCustomerID: c.StripeCustomerID, Sales: c.Sales, SaleAmount: c.SaleAmount, CreatedAt: Timestamp(c.CreatedAt),
		FirstSaleAt: OptTimestamp(c.FirstSaleAt), SubscriptionCanceledAt: OptTimestamp(c.SubscriptionCanceledAt)}
}

// CommissionCustomer is the commission variant (§3.1.3): country between
// stripeCustomerId and sales, name nullable.
type CommissionCustomer struct {
	ID                     string  `json:"id"`
	Name                   *string `json:"name"`
	Email                  *string `json:"email"`
	Avatar                 *string `json:"avatar"`
	ExternalID             string  `json:"externalId"`
	StripeCustomerID       *string `json:"stripeCustomerId"`
	Country                *string `json:"country"`
	Sales                  int64   `json:"sales"`
	SaleAmount             int64   `json:"saleAmount"`
	CreatedAt              string  `json:"createdAt"`
	FirstSaleAt            *string `json:"firstSaleAt"`
	SubscriptionCanceledAt *string `json:"subscriptionCanceledAt"`
}

// CommissionCustomerOf renders c for commission.created.
func CommissionCustomerOf(c *models.Customer) *CommissionCustomer {
	if c == nil {
		return nil
	}
	return &CommissionCustomer{ID: c.ID, Name: c.Name, Email: c.Email, Avatar: c.Avatar, ExternalID: c.ExternalID,
		StripeCustomerID: c.StripeCustomerID, Country: c.Country, Sales: c.Sales, SaleAmount: c.SaleAmount,
		CreatedAt: Timestamp(c.CreatedAt), FirstSaleAt: OptTimestamp(c.FirstSaleAt),
		SubscriptionCanceledAt: OptTimestamp(c.SubscriptionCanceledAt)}
}

// PartnerSummary is the partner a commission carries (the API's Commission
// object, and the first keys of the webhook partner).
type PartnerSummary struct {
	ID               string  `json:"id"`
	Name             string  `json:"name"`
	Email            *string `json:"email"`
	Image            *string `json:"image"`
	PayoutsEnabledAt *string `json:"payoutsEnabledAt"`
	Country          *string `json:"country"`
	GroupID          *string `json:"groupId"`
}

// Partner is the webhook partner (§3.1.4): the summary and the totals.
type Partner struct {
	PartnerSummary
	TotalClicks      int64 `json:"totalClicks"`
	TotalLeads       int64 `json:"totalLeads"`
	TotalConversions int64 `json:"totalConversions"`
	TotalSales       int64 `json:"totalSales"`
	TotalSaleAmount  int64 `json:"totalSaleAmount"`
	TotalCommissions int64 `json:"totalCommissions"`
}

// PartnerOf renders an enrolled partner with its totals.
func PartnerOf(ep *models.EnrolledPartner) *Partner {
	if ep == nil {
		return nil
	}
	var email *string
	if ep.Partner.Email != "" {
		e := ep.Partner.Email
		email = &e
	}
	return &Partner{PartnerSummary: PartnerSummary{ID: ep.Partner.ID, Name: ep.Partner.Name, Email: email, Image: ep.Partner.Image,
		PayoutsEnabledAt: OptTimestamp(ep.Partner.PayoutsEnabledAt), Country: ep.Partner.Country,
		GroupID: ep.Enrollment.GroupID}, TotalClicks: ep.Stats.Clicks, TotalLeads: ep.Stats.Leads,
		TotalConversions: ep.Stats.Conversions, TotalSales: ep.Stats.Sales, TotalSaleAmount: ep.Stats.SaleAmount,
		TotalCommissions: ep.Stats.Commissions}
}

// LeadCreatedData is lead.created's data (§3.4).
type LeadCreatedData struct {
	EventName string         `json:"eventName"`
	Customer  Customer       `json:"customer"`
	Click     Click          `json:"click"`
	Link      wire.Link      `json:"link"`
	Partner   *Partner       `json:"partner,omitempty"`
	Metadata  map[string]any `json:"metadata"`
}

// Sale is sale.created's sale object (§3.5).
type Sale struct {
	Amount           int64  `json:"amount"`
	Currency         string `json:"currency"`
	PaymentProcessor string `json:"paymentProcessor"`
	InvoiceID        string `json:"invoiceId"`
}

// SaleCreatedData is sale.created's data (§3.5).
type SaleCreatedData struct {
	EventName string         `json:"eventName"`
	Customer  Customer       `json:"customer"`
	Click     Click          `json:"click"`
	Link      wire.Link      `json:"link"`
	Sale      Sale           `json:"sale"`
	Partner   *Partner       `json:"partner,omitempty"`
	Metadata  map[string]any `json:"metadata"`
}

// CommissionLink is commission.created's link (§3.9).
type CommissionLink struct {
	ID        string `json:"id"`
	ShortLink string `json:"shortLink"`
	Domain    string `json:"domain"`
	Key       string `json:"key"`
}

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

// CommissionFields renders c's own keys.
func CommissionFields(c *models.Commission) Commission {
	return Commission{ID: c.ID, Type: c.Type, Amount: c.Amount, Earnings: c.Earnings, Currency: c.Currency,
		Status: c.Status, InvoiceID: c.InvoiceID, Description: c.Description, Quantity: c.Quantity, UserID: c.UserID,
		Metadata: c.Metadata, CreatedAt: Timestamp(c.CreatedAt), UpdatedAt: Timestamp(c.UpdatedAt)}
}

// CommissionCreatedData is commission.created's data (§3.9).
type CommissionCreatedData struct {
	Commission
	Partner  *Partner            `json:"partner"`
	Customer *CommissionCustomer `json:"customer"`
	Link     *CommissionLink     `json:"link"`
}

// CommissionOf renders a commission with its partner, customer and link
// (nil when it has none).
func CommissionOf(w wire.Writer, c *models.Commission, p *Partner, cust *models.Customer, l *models.Link) CommissionCreatedData {
	d := CommissionCreatedData{Commission: CommissionFields(c), Partner: p, Customer: CommissionCustomerOf(cust)}
	if l != nil {
		d.Link = &CommissionLink{ID: l.ID, ShortLink: w.LinkShort(l), Domain: l.Domain, Key: l.Key}
	}
	return d
}
