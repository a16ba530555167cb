package api

import (
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/models"
)

// commissionTypes are POST /commissions' union members.
var manualCommissionTypes = []string{models.CommissionCustom, models.CommissionLead, models.CommissionSale}

// parseManualCommission validates a POST /commissions body (spec/parity.md §2.1,
// §2.2): the union member's fields in schema order, then the refinements.
func parseManualCommission(body []byte, fx *conversions.FX) (conversions.ManualCommissionInput, error) {
	var in conversions.ManualCommissionInput
	o, err := input.DecodeNullish(body)
	if err != nil {
		return in, err
	}
	t := o.Str("type", input.Str{Max: input.MaxIdentifier}).Ptr()
	if o.Err() != nil || t == nil || !contains(manualCommissionTypes, *t) {
		return in, apierr.Validation("invalid_union", "type", "Invalid input")
	}
	in.Type = *t
	if v := o.Str("partnerId", input.Str{Required: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.PartnerID = *v
	}
	if in.Type == models.CommissionCustom {
		return in, parseCustomCommission(o, &in)
	}
	if v := o.Str("customerId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil && *v != "" {
		in.CustomerID = *v
	}
	if c := o.Child("customer"); c != nil {
		in.Customer = parseCustomerObject(c)
		if c.Err() != nil {
			o.SetErr(c.Err())
		}
	}
	if v := o.Str("linkId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil && *v != "" {
		in.LinkID = *v
	}
	if in.Type == models.CommissionLead {
		parseManualLead(o, &in)
		return in, o.Err()
	}
	return in, parseManualSale(o, &in, fx)
}

func parseCustomCommission(o *input.Object, in *conversions.ManualCommissionInput) error {
	amount := cents(o, "amount", true)
	if amount != nil && *amount == 0 {
		o.Fail("custom", "amount", "Amount cannot be 0.")
	}
	in.Date = date(o, "date")
	in.Description = o.Str("description", input.Str{Max: 190}).Ptr()
	if o.Err() != nil {
		return o.Err()
	}
	in.Amount = *amount
	if in.Amount < 0 && (in.Description == nil || strings.TrimSpace(*in.Description) == "") {
		return apierr.Validation("custom", "description", "`description` is required when creating a clawback (negative amount).")
	}
	return nil
}

func parseCustomerObject(c *input.Object) *conversions.CustomerInput {
	var out conversions.CustomerInput
	if v := c.Str("email", input.Str{Check: input.Email}).Ptr(); v != nil {
		out.Email = v
	}
	out.Name = c.Str("name", input.Str{Max: input.MaxIdentifier}).Ptr()
	if v := c.Str("avatar", input.Str{Check: input.URL}).Ptr(); v != nil {
		out.Avatar = v
	}
	if v := c.Str("externalId", input.Str{Required: true, ReqMsg: "External ID is required", Max: input.MaxIdentifier}).Ptr(); v != nil {
		out.ExternalID = *v
	}
	out.StripeCustomerID = c.Str("stripeCustomerId", input.Str{Max: input.MaxIdentifier}).Ptr()
	if v := c.Str("country", input.Str{Required: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		out.Country = *v
	}
	return &out
}

func parseManualLead(o *input.Object, in *conversions.ManualCommissionInput) {
	legacyDate := date(o, "leadEventDate")
	name := "Sign up"
	if v := o.Str("leadEventName", input.Str{Max: input.MaxIdentifier}).Ptr(); v != nil {
		name = *v
	}
	in.Date = date(o, "date")
	if in.Date == nil {
		in.Date = legacyDate
	}
	if l := o.Child("lead"); l != nil {
		if v := l.Str("eventName", input.Str{Trim: true, Min: 1, Max: 255}).Ptr(); v != nil {
			name = *v
		}
		in.Metadata = l.Metadata("metadata")
		if l.Err() != nil {
			o.SetErr(l.Err())
		}
	}
	in.EventName = name
}

func parseManualSale(o *input.Object, in *conversions.ManualCommissionInput, fx *conversions.FX) error {
	if r, ok := o.Present("importStripeInvoices"); ok {
		var b bool
		if err := json.Unmarshal(r, &b); err != nil {
			o.Fail("invalid_type", "importStripeInvoices", "Invalid input: expected boolean, received "+input.Kind(r))
		}
		in.ImportStripeInvoices = b
	}
	amount := cents(o, "saleAmount", false)
	if amount != nil && *amount < 0 {
		o.Fail("too_small", "saleAmount", "Too small: expected number to be >=0")
	}
	legacyDate := date(o, "saleEventDate")
	in.InvoiceID = nonBlank(o.Str("invoiceId", input.Str{Max: input.MaxIdentifier}).Ptr())
	in.ProductID = nonBlank(o.Str("productId", input.Str{Max: input.MaxIdentifier}).Ptr())
	in.Date = date(o, "date")
	if in.Date == nil {
		in.Date = legacyDate
	}
	in.Currency = "usd"
	amountPath := "saleAmount"
	if s := o.Child("sale"); s != nil {
		amountPath = "sale.amount"
		if v := s.Int("amount", input.Num{Min: input.Bound(0)}); v != nil {
			amount = v
		}
		if v := s.Str("currency", input.Str{Trim: true, Lower: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
			in.Currency = *v
		}
		if v := s.Str("eventName", input.Str{Max: 255}).Ptr(); v != nil {
			in.EventName = *v
		}
		in.PaymentProcessor = s.Enum("paymentProcessor", paymentProcessors, "custom")
		if v := nonBlank(s.Str("invoiceId", input.Str{Max: input.MaxIdentifier}).Ptr()); v != nil {
			in.InvoiceID = v
		}
		in.Metadata = s.Metadata("metadata")
		if len(in.Metadata) == 0 {
			in.Metadata = nil
		}
		if pid, ok := in.Metadata["productId"].(string); ok && pid != "" {
			in.ProductID = &pid
		}
		if s.Err() != nil {
			o.SetErr(s.Err())
		}
	}
	if o.Err() != nil || in.ImportStripeInvoices {
		return o.Err()
	}
	switch {
	case amount == nil && amountPath == "saleAmount":
		return apierr.Validation("custom", "saleAmount", "`saleAmount` is required when `importStripeInvoices` is false.")
	case amount == nil:
		return apierr.Validation("custom", "sale.amount", "`sale.amount` or `saleAmount` is required when `importStripeInvoices` is false.")
	case *amount == 0:
		return apierr.Validation("custom", amountPath, "Sale amount cannot be 0.")
	}
	in.SaleAmount = *amount
	if usd, ok := fx.ToUSDCents(*amount, in.Currency); ok {
		in.SaleAmount = usd
	}
	return nil
}

// paymentProcessors are the sale processors the SDK allows.
var paymentProcessors = []string{"stripe", "shopify", "polar", "paddle", "apple", "revenuecat", "lemonsqueezy", "dub", "custom"}

type queuedJSON struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// CreateCommission answers POST /commissions (spec/parity.md §2) with 202.
func (h *Handlers) CreateCommission(c *fiber.Ctx) error {
	in, err := parseManualCommission(c.Body(), h.Conversions.FX)
	if err != nil {
		return err
	}
	if p := request.PrincipalOf(c); p != nil && p.Key != nil {
		in.UserID = p.Key.UserID
	}
	msg, err := h.Conversions.CreateManualCommission(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(queuedJSON{Success: true, Message: msg})
}

// BulkUpdateCommissions answers PATCH /commissions/bulk (spec/parity.md §3).
func (h *Handlers) BulkUpdateCommissions(c *fiber.Ctx) error {
	o, err := input.DecodeNullish(c.Body())
	if err != nil {
		return err
	}
	idList := stringArray(o, "commissionIds")
	switch {
	case o.Err() != nil:
	case len(idList) == 0:
		o.Fail("too_small", "commissionIds", "At least one commission ID is required.")
	case len(idList) > 100:
		o.Fail("too_big", "commissionIds", "You can only update up to 100 commissions at a time.")
	case !unique(idList):
		o.Fail("custom", "commissionIds", "commissionIds must be unique.")
	}
	status := o.Str("status", input.Str{Max: input.MaxIdentifier}).Ptr()
	if o.Err() == nil && (status == nil || !contains(conversions.EditableStatuses, *status)) {
		o.Fail("invalid_value", "status", "Invalid option: expected one of "+input.QuoteOptions(conversions.EditableStatuses))
	}
	if o.Err() != nil {
		return o.Err()
	}
	out, err := h.Conversions.BulkUpdateCommissions(c.UserContext(), request.Workspace(c), idList, *status)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
