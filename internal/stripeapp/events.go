package stripeapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stripe/stripe-go/v85"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
)

// event is a verified event being handled.
type event struct {
	ws   *models.Workspace
	id   string
	mode string // live | test, from the event's livemode
	raw  json.RawMessage
}

// expandable is a Stripe field that is an id or an expanded object.
type expandable string

func (x *expandable) UnmarshalJSON(b []byte) error {
	if id, ok := stripe.ParseID(b); ok {
		*x = expandable(id)
		return nil
	}
	var o struct {
		ID string `json:"id"`
	}
	if string(b) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("stripe id or object: %w", err)
	}
	*x = expandable(o.ID)
	return nil
}

// legacy holds fields of older Stripe API versions (and nullable ones
// stripe-go's types read as zero) that attribution uses when present.
type legacy struct {
	Invoice           expandable `json:"invoice"`
	PaymentIntent     expandable `json:"payment_intent"`
	Subscription      expandable `json:"subscription"`
	TotalExcludingTax *int64     `json:"total_excluding_tax"`
}

// Upstream's metadata keys naming the Relink (Dub) customer and click.
const (
	keyExternalID = "dubCustomerExternalId"
	keyCustomerID = "dubCustomerId"
	keyClickID    = "dubClickId"
	clickPrefix   = "dub_id_"
)

func externalIDOf(md map[string]string) string {
	if v := strings.TrimSpace(md[keyExternalID]); v != "" {
		return v
	}
	return strings.TrimSpace(md[keyCustomerID])
}

// saleMetadata is a sale's metadata: the Stripe object's own metadata, the
// mode and the event and object it came from.
func saleMetadata(e event, md map[string]string, objectKey, objectID string) map[string]any {
	out := map[string]any{}
	for k, v := range md {
		out[k] = v
	}
	out["stripeMode"], out["stripeEventId"], out[objectKey] = e.mode, e.id, objectID
	return out
}

