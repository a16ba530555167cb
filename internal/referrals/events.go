package referrals

import (
	"context"
	"encoding/json"
	"net/url"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
)

// PartnerEvent is one event of the partner's links as the embed shows it:
// the engine's event without anything that identifies the visitor. It has
// no IP field, so no IP address can reach a partner by mistake; the
// customer is reduced to its id and masked email and name.
type PartnerEvent struct {
	Kind      analytics.Event // Clicks, Leads or Sales
	Timestamp time.Time
	Click     PartnerClick
	Link      analytics.EventLink

	// Leads and sales.
	ID        string
	EventName string
	Metadata  json.RawMessage
	Customer  PartnerCustomer

	Sale analytics.Sale // sales only
}

// PartnerClick is the click an event came from, without the visitor's IP
// address.
type PartnerClick struct {
	ID, URL                          string
	Continent, Country, Region, City string
	Device, Browser, OS, UA          string
	Trigger, Referer, RefererURL     string
	QR                               bool
}

// PartnerCustomer is a customer as partners see it (§6.7).
type PartnerCustomer struct {
	ID    string
	Email string // masked; the masked name when the customer has no email
	Name  string // masked
}

// eventParams are the query parameters GET /api/embed/referrals/events
// passes on to the events engine (§6.7); every other filter is dropped and
// the partner filter is forced to the token's partner.
var eventParams = []string{"event", "start", "end", "interval", "timezone", "saleType", "limit", "page", "sortBy", "sortOrder"}

// Events answers GET /api/embed/referrals/events: one page of the events
// of the partner's links (none when the partner has no links), redacted.
// raw is the request's query string; only eventParams are read from it.
func (s *Service) Events(ctx context.Context, sess *Session, raw url.Values) ([]PartnerEvent, error) {
	out := []PartnerEvent{}
	links, err := s.Links(ctx, sess)
	if err != nil {
		return nil, err
	}
	if len(links) == 0 || s.Analytics == nil {
		return out, nil
	}
	vals := url.Values{}
	for _, k := range eventParams {
		if v, ok := raw[k]; ok {
			vals[k] = v
		}
	}
	vals.Set("partnerId", sess.Partner.ID)
	q, err := analytics.Parse(vals, analytics.EndpointEvents, s.now())
	if err != nil {
		return nil, err
	}
	evs, err := s.Analytics.Events(ctx, sess.Workspace, q)
	if err != nil {
		return nil, err
	}
	for i := range evs {
		out = append(out, redact(&evs[i]))
	}
	return out, nil
}

// redact copies what a partner may see of an event.
func redact(ev *analytics.EventRecord) PartnerEvent {
	c := ev.Click
	pe := PartnerEvent{
		Kind: ev.Kind, Timestamp: ev.Timestamp, Link: ev.Link,
		Click: PartnerClick{ID: c.ID, URL: c.URL, Continent: c.Continent, Country: c.Country, Region: c.Region,
			City: c.City, Device: c.Device, Browser: c.Browser, OS: c.OS, UA: c.UA, Trigger: c.Trigger,
			Referer: c.Referer, RefererURL: c.RefererURL, QR: c.QR},
		ID: ev.ID, EventName: ev.EventName, Metadata: ev.Metadata, Sale: ev.Sale,
	}
	if ev.Kind != analytics.Clicks {
		email := ev.Customer.Email
		if email == "" {
			email = ev.Customer.Name
		}
		pe.Customer = PartnerCustomer{ID: ev.Customer.ID, Email: MaskEmail(email), Name: MaskEmail(ev.Customer.Name)}
	}
	return pe
}
