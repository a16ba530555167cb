package wire

import "github.com/relinkhq/relink/models"

// The event objects of the webhooks: link.clicked, lead.created and
// sale.created (spec/webhooks.md §3.3-§3.5). The event objects GET /events
// answers are wire/dubjson's.

// Click is the click object of link.clicked, lead.created and sale.created
// (spec/webhooks.md §3.1.2), keys in order.
type Click struct {
	ID         string  `json:"id"`
	Timestamp  string  `json:"timestamp"`
	URL        string  `json:"url"`
	Country    string  `json:"country"`
	City       string  `json:"city"`
	Region     string  `json:"region"`
	Continent  string  `json:"continent"`
	Device     string  `json:"device"`
	Browser    string  `json:"browser"`
	OS         string  `json:"os"`
	UA         *string `json:"ua,omitempty"`
	Trigger    *string `json:"trigger,omitempty"`
	Referer    string  `json:"referer"`
	RefererURL string  `json:"refererUrl"`
	QR         bool    `json:"qr"`
	IP         string  `json:"ip"`
}

func orUnknown(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}

func orDirect(s string) string {
	if s == "" {
		return "(direct)"
	}
	return s
}

// ClickOf renders a click's attributes, clicked at ts.
func ClickOf(a *models.ClickAttrs, ts string) Click {
	c := Click{
		ID: a.ClickID, Timestamp: ts, URL: a.URL, Country: orUnknown(a.Country), City: orUnknown(a.City),
		Region: orUnknown(a.Region), Continent: a.Continent, Device: orUnknown(a.Device),
		Browser: orUnknown(a.Browser), OS: orUnknown(a.OS), Referer: orDirect(a.Referer),
		RefererURL: orDirect(a.RefererURL), QR: a.QR, IP: a.IP,
	}
	if a.UA != "" {
		ua := a.UA
		c.UA = &ua
	}
	if a.Trigger != "" {
		tr := a.Trigger
		c.Trigger = &tr
	}
	return c
}

// LinkClickedData is link.clicked's data (spec/webhooks.md §3.3).
type LinkClickedData struct {
	Click Click `json:"click"`
	Link  Link  `json:"link"`
}

// LeadCreatedData is lead.created's data (spec/webhooks.md §3.4).
type LeadCreatedData struct {
	EventName string         `json:"eventName"`
	Customer  EventCustomer  `json:"customer"`
	Click     Click          `json:"click"`
	Link      Link           `json:"link"`
	Partner   *Partner       `json:"partner,omitempty"`
	Metadata  map[string]any `json:"metadata"`
}

// Sale is sale.created's sale object (spec/webhooks.md §3.5).
type Sale struct {
	Amount           int64  `json:"amount"`
	Currency         string `json:"currency"`
	PaymentProcessor string `json:"paymentProcessor"`
	InvoiceID        string `json:"invoiceId"`
}

// SaleCreatedData is sale.created's data (spec/webhooks.md §3.5).
type SaleCreatedData struct {
	EventName string         `json:"eventName"`
	Customer  EventCustomer  `json:"customer"`
	Click     Click          `json:"click"`
	Link      Link           `json:"link"`
	Sale      Sale           `json:"sale"`
	Partner   *Partner       `json:"partner,omitempty"`
	Metadata  map[string]any `json:"metadata"`
}