// skipped turns a 4xx of the tracking rules into the event's answer (the
// event is not one Relink can record); other errors stay errors.
func skipped(what string, err error) (string, error) {
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code != apierr.InternalServerError && ae.Code != apierr.Unavailable {
		return fmt.Sprintf("%s not recorded: %s", what, ae.Message), nil
	}
	return "", err
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// invoiceSeen reports whether a sale was already recorded for the invoice.
func (s *Service) invoiceSeen(ctx context.Context, ws *models.Workspace, invoice string) (bool, error) {
	if invoice == "" {
		return false, nil
	}
	_, err := s.DB.SaleInvoiceByID(ctx, ws.ID, invoice)
	if models.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// track records the sale through POST /track/sale's path.
func (s *Service) track(ctx context.Context, ws *models.Workspace, in conversions.SaleInput) (string, error) {
	resp, err := s.Conv.TrackSale(ctx, ws, in)
	if err != nil {
		return skipped("Sale", err)
	}
	if resp.Sale == nil || resp.Customer == nil {
		return fmt.Sprintf("Sale not recorded: no customer with external ID %s and no click, skipping...", in.CustomerExternalID), nil
	}
	inv := ""
	if in.InvoiceID != nil {
		inv = *in.InvoiceID
	}
	return fmt.Sprintf("Sale recorded for customer %s (%d %s) and invoice ID %s", resp.Customer.ID, resp.Sale.Amount, resp.Sale.Currency, inv), nil
}

// checkoutSessionCompleted records a Checkout payment
// (checkout-session-completed.ts).
func (s *Service) checkoutSessionCompleted(ctx context.Context, e event) (string, error) {
	var cs stripe.CheckoutSession
	var lg legacy
	if json.Unmarshal(e.raw, &cs) != nil || json.Unmarshal(e.raw, &lg) != nil {
		return "Could not read the checkout session, skipping...", nil
	}
	stripeCustomer := ""
	if cs.Customer != nil {
		stripeCustomer = cs.Customer.ID
	}
	var name, email string
	if cs.CustomerDetails != nil {
		name, email = cs.CustomerDetails.Name, cs.CustomerDetails.Email
	}
	amount := cs.AmountTotal
	if cs.TotalDetails != nil {
		amount -= cs.TotalDetails.AmountTax
	}
	switch {
	case cs.Mode == stripe.CheckoutSessionModeSetup:
		return fmt.Sprintf("Checkout session completed for Stripe customer %s but mode is \"setup\", skipping...", stripeCustomer), nil
	case cs.PaymentStatus != stripe.CheckoutSessionPaymentStatusPaid:
		return fmt.Sprintf("Checkout session completed for Stripe customer %s but payment_status is not \"paid\", skipping...", stripeCustomer), nil
	case amount <= 0:
		return fmt.Sprintf("Checkout session completed for Stripe customer %s but amount is 0, skipping...", stripeCustomer), nil
	}
	currency := string(cs.Currency)
	if cc := cs.CurrencyConversion; cc != nil && currency != "usd" && cc.SourceCurrency != "" {
		// Stripe Adaptive Pricing: the amount in the account's currency.
		currency, amount = string(cc.SourceCurrency), cc.AmountTotal
	}
	pi, invoice := string(lg.PaymentIntent), string(lg.Invoice)
	if err := s.DB.LinkStripePayment(ctx, e.ws.ID, pi, invoice); err != nil {
		return "", err
	}
	if invoice == "" {
		invoice = pi
	}
	if seen, err := s.invoiceSeen(ctx, e.ws, invoice); err != nil || seen {
		return fmt.Sprintf("Invoice with ID %s already processed, skipping...", invoice), err
	}
	eventName := "Subscription creation"
	if cs.Mode == stripe.CheckoutSessionModePayment {
		eventName = "Purchase"
	}
	in := conversions.SaleInput{Amount: amount, Currency: strings.ToLower(currency), EventName: eventName,
		PaymentProcessor: "stripe", InvoiceID: strp(invoice), Metadata: saleMetadata(e, cs.Metadata, "stripeCheckoutSessionId", cs.ID),
		StripeCustomerID: strp(stripeCustomer)}
	skip, err := s.checkoutCustomer(ctx, e.ws, &cs, &in, stripeCustomer, name, email)
	if err != nil || skip != "" {
		return skip, err
	}
	return s.track(ctx, e.ws, in)
}

// checkoutCustomer sets who a checkout sale belongs to: the click of a
// client_reference_id "dub_id_…" (a new customer gets a lead first), the
// customer named by the session's metadata, or the customer already linked
// to the Stripe customer (or with its email). skip says why there is none.
func (s *Service) checkoutCustomer(ctx context.Context, ws *models.Workspace, cs *stripe.CheckoutSession, in *conversions.SaleInput, stripeCustomer, name, email string) (string, error) {
	if clickID, ok := strings.CutPrefix(cs.ClientReferenceID, clickPrefix); ok && clickID != "" {
		c, err := s.firstCustomer(ctx, ws, stripeCustomer, email, stripeCustomer, email, clickID)
		if err != nil {
			return "", err
		}
		if c != nil {
			in.CustomerExternalID = c.ExternalID
			return "", nil
		}
		// No customer yet: the sale's direct tracking records the lead
		// ("Sign up", as upstream names it) and then the sale.
		in.CustomerExternalID = firstNonEmpty(stripeCustomer, email, clickID)
		in.ClickID, in.CustomerName, in.CustomerEmail = &clickID, strp(name), strp(email)
		lead := "Sign up"
		in.LeadEventName = &lead
		return "", nil
	}
	if ext := externalIDOf(cs.Metadata); ext != "" {
		c, err := s.firstCustomer(ctx, ws, "", "", ext)
		if err != nil || c == nil {
			return fmt.Sprintf("dubCustomerExternalId was provided but customer with dubCustomerExternalId %s not found, skipping...", ext), err
		}
		in.CustomerExternalID = c.ExternalID
		return "", nil
	}
	if stripeCustomer == "" {
		return "No stripeCustomerId or dubCustomerExternalId found in Stripe checkout session metadata, skipping...", nil
	}
	c, err := s.firstCustomer(ctx, ws, stripeCustomer, email)
	if err != nil || c == nil {
		return fmt.Sprintf("dubCustomerExternalId not found in Stripe checkout session metadata, no customer is linked to Stripe customer %s, and client_reference_id is not a dub_id, skipping...", stripeCustomer), err
	}
	in.CustomerExternalID = c.ExternalID
	return "", nil
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

// firstCustomer is the first customer found by Stripe customer id, then
// email, then each external id; nil when none.
func (s *Service) firstCustomer(ctx context.Context, ws *models.Workspace, stripeCustomer, email string, externalIDs ...string) (*models.Customer, error) {
	try := func(c *models.Customer, err error) (*models.Customer, bool, error) {
		if err == nil {
			return c, true, nil
		}
		if models.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if stripeCustomer != "" {
		if c, ok, err := try(s.DB.CustomerByStripeID(ctx, ws.ID, stripeCustomer)); ok || err != nil {
			return c, err
		}
	}
	if email != "" {
		if c, ok, err := try(s.DB.CustomerByEmail(ctx, ws.ID, email)); ok || err != nil {
			return c, err
		}
	}
	for _, ext := range externalIDs {
		if ext == "" {
			continue
		}
		if c, ok, err := try(s.DB.CustomerByExternalID(ctx, ws.ID, ext)); ok || err != nil {
			return c, err
		}
	}
	return nil, nil
}

// invoicePaid records an invoice's payment, a subscription's recurring
// sales among them (invoice-paid.ts).
func (s *Service) invoicePaid(ctx context.Context, e event) (string, error) {
	var inv stripe.Invoice
	var lg legacy
	if json.Unmarshal(e.raw, &inv) != nil || json.Unmarshal(e.raw, &lg) != nil || inv.ID == "" {
		return "Invoice ID not found, skipping...", nil
	}
	if inv.Customer == nil || inv.Customer.ID == "" {
		return "Stripe customer ID not found on invoice, skipping...", nil
	}
	stripeCustomer := inv.Customer.ID
	if err := s.DB.LinkStripePayment(ctx, e.ws.ID, string(lg.PaymentIntent), inv.ID); err != nil {
		return "", err
	}
	subMeta := map[string]string{}
	subscription := string(lg.Subscription) != ""
	if inv.Parent != nil && inv.Parent.SubscriptionDetails != nil {
		subscription, subMeta = true, inv.Parent.SubscriptionDetails.Metadata
	}
	c, err := s.firstCustomer(ctx, e.ws, stripeCustomer, "", externalIDOf(inv.Metadata), externalIDOf(subMeta))
	if err != nil {
		return "", err
	}
	if c == nil {
		return fmt.Sprintf("Customer with stripeCustomerId %s not found (nor does the invoice or its subscription carry a known dubCustomerExternalId), skipping...", stripeCustomer), nil
	}
	// Excluding tax when paid in full; what was paid otherwise (credits).
	amount := inv.AmountPaid
	if lg.TotalExcludingTax != nil && inv.AmountPaid == inv.Total {
		amount = *lg.TotalExcludingTax
	}
	if seen, err := s.invoiceSeen(ctx, e.ws, inv.ID); err != nil || seen {
		return fmt.Sprintf("Invoice with ID %s already processed, skipping...", inv.ID), err
	}
	if amount <= 0 {
		return fmt.Sprintf("Invoice with ID %s has an amount of 0, skipping...", inv.ID), nil
	}
	eventName := "Purchase"
	if subscription {
		eventName = "Invoice paid"
	}
	md := map[string]string{}
	for _, m := range []map[string]string{subMeta, inv.Metadata} {
		for k, v := range m {
			md[k] = v
		}
	}
	return s.track(ctx, e.ws, conversions.SaleInput{CustomerExternalID: c.ExternalID, Amount: amount,
		Currency: strings.ToLower(string(inv.Currency)), EventName: eventName, PaymentProcessor: "stripe",
		InvoiceID: &inv.ID, Metadata: saleMetadata(e, md, "stripeInvoiceId", inv.ID), StripeCustomerID: &stripeCustomer})
}

// invoicePaymentPaid notes which invoice a payment intent paid, for
// refunds (charges name no invoice since Stripe's 2025-03-31 API).
func (s *Service) invoicePaymentPaid(ctx context.Context, e event) (string, error) {
	var ip stripe.InvoicePayment
	if json.Unmarshal(e.raw, &ip) != nil || ip.Invoice == nil || ip.Payment == nil || ip.Payment.PaymentIntent == nil {
		return "Invoice payment without an invoice or payment intent, skipping...", nil
	}
	if err := s.DB.LinkStripePayment(ctx, e.ws.ID, ip.Payment.PaymentIntent.ID, ip.Invoice.ID); err != nil {
		return "", err
	}
	return fmt.Sprintf("Payment %s linked to invoice %s", ip.Payment.PaymentIntent.ID, ip.Invoice.ID), nil
}

// chargeRefunded adjusts the refunded sale's commission (charge-refunded.ts).
func (s *Service) chargeRefunded(ctx context.Context, e event) (string, error) {
	var ch stripe.Charge
	var lg legacy
	if json.Unmarshal(e.raw, &ch) != nil || json.Unmarshal(e.raw, &lg) != nil {
		return "Could not read the charge, skipping...", nil
	}
	invoices := []string{string(lg.Invoice)}
	if pi := string(lg.PaymentIntent); pi != "" {
		mapped, err := s.DB.StripePaymentInvoice(ctx, e.ws.ID, pi)
		if err != nil {
			return "", err
		}
		invoices = append(invoices, mapped, pi)
	}
	if firstNonEmpty(invoices...) == "" {
		return fmt.Sprintf("Charge %s has no invoice, skipping...", ch.ID), nil
	}
	return s.Conv.RefundSale(ctx, e.ws, conversions.Refund{InvoiceIDs: invoices, Charged: ch.Amount, Refunded: ch.AmountRefunded})
}

// syncCustomer links a Stripe customer to the Relink customer its metadata
// names, or creates that customer with a lead from its click
// (utils/sync-customer.ts).
func (s *Service) syncCustomer(ctx context.Context, e event) (string, error) {
	var cu stripe.Customer
	if json.Unmarshal(e.raw, &cu) != nil || cu.ID == "" {
		return "Could not read the customer, skipping...", nil
	}
	ext := externalIDOf(cu.Metadata)
	if ext == "" {
		return "External ID not found in Stripe customer metadata, skipping...", nil
	}
	c, err := s.firstCustomer(ctx, e.ws, "", "", ext)
	if err == nil && c == nil {
		c, err = s.firstCustomer(ctx, e.ws, cu.ID, "")
	}
	if err != nil {
		return "", err
	}
	if c == nil {
		clickID := strings.TrimSpace(cu.Metadata[keyClickID])
		if clickID == "" {
			return "Click ID not found in Stripe customer metadata, skipping...", nil
		}
		_, err := s.Conv.TrackLead(ctx, e.ws, conversions.LeadInput{ClickID: clickID, EventName: "New customer",
			CustomerExternalID: ext, CustomerName: strp(cu.Name), CustomerEmail: strp(cu.Email), Mode: conversions.ModeWait, EventQuantity: 1})
		if err != nil {
			return skipped("Lead", err)
		}
		if c, err = s.DB.CustomerByExternalID(ctx, e.ws.ID, ext); err != nil {
			return "", err
		}
	}
	sid := &cu.ID
	p := models.CustomerPatch{StripeCustomerID: &sid}
	if c.ExternalID != ext {
		p.ExternalID = &ext
	}
	if n := strp(cu.Name); n != nil {
		p.Name = &n
	}
	if m := strp(cu.Email); m != nil {
		p.Email = &m
	}
	if err := s.DB.UpdateCustomer(ctx, c, p); err != nil {
		return skipped("Customer", err)
	}
	return fmt.Sprintf("Customer %s linked to Stripe customer %s.", c.ID, cu.ID), nil
}

// subscriptionDeleted records a cancellation on the customer
// (customer-subscription-deleted.ts: subscriptionCanceledAt).
func (s *Service) subscriptionDeleted(ctx context.Context, e event) (string, error) {
	var sub stripe.Subscription
	if json.Unmarshal(e.raw, &sub) != nil || sub.Customer == nil {
		return "Customer not found, skipping subscription cancellation...", nil
	}
	c, err := s.firstCustomer(ctx, e.ws, sub.Customer.ID, "")
	if err != nil || c == nil {
		return "Customer not found, skipping subscription cancellation...", err
	}
	at := s.Now().UTC()
	if err := s.DB.CancelCustomerSubscription(ctx, c, at); err != nil {
		return "", err
	}
	return fmt.Sprintf("Subscription cancelled, updating customer %s with subscriptionCanceledAt: %s", c.ID, at.Format("2006-01-02T15:04:05.000Z")), nil
}
