package conversions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// Lead modes (§1.2).
const (
	ModeAsync    = "async"
	ModeWait     = "wait"
	ModeDeferred = "deferred"
)

// LeadDedupeWindow is how long a (customer, event name) pair is remembered.
const LeadDedupeWindow = 7 * 24 * time.Hour

// DirectSaleLeadName names the lead synthesised by direct sale tracking.
const DirectSaleLeadName = "Direct sale tracking lead event"

// LeadInput is a validated POST /track/lead body.
type LeadInput struct {
	ClickID            string
	EventName          string
	CustomerExternalID string
	CustomerName       *string
	CustomerEmail      *string
	CustomerAvatar     *string
	Mode               string // async | wait | deferred
	EventQuantity      int64  // ≥ 1
	Metadata           map[string]any
}

// LeadCustomer is the customer part of the lead response.
type LeadCustomer struct {
	Name, Email, Avatar, ExternalID *string
}

// LeadResult is what POST /track/lead answers.
type LeadResult struct {
	ClickID   string
	Link      *models.Link // nil on a duplicate
	Customer  LeadCustomer
	Duplicate bool
	Events    []models.LeadEvent // recorded events (none for deferred or duplicates)
}

var errDuplicate = errors.New("duplicate lead")

// EventKey normalises an event name for de-duplication: lower-cased, each
// space a hyphen.
func EventKey(name string) string { return strings.ReplaceAll(strings.ToLower(name), " ", "-") }

func strPtr(s string) *string { return &s }

func leadCustomerOf(c *models.Customer) LeadCustomer {
	ext := c.ExternalID
	return LeadCustomer{Name: DisplayName(c), Email: c.Email, Avatar: c.Avatar, ExternalID: &ext}
}

// DisplayName is a customer's name as the API shows it: name ‖ email ‖ a
// generated name.
func DisplayName(c *models.Customer) *string {
	switch {
	case c.Name != nil && *c.Name != "":
		return c.Name
	case c.Email != nil && *c.Email != "":
		return c.Email
	}
	return strPtr(RandomName())
}

// attributionLink loads and checks the link of a click in the workspace
// (§1.2 steps 4-5). what is "lead" or "sale" for the disabled message.
func (s *Service) attributionLink(ctx context.Context, db *models.DB, ws *models.Workspace, clickID, what string) (*models.Click, *models.Link, error) {
	// Dub answers a click id it does not know with 404 "Click event not
	// found"; a click past the attribution window answers the same (its
	// slim row may already be gone, chstore.ClickTrim).
	var since time.Time
	if s.ClickWindow > 0 {
		since = s.now().Add(-s.ClickWindow)
	}
	click, err := db.AttributionClick(ctx, ws.ID, clickID, since)
	if err != nil && models.IsNotFound(err) && s.Pending != nil {
		// The click may be accepted but still queued (the pipeline writes
		// within a second): write what is pending and look once more.
		if ferr := s.Pending.Flush(ctx); ferr != nil {
			s.Log.Warn("flush pending clicks before attribution", "click_id", clickID, "err", ferr)
		}
		click, err = db.AttributionClick(ctx, ws.ID, clickID, since)
	}
	if err != nil {
		return nil, nil, err
	}
	if click.WorkspaceID != ws.ID {
		// Never reveal another workspace's clicks.
		return nil, nil, apierr.New(apierr.NotFound, "Click event not found for clickId: "+clickID)
	}
	link, err := db.LinkByID(ctx, ws.ID, click.LinkID)
	if err != nil {
		if models.IsNotFound(err) {
			return nil, nil, apierr.New(apierr.NotFound, "Link not found for clickId: "+clickID)
		}
		return nil, nil, err
	}
	if link.DisabledAt != nil && !link.DisabledAt.After(s.now()) {
		return nil, nil, apierr.Newf(apierr.NotFound, "Link %s for clickId %s is disabled, %s not tracked", link.ID, clickID, what)
	}
	return click, link, nil
}

