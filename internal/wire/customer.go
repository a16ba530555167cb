package wire

import "github.com/relinkhq/relink/models"

// EventCustomer is the lead/sale variant of the customer object
// (spec/webhooks.md §3.1.3): no country, name never null (the caller
// passes the display name).
type EventCustomer struct {
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

// EventCustomerOf writes c with its display name.
func EventCustomerOf(c *models.Customer, name string) EventCustomer {
	return EventCustomer{ID: c.ID, Name: name, Email: c.Email, Avatar: c.Avatar, ExternalID: c.ExternalID,
		StripeCustomerID: c.StripeCustomerID, Sales: c.Sales, SaleAmount: c.SaleAmount, CreatedAt: Timestamp(c.CreatedAt),
		FirstSaleAt: OptTimestamp(c.FirstSaleAt), SubscriptionCanceledAt: OptTimestamp(c.SubscriptionCanceledAt)}
}

// Customer is the customer object (spec/webhooks.md §3.1.3, the commission
// variant; spec/partners-and-embed.md §2.1): country between
// stripeCustomerId and sales, name nullable.
type Customer struct {
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

// CustomerOf writes c (nil: nil) with its stored name.
func CustomerOf(c *models.Customer) *Customer {
	if c == nil {
		return nil
	}
	return &Customer{ID: c.ID, Name: c.Name, Email: c.Email, Avatar: c.Avatar, ExternalID: c.ExternalID,
		StripeCustomerID: c.StripeCustomerID, Country: c.Country, Sales: c.Sales, SaleAmount: c.SaleAmount,
		CreatedAt: Timestamp(c.CreatedAt), FirstSaleAt: OptTimestamp(c.FirstSaleAt),
		SubscriptionCanceledAt: OptTimestamp(c.SubscriptionCanceledAt)}
}

// APICustomer is the Customer object as the API answers it
// (spec/partners-and-embed.md §2.1): the customer with its display name,
// and the expanded keys, omitted when not asked for or empty.
type APICustomer struct {
	Customer
	Link      *CustomerLink    `json:"link,omitempty"`
	ProgramID *string          `json:"programId,omitempty"`
	Partner   *CustomerPartner `json:"partner,omitempty"`
}

// CustomerLink is an expanded customer's link.
type CustomerLink struct {
	ID        string  `json:"id"`
	Domain    string  `json:"domain"`
	Key       string  `json:"key"`
	ShortLink string  `json:"shortLink"`
	URL       string  `json:"url"`
	ProgramID *string `json:"programId"`
}

// CustomerPartner is an expanded customer's partner.
type CustomerPartner struct {
	ID    string  `json:"id"`
	Name  string  `json:"name"`
	Email *string `json:"email"`
	Image *string `json:"image"`
}

// APICustomerOf writes c with its display name (conversions.DisplayName).
func APICustomerOf(c *models.Customer, displayName *string) APICustomer {
	j := APICustomer{Customer: *CustomerOf(c)}
	j.Name = displayName
	return j
}

// Expand adds the expanded keys: the customer's link and partner (each nil
// when it has none or it is gone) and program.
func (w Writer) Expand(j *APICustomer, l *models.Link, programID *string, p *models.Partner) {
	if l != nil {
		j.Link = &CustomerLink{ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: w.LinkShort(l), URL: l.URL, ProgramID: l.ProgramID}
	}
	j.ProgramID = programID
	if p != nil {
		email := p.Email
		j.Partner = &CustomerPartner{ID: p.ID, Name: p.Name, Email: &email, Image: p.Image}
	}
}
