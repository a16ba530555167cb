package api

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
)

// cents reads a centsSchema field: a number, or a string or bigint coerced
// to one (parity.md §2.1). Fractions are refused (§2.7: Relink's choice).
func (o *object) cents(name string, required bool) *int64 {
	r, ok := o.raw(name)
	if !ok {
		if required {
			o.fail("invalid_type", name, "Invalid input: expected number, received "+kindOf(o.m[name]))
		}
		return nil
	}
	if kindOf(r) == "string" {
		var s string
		_ = json.Unmarshal(r, &s)
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			o.fail("invalid_type", name, "Invalid input: expected number, received NaN")
			return nil
		}
		r = json.RawMessage(strconv.FormatFloat(f, 'f', -1, 64))
		o.m[name] = r
	}
	return o.integer(name, intOpts{required: required})
}

// date reads a parseDateSchema field: ISO 8601 date-times and dates.
func (o *object) date(name string) *time.Time {
	s := o.str(name, strOpts{trim: true})
	if s == nil {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, *s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	o.fail("custom", name, "Invalid date")
	return nil
}

// commissionTypes are POST /commissions' union members.
var manualCommissionTypes = []string{models.CommissionCustom, models.CommissionLead, models.CommissionSale}

// parseManualCommission validates a POST /commissions body (parity.md §2.1,
// §2.2): the union member's fields in schema order, then the refinements.
func parseManualCommission(body []byte, fx *conversions.FX) (conversions.ManualCommissionInput, error) {
	var in conversions.ManualCommissionInput
	o, err := decodeObject(body)
	if err != nil {
		return in, err
	}
	t := o.str("type", strOpts{})
	if o.err != nil || t == nil || !contains(manualCommissionTypes, *t) {
		return in, apierr.Validation("invalid_union", "type", "Invalid input")
	}
	in.Type = *t
	if v := o.str("partnerId", strOpts{required: true}); v != nil {
		in.PartnerID = *v
	}
	if in.Type == models.CommissionCustom {
		return in, parseCustomCommission(o, &in)
	}
	if v := o.str("customerId", strOpts{trim: true}); v != nil && *v != "" {
		in.CustomerID = *v
	}
	if c := o.child("customer"); c != nil {
		in.Customer = parseCustomerObject(c)
		if c.err != nil && o.err == nil {
			o.err = c.err
		}
	}
	if v := o.str("linkId", strOpts{trim: true}); v != nil && *v != "" {
		in.LinkID = *v
	}
	if in.Type == models.CommissionLead {
		parseManualLead(o, &in)
		return in, o.err
	}
	return in, parseManualSale(o, &in, fx)
}

func parseCustomCommission(o *object, in *conversions.ManualCommissionInput) error {
	amount := o.cents("amount", true)
	if amount != nil && *amount == 0 {
		o.fail("custom", "amount", "Amount cannot be 0.")
	}
	in.Date = o.date("date")
	in.Description = o.str("description", strOpts{max: 190})
	if o.err != nil {
		return o.err
	}
	in.Amount = *amount
	if in.Amount < 0 && (in.Description == nil || strings.TrimSpace(*in.Description) == "") {
		return apierr.Validation("custom", "description", "`description` is required when creating a clawback (negative amount).")
	}
	return nil
}

func parseCustomerObject(c *object) *conversions.CustomerInput {
	var out conversions.CustomerInput
	if v := c.str("email", strOpts{email: true}); v != nil {
		out.Email = v
	}
	out.Name = c.str("name", strOpts{})
	if v := c.str("avatar", strOpts{url: true}); v != nil {
		out.Avatar = v
	}
	if v := c.str("externalId", strOpts{required: true, reqMsg: "External ID is required"}); v != nil {
		out.ExternalID = *v
	}
	out.StripeCustomerID = c.str("stripeCustomerId", strOpts{})
	if v := c.str("country", strOpts{required: true}); v != nil {
		out.Country = *v
	}
	return &out
}

func parseManualLead(o *object, in *conversions.ManualCommissionInput) {
	legacyDate := o.date("leadEventDate")
	name := "Sign up"
	if v := o.str("leadEventName", strOpts{}); v != nil {
		name = *v
	}
	in.Date = o.date("date")
	if in.Date == nil {
		in.Date = legacyDate
	}
	if l := o.child("lead"); l != nil {
		if v := l.str("eventName", strOpts{trim: true, min: 1, max: 255}); v != nil {
			name = *v
		}
		in.Metadata = l.metadata("metadata")
		if l.err != nil && o.err == nil {
			o.err = l.err
		}
	}
	in.EventName = name
}

func parseManualSale(o *object, in *conversions.ManualCommissionInput, fx *conversions.FX) error {
	if r, ok := o.raw("importStripeInvoices"); ok {
		var b bool
		if err := json.Unmarshal(r, &b); err != nil {
			o.fail("invalid_type", "importStripeInvoices", "Invalid input: expected boolean, received "+kindOf(r))
		}
		in.ImportStripeInvoices = b
	}
	amount := o.cents("saleAmount", false)
	if amount != nil && *amount < 0 {
		o.fail("too_small", "saleAmount", "Too small: expected number to be >=0")
	}
	legacyDate := o.date("saleEventDate")
	in.InvoiceID = nonBlank(o.str("invoiceId", strOpts{}))
	in.ProductID = nonBlank(o.str("productId", strOpts{}))
	in.Date = o.date("date")
	if in.Date == nil {
		in.Date = legacyDate
	}
	in.Currency = "usd"
	amountPath := "saleAmount"
	if s := o.child("sale"); s != nil {
		amountPath = "sale.amount"
		if v := s.integer("amount", intOpts{min: bound(0)}); v != nil {
			amount = v
		}
		if v := s.str("currency", strOpts{trim: true, lower: true}); v != nil {
			in.Currency = *v
		}
		if v := s.str("eventName", strOpts{max: 255}); v != nil {
			in.EventName = *v
		}
		in.PaymentProcessor = s.enum("paymentProcessor", paymentProcessors, "custom")
		if v := nonBlank(s.str("invoiceId", strOpts{})); v != nil {
			in.InvoiceID = v
		}
		in.Metadata = s.metadata("metadata")
		if len(in.Metadata) == 0 {
			in.Metadata = nil
		}
		if pid, ok := in.Metadata["productId"].(string); ok && pid != "" {
			in.ProductID = &pid
		}
		if s.err != nil && o.err == nil {
			o.err = s.err
		}
	}
	if o.err != nil || in.ImportStripeInvoices {
		return o.err
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

func nonBlank(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	return s
}

type queuedJSON struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// CreateCommission answers POST /commissions (parity.md §2) with 202.
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

// BulkUpdateCommissions answers PATCH /commissions/bulk (parity.md §3).
func (h *Handlers) BulkUpdateCommissions(c *fiber.Ctx) error {
	o, err := decodeObject(c.Body())
	if err != nil {
		return err
	}
	idList := o.stringArray("commissionIds")
	switch {
	case o.err != nil:
	case len(idList) == 0:
		o.fail("too_small", "commissionIds", "At least one commission ID is required.")
	case len(idList) > 100:
		o.fail("too_big", "commissionIds", "You can only update up to 100 commissions at a time.")
	case !unique(idList):
		o.fail("custom", "commissionIds", "commissionIds must be unique.")
	}
	status := o.str("status", strOpts{})
	if o.err == nil && (status == nil || !contains(conversions.EditableStatuses, *status)) {
		o.fail("invalid_value", "status", "Invalid option: expected one of "+quoteOptions(conversions.EditableStatuses))
	}
	if o.err != nil {
		return o.err
	}
	out, err := h.Conversions.BulkUpdateCommissions(c.UserContext(), request.Workspace(c), idList, *status)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// stringArray reads a required array of strings.
func (o *object) stringArray(name string) []string {
	r, ok := o.raw(name)
	if !ok {
		o.fail("invalid_type", name, "Invalid input: expected array, received "+kindOf(o.m[name]))
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(r, &raw); err != nil {
		o.fail("invalid_type", name, "Invalid input: expected array, received "+kindOf(r))
		return nil
	}
	out := make([]string, 0, len(raw))
	for i, item := range raw {
		var s string
		if err := json.Unmarshal(item, &s); err != nil {
			o.fail("invalid_type", name+"["+strconv.Itoa(i)+"]", "Invalid input: expected string, received "+kindOf(item))
			return nil
		}
		out = append(out, s)
	}
	return out
}

func unique(v []string) bool {
	seen := map[string]bool{}
	for _, s := range v {
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}
