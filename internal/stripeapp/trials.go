package stripeapp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stripe/stripe-go/v85"

	"github.com/relinkhq/relink/internal/conversions"
)

// TrialEventName is the lead event a free trial records (Dub's).
const TrialEventName = "Started Trial"

// subscriptionCreated records a free trial's start as a lead
// (customer-subscription-created.ts, used only for that): when the
// workspace turned free trials on and the subscription is trialing, the
// customer — linked to the Stripe customer, or named by the subscription's
// dubCustomerExternalId/dubCustomerId metadata (Dub asks Stripe's API for
// the customer's email instead; Relink holds no Stripe API key) — gets a
// "Started Trial" lead on its click, one per seat with TrackQuantity. The
// lead goes through POST /track/lead's path (counters, lead reward,
// lead.created), deduplicated per customer and event name as there.
func (s *Service) subscriptionCreated(ctx context.Context, e event) (string, error) {
	var sub stripe.Subscription
	if json.Unmarshal(e.raw, &sub) != nil || sub.Customer == nil || sub.Customer.ID == "" {
		return "Could not read the subscription's customer, skipping...", nil
	}
	if sub.Status != stripe.SubscriptionStatusTrialing {
		return "Subscription is not in trialing status, skipping...", nil
	}
	set, err := s.DB.StripeSettingsOf(ctx, e.ws.ID)
	if err != nil {
		return "", err
	}
	if !set.FreeTrials {
		return fmt.Sprintf("Stripe free trial tracking is not enabled for workspace ws_%s, skipping...", e.ws.ID), nil
	}
	stripeCustomer := sub.Customer.ID
	c, err := s.firstCustomer(ctx, e.ws, stripeCustomer, "", externalIDOf(sub.Metadata))
	if err != nil {
		return "", err
	}
	switch {
	case c == nil:
		return fmt.Sprintf("Customer with stripeCustomerId %s has not been tracked yet, skipping...", stripeCustomer), nil
	case c.ClickID == nil || *c.ClickID == "":
		return fmt.Sprintf("Customer %s has no clickId, skipping...", c.ID), nil
	case c.ExternalID == "":
		return fmt.Sprintf("Customer %s has no externalId, skipping...", c.ID), nil
	}
	quantity := int64(1)
	if set.TrialQuantity && sub.Items != nil && len(sub.Items.Data) > 0 && sub.Items.Data[0].Quantity > 0 {
		quantity = sub.Items.Data[0].Quantity
	}
	res, err := s.Conv.TrackLead(ctx, e.ws, conversions.LeadInput{ClickID: *c.ClickID, EventName: TrialEventName,
		CustomerExternalID: c.ExternalID, CustomerName: c.Name, CustomerEmail: c.Email, Mode: conversions.ModeWait,
		EventQuantity: quantity, Metadata: map[string]any{"stripeMode": e.mode, "stripeEventId": e.id, "stripeSubscriptionId": sub.ID}})
	if err != nil {
		return skipped("Lead", err)
	}
	if res.Duplicate {
		return fmt.Sprintf("Customer %s already has a %q lead, skipping...", c.ID, TrialEventName), nil
	}
	return fmt.Sprintf("Customer subscription created for customer %s with stripeCustomerId %s and workspace ws_%s", c.ID, stripeCustomer, e.ws.ID), nil
}