// newCustomer builds a customer first attributed to click on link.
func newCustomer(ws *models.Workspace, externalID string, name, email, avatar *string, click *models.Click, link *models.Link, withPartner bool, now time.Time) *models.Customer {
	c := &models.Customer{
		ID: ids.New(ids.Customer), WorkspaceID: ws.ID, ExternalID: externalID,
		Email: nonEmpty(email), Avatar: nonEmpty(avatar),
		ClickID: strPtr(click.ClickID), LinkID: strPtr(link.ID), CreatedAt: now, UpdatedAt: now,
	}
	c.Name = nonEmpty(name)
	if c.Name == nil {
		c.Name = c.Email
	}
	if c.Name == nil {
		c.Name = strPtr(RandomName())
	}
	at := click.Timestamp.UTC()
	c.ClickedAt = &at
	if len(click.Country) == 2 {
		c.Country = strPtr(click.Country)
	}
	if withPartner {
		c.ProgramID, c.PartnerID = link.ProgramID, link.PartnerID
	}
	return c
}

func nonEmpty(p *string) *string {
	if p == nil || strings.TrimSpace(*p) == "" {
		return nil
	}
	v := strings.TrimSpace(*p)
	return &v
}

// TrackLead records a lead (§1.2). It returns after the events, counters
// and commissions are committed.
func (s *Service) TrackLead(ctx context.Context, ws *models.Workspace, in LeadInput) (*LeadResult, error) {
	now := s.now()
	if in.EventQuantity < 1 {
		in.EventQuantity = 1
	}
	cust, err := s.DB.CustomerByExternalID(ctx, ws.ID, in.CustomerExternalID)
	if err != nil && !models.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		cust = nil
	}
	clickID := in.ClickID
	if clickID == "" {
		if cust == nil || cust.ClickID == nil || *cust.ClickID == "" {
			return nil, apierr.New(apierr.BadRequest, "The `clickId` property was not provided in the request, and no existing customer with the provided `customerExternalId` was found.")
		}
		clickID = *cust.ClickID
	}
	key := EventKey(in.EventName)
	duplicate := func() (*LeadResult, error) {
		c, err := s.DB.CustomerByExternalID(ctx, ws.ID, in.CustomerExternalID)
		r := &LeadResult{ClickID: clickID, Duplicate: true}
		switch {
		case err == nil:
			r.Customer = leadCustomerOf(c)
		case models.IsNotFound(err):
			name := nonEmpty(in.CustomerName)
			if name == nil {
				name = strPtr(RandomName())
			}
			ext := in.CustomerExternalID
			r.Customer = LeadCustomer{Name: name, Email: nonEmpty(in.CustomerEmail), Avatar: nonEmpty(in.CustomerAvatar), ExternalID: &ext}
		default:
			return nil, err
		}
		return r, nil
	}
	if in.Mode != ModeDeferred {
		taken, err := s.DB.LeadKeyTaken(ctx, ws.ID, in.CustomerExternalID, key, now)
		if err != nil {
			return nil, err
		}
		if taken {
			return duplicate()
		}
	}
	click, link, err := s.attributionLink(ctx, s.DB, ws, clickID, "lead")
	if err != nil {
		return nil, err
	}
	res := &LeadResult{ClickID: clickID, Link: link}
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		c, _, err := tx.GetOrCreateCustomer(ctx, newCustomer(ws, in.CustomerExternalID, in.CustomerName, in.CustomerEmail, in.CustomerAvatar, click, link, true, now))
		if err != nil {
			return err
		}
		res.Customer = leadCustomerOf(c)
		if in.Mode == ModeDeferred {
			return nil
		}
		ok, err := tx.ClaimLeadKey(ctx, ws.ID, in.CustomerExternalID, key, now, now.Add(LeadDedupeWindow))
		if err != nil {
			return err
		}
		if !ok {
			return errDuplicate
		}
		events := make([]models.LeadEvent, in.EventQuantity)
		for i := range events {
			events[i] = models.LeadEvent{
				EventID: ids.Nano(16), Timestamp: now, WorkspaceID: ws.ID, EventName: in.EventName,
				CustomerID: c.ID, Metadata: in.Metadata, ClickAttrs: models.AttrsOf(click),
			}
		}
		if err := tx.InsertLeadEvents(ctx, events); err != nil {
			return err
		}
		if err := tx.BumpLinkCounters(ctx, ws.ID, link.ID, models.LinkCounters{Leads: in.EventQuantity}); err != nil {
			return err
		}
		link.Leads += in.EventQuantity
		cm, err := s.eventCommission(ctx, tx, commissionEvent{
			Workspace: ws, Link: link, Customer: c, Type: models.CommissionLead, Quantity: in.EventQuantity,
			EventID: events[0].EventID, Metadata: in.Metadata, At: now,
		})
		if err != nil {
			return err
		}
		if err := s.emitLead(ctx, tx, leadEvent{name: in.EventName, customer: c, attrs: models.AttrsOf(click),
			clickedAt: click.Timestamp, link: link, metadata: in.Metadata, commission: cm}); err != nil {
			return err
		}
		if err := s.Aggregator.AddLeads(ctx, tx, events); err != nil {
			return fmt.Errorf("aggregate leads: %w", err)
		}
		res.Events = events
		return nil
	})
	if errors.Is(err, errDuplicate) {
		return duplicate()
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// SaleInput is a validated POST /track/sale body.
type SaleInput struct {
	CustomerExternalID string
	Amount             int64
	Currency           string // lower-case
	EventName          string
	PaymentProcessor   string
	InvoiceID          *string
	Metadata           map[string]any
	LeadEventName      *string
	ClickID            *string
	CustomerName       *string
	CustomerEmail      *string
	CustomerAvatar     *string
	// StripeCustomerID is stored on the customer when it has none (sales
	// from Stripe events, docs/stripe.md); nil on POST /track/sale.
	StripeCustomerID *string
}

var errReplay = errors.New("invoice already tracked")

// TrackSale records a sale (§1.3). A repeated invoiceId replays the first
// response and records nothing.
func (s *Service) TrackSale(ctx context.Context, ws *models.Workspace, in SaleInput) (*wire.TrackSale, error) {
	invoice := ""
	if in.InvoiceID != nil {
		invoice = *in.InvoiceID
	}
	if invoice != "" {
		if r, err := s.replay(ctx, ws, invoice); err == nil || !models.IsNotFound(err) {
			return r, err
		}
	}
	empty := &wire.TrackSale{EventName: in.EventName}
	src, ok, err := s.saleSource(ctx, ws, in)
	if err != nil {
		return nil, err
	}
	if !ok {
		return empty, nil
	}
	cust, lead, click, clickLink := src.cust, src.lead, src.click, src.clickLink
	if in.Amount == 0 {
		return empty, nil
	}
	amount, currency := in.Amount, in.Currency
	if usd, ok := s.FX.ToUSDCents(in.Amount, in.Currency); ok {
		amount, currency = usd, "usd"
	}
	now := s.now()
	var resp *wire.TrackSale
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		if invoice != "" {
			claimed, err := tx.ClaimSaleInvoice(ctx, &models.SaleInvoice{WorkspaceID: ws.ID, InvoiceID: invoice, Response: "{}", CreatedAt: now})
			if err != nil {
				return err
			}
			if !claimed {
				return errReplay
			}
		}
		c, lv := cust, lead
		if c == nil {
			var err error
			c, lv, err = s.directSaleLead(ctx, tx, ws, in, click, clickLink, now)
			if err != nil {
				return err
			}
		}
		ev := &models.SaleEvent{
			EventID: ids.Nano(16), Timestamp: now, WorkspaceID: ws.ID, EventName: in.EventName, CustomerID: c.ID,
			Metadata: in.Metadata, LeadEventID: &lv.EventID, Amount: amount, Currency: currency,
			PaymentProcessor: in.PaymentProcessor, InvoiceID: invoice, ClickAttrs: lv.ClickAttrs,
		}
		if click != nil {
			// Direct sale tracking: the click's attributes override.
			ev.ClickAttrs = models.AttrsOf(click)
		}
		if err := tx.InsertSaleEvent(ctx, ev); err != nil {
			return err
		}
		link, err := tx.LinkByID(ctx, ws.ID, ev.LinkID)
		if err != nil && !models.IsNotFound(err) {
			return err
		}
		if err != nil {
			link = nil // deleted since the lead: the event stays, counters have no row
		}
		if err := bumpSaleCounters(ctx, tx, ws, c, link, amount); err != nil {
			return err
		}
		var programID, partnerID *string
		if link != nil && link.ProgramID != nil && link.PartnerID != nil {
			programID, partnerID = link.ProgramID, link.PartnerID
		}
		signup := c.CreatedAt
		if err := tx.AddCustomerSale(ctx, c, amount, now, programID, partnerID); err != nil {
			return err
		}
		if err := linkStripeCustomer(ctx, tx, c, in.StripeCustomerID); err != nil {
			return err
		}
		if link != nil {
			if err := s.saleCommission(ctx, tx, ws, in, c, link, ev, signup); err != nil {
				return err
			}
		}
		if err := s.Aggregator.AddSale(ctx, tx, ev); err != nil {
			return fmt.Errorf("aggregate sale: %w", err)
		}
		ext := c.ExternalID
		resp = &wire.TrackSale{
			EventName: in.EventName,
			Customer:  &wire.SaleCustomer{ID: c.ID, Name: DisplayName(c), Email: c.Email, Avatar: c.Avatar, ExternalID: &ext},
			Sale:      &wire.SaleInfo{Amount: amount, Currency: currency, PaymentProcessor: in.PaymentProcessor, InvoiceID: in.InvoiceID, Metadata: in.Metadata},
		}
		if invoice != "" {
			b, err := json.Marshal(resp)
			if err != nil {
				return fmt.Errorf("encode sale response: %w", err)
			}
			return tx.SetSaleInvoiceResponse(ctx, ws.ID, invoice, string(b))
		}
		return nil
	})
	if errors.Is(err, errReplay) {
		return s.replay(ctx, ws, invoice)
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// linkStripeCustomer stores a Stripe customer id on a customer that has
// none yet (upstream's checkout.session.completed does the same).
func linkStripeCustomer(ctx context.Context, tx *models.DB, c *models.Customer, id *string) error {
	if id == nil || *id == "" || c.StripeCustomerID != nil {
		return nil
	}
	return tx.UpdateCustomer(ctx, c, models.CustomerPatch{StripeCustomerID: &id})
}

// saleSource is what a sale is attributed to: the customer's latest lead
// (its lead event name, when given), or, for direct sale tracking of a
// customer not seen yet, a click.
type saleSource struct {
	cust      *models.Customer
	lead      *models.LeadEvent
	click     *models.Click
	clickLink *models.Link
}

// saleSource finds the sale's source; ok is false when the sale is
// recorded nowhere (an unknown customer without a click id).
func (s *Service) saleSource(ctx context.Context, ws *models.Workspace, in SaleInput) (src saleSource, ok bool, err error) {
	cust, err := s.DB.CustomerByExternalID(ctx, ws.ID, in.CustomerExternalID)
	if err != nil && !models.IsNotFound(err) {
		return src, false, err
	}
	if err == nil {
		src.cust = cust
	}
	switch {
	case src.cust != nil:
		if err := s.checkCustomerLink(ctx, ws, src.cust); err != nil {
			return src, false, err
		}
		name := ""
		if in.LeadEventName != nil {
			name = *in.LeadEventName
		}
		src.lead, err = s.DB.LatestLeadEvent(ctx, ws.ID, src.cust.ID, name)
		if models.IsNotFound(err) {
			label := "null"
			if in.LeadEventName != nil {
				label = *in.LeadEventName
			}
			return src, false, apierr.Newf(apierr.NotFound, "Lead event not found for externalId: %s and leadEventName: %s", in.CustomerExternalID, label)
		}
		return src, err == nil, err
	case in.ClickID == nil || *in.ClickID == "":
		return src, false, nil
	default:
		src.click, src.clickLink, err = s.attributionLink(ctx, s.DB, ws, *in.ClickID, "sale")
		return src, err == nil, err
	}
}

// bumpSaleCounters adds a sale to its link's counters (a conversion too
// when it is the customer's first sale on that link), in the transaction,
// and mirrors them on link. A deleted link (nil) has no counters.
func bumpSaleCounters(ctx context.Context, tx *models.DB, ws *models.Workspace, c *models.Customer, link *models.Link, amount int64) error {
	if link == nil {
		return nil
	}
	first := c.Sales == 0 || c.LinkID == nil || *c.LinkID != link.ID
	d := models.LinkCounters{Sales: 1, SaleAmount: amount}
	if first {
		d.Conversions = 1
	}
	if err := tx.BumpLinkCounters(ctx, ws.ID, link.ID, d); err != nil {
		return err
	}
	link.Sales, link.SaleAmount, link.Conversions = link.Sales+1, link.SaleAmount+amount, link.Conversions+d.Conversions
	return nil
}

// saleCommission creates the sale's commission, if it earns one, and the
// sale.created webhook event (for a non-zero amount), in the transaction.
func (s *Service) saleCommission(ctx context.Context, tx *models.DB, ws *models.Workspace, in SaleInput, c *models.Customer, link *models.Link, ev *models.SaleEvent, signup time.Time) error {
	var inv *string
	if ev.InvoiceID != "" {
		invoice := ev.InvoiceID
		inv = &invoice
	}
	cm, err := s.eventCommission(ctx, tx, commissionEvent{
		Workspace: ws, Link: link, Customer: c, Type: models.CommissionSale, Quantity: 1, Amount: ev.Amount,
		InvoiceID: inv, EventID: ev.EventID, Metadata: in.Metadata, At: ev.Timestamp, SignupAt: signup,
	})
	if err != nil || ev.Amount <= 0 {
		return err
	}
	return s.emitSale(ctx, tx, leadEvent{name: in.EventName, customer: c, attrs: ev.ClickAttrs, link: link,
		metadata: in.Metadata, commission: cm}, wire.Sale{Amount: ev.Amount, Currency: ev.Currency,
		PaymentProcessor: in.PaymentProcessor, InvoiceID: ev.InvoiceID})
}

// replay returns the stored first response of an invoice.
func (s *Service) replay(ctx context.Context, ws *models.Workspace, invoice string) (*wire.TrackSale, error) {
	stored, err := s.DB.SaleInvoiceByID(ctx, ws.ID, invoice)
	if err != nil {
		return nil, err
	}
	var r wire.TrackSale
	if err := json.Unmarshal([]byte(stored.Response), &r); err != nil {
		return nil, fmt.Errorf("decode stored sale response %s: %w", invoice, err)
	}
	return &r, nil
}

// checkCustomerLink applies §1.3 step 2's link checks to a known customer.
func (s *Service) checkCustomerLink(ctx context.Context, ws *models.Workspace, c *models.Customer) error {
	if c.LinkID == nil {
		return apierr.Newf(apierr.NotFound, "Link not found for customer %s, sale not tracked", c.ID)
	}
	link, err := s.DB.LinkByID(ctx, ws.ID, *c.LinkID)
	if models.IsNotFound(err) {
		return apierr.Newf(apierr.NotFound, "Link %s for customer %s not found, sale not tracked", *c.LinkID, c.ID)
	}
	if err != nil {
		return err
	}
	if link.DisabledAt != nil && !link.DisabledAt.After(s.now()) {
		return apierr.Newf(apierr.NotFound, "Link %s for customer %s is disabled, sale not tracked", link.ID, c.ID)
	}
	return nil
}

// directSaleLead creates the customer of a direct sale and the lead event it
// is attributed to (§1.3 step 2, "no customer but clickId"). The lead counts
// on the link but earns no lead commission.
func (s *Service) directSaleLead(ctx context.Context, tx *models.DB, ws *models.Workspace, in SaleInput, click *models.Click, link *models.Link, now time.Time) (*models.Customer, *models.LeadEvent, error) {
	c, created, err := tx.GetOrCreateCustomer(ctx, newCustomer(ws, in.CustomerExternalID, in.CustomerName, in.CustomerEmail, in.CustomerAvatar, click, link, false, now))
	if err != nil {
		return nil, nil, err
	}
	name := DirectSaleLeadName
	if in.LeadEventName != nil && *in.LeadEventName != "" {
		name = *in.LeadEventName
	}
	if !created {
		// The customer appeared concurrently: reuse its lead, with this
		// click's attributes.
		lv, err := tx.LatestLeadEvent(ctx, ws.ID, c.ID, name)
		if err == nil {
			lv.ClickAttrs = models.AttrsOf(click)
			return c, lv, nil
		}
		if !models.IsNotFound(err) {
			return nil, nil, err
		}
	}
	lv := models.LeadEvent{
		EventID: ids.Nano(16), Timestamp: now, WorkspaceID: ws.ID, EventName: name, CustomerID: c.ID,
		ClickAttrs: models.AttrsOf(click),
	}
	if err := tx.InsertLeadEvents(ctx, []models.LeadEvent{lv}); err != nil {
		return nil, nil, err
	}
	if err := tx.BumpLinkCounters(ctx, ws.ID, link.ID, models.LinkCounters{Leads: 1}); err != nil {
		return nil, nil, err
	}
	if err := s.Aggregator.AddLeads(ctx, tx, []models.LeadEvent{lv}); err != nil {
		return nil, nil, fmt.Errorf("aggregate leads: %w", err)
	}
	// A direct sale's new customer is a lead too (spec/webhooks.md §3.4); on
	// a partner's link it carries the partner (emitLead).
	l := *link
	l.Leads++
	if err := s.emitLead(ctx, tx, leadEvent{name: name, customer: c, attrs: lv.ClickAttrs, clickedAt: click.Timestamp,
		link: &l}); err != nil {
		return nil, nil, err
	}
	return c, &lv, nil
}
