package api

import (
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/links"
)

// msgExternalIDRequired answers a track call without a customer id.
const msgExternalIDRequired = "customerExternalId is required"

var leadModes = []string{conversions.ModeAsync, conversions.ModeWait, conversions.ModeDeferred}

// PaymentProcessors are the accepted sale processors (lemonsqueezy is what
// the newest SDK may send).
var PaymentProcessors = []string{"stripe", "shopify", "polar", "paddle", "apple", "revenuecat", "lemonsqueezy", "dub", "custom"}

// customerFields reads the customer id (with its deprecated aliases) and the
// optional name, email and avatar shared by both track bodies.
func customerFields(o *object, trimID bool) (ext string, name, email, avatar *string) {
	for _, k := range []string{"customerExternalId", "externalId", "customerId"} {
		if v := o.str(k, strOpts{trim: trimID}); v != nil && *v != "" && ext == "" {
			ext = *v
		}
	}
	name = o.str("customerName", strOpts{max: 100})
	email = o.str("customerEmail", strOpts{max: 100, email: true, trim: true})
	avatar = o.str("customerAvatar", strOpts{url: true})
	return ext, name, email, avatar
}

// ParseTrackLead validates a POST /track/lead body (partners-and-embed.md
// §1.2): schema issues are 422, a missing customer id is 400.
func ParseTrackLead(body []byte) (conversions.LeadInput, error) {
	var in conversions.LeadInput
	o, err := decodeObject(body)
	if err != nil {
		return in, err
	}
	if v := o.str("clickId", strOpts{trim: true}); v != nil {
		in.ClickID = *v
	}
	if v := o.str("eventName", strOpts{required: true, trim: true, min: 1, max: 255, minMsg: "eventName is required"}); v != nil {
		in.EventName = *v
	}
	var ext string
	ext, in.CustomerName, in.CustomerEmail, in.CustomerAvatar = customerFields(o, true)
	in.Mode = o.enum("mode", leadModes, conversions.ModeAsync)
	in.EventQuantity = 1
	if q := o.integer("eventQuantity", intOpts{min: bound(1), max: bound(100)}); q != nil {
		in.EventQuantity = *q
	}
	in.Metadata = o.metadata("metadata")
	if o.err != nil {
		return in, o.err
	}
	if ext == "" {
		return in, apierr.New(apierr.BadRequest, msgExternalIDRequired)
	}
	in.CustomerExternalID = ext
	return in, nil
}

// ParseTrackSale validates a POST /track/sale body (§1.3).
func ParseTrackSale(body []byte) (conversions.SaleInput, error) {
	var in conversions.SaleInput
	o, err := decodeObject(body)
	if err != nil {
		return in, err
	}
	var ext string
	for _, k := range []string{"customerExternalId", "externalId", "customerId"} {
		if v := o.str(k, strOpts{}); v != nil && *v != "" && ext == "" {
			ext = *v
		}
	}
	if v := o.integer("amount", intOpts{required: true, reqMsg: "amount is required", min: bound(0), minMsg: "amount cannot be negative"}); v != nil {
		in.Amount = *v
	}
	in.Currency = "usd"
	if v := o.str("currency", strOpts{trim: true, lower: true, min: 1}); v != nil {
		in.Currency = *v
	}
	in.EventName = "Purchase"
	if v := o.str("eventName", strOpts{max: 255}); v != nil && *v != "" {
		in.EventName = *v
	}
	in.PaymentProcessor = o.enum("paymentProcessor", PaymentProcessors, "custom")
	if v := o.str("invoiceId", strOpts{}); v != nil && *v != "" {
		in.InvoiceID = v
	}
	in.Metadata = o.metadata("metadata")
	if v := o.str("leadEventName", strOpts{}); v != nil && *v != "" {
		in.LeadEventName = v
	}
	if v := o.str("clickId", strOpts{trim: true}); v != nil && *v != "" {
		in.ClickID = v
	}
	_, in.CustomerName, in.CustomerEmail, in.CustomerAvatar = customerFields(o, false)
	if o.err != nil {
		return in, o.err
	}
	if ext == "" {
		return in, apierr.New(apierr.BadRequest, msgExternalIDRequired)
	}
	in.CustomerExternalID = ext
	return in, nil
}

type trackClickJSON struct {
	ID string `json:"id"`
}

type trackLinkJSON struct {
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

type trackCustomerJSON struct {
	Name       *string `json:"name"`
	Email      *string `json:"email"`
	Avatar     *string `json:"avatar"`
	ExternalID *string `json:"externalId"`
}

type trackLeadResponse struct {
	Click    trackClickJSON    `json:"click"`
	Link     *trackLinkJSON    `json:"link"`
	Customer trackCustomerJSON `json:"customer"`
}

// TrackLead answers POST /track/lead; it returns after the lead is committed.
func (h *Handlers) TrackLead(c *fiber.Ctx) error {
	in, err := ParseTrackLead(c.Body())
	if err != nil {
		return err
	}
	r, err := h.Conversions.TrackLead(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	out := trackLeadResponse{
		Click: trackClickJSON{ID: r.ClickID},
		Customer: trackCustomerJSON{Name: r.Customer.Name, Email: r.Customer.Email, Avatar: r.Customer.Avatar,
			ExternalID: r.Customer.ExternalID},
	}
	if l := r.Link; l != nil {
		out.Link = &trackLinkJSON{ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: h.Links.ShortLink(l), URL: l.URL,
			PartnerID: l.PartnerID, ProgramID: l.ProgramID, TenantID: l.TenantID, ExternalID: l.ExternalID}
	}
	return c.JSON(out)
}

// TrackSale answers POST /track/sale; a repeated invoiceId answers the first
// response again.
func (h *Handlers) TrackSale(c *fiber.Ctx) error {
	in, err := ParseTrackSale(c.Body())
	if err != nil {
		return err
	}
	r, err := h.Conversions.TrackSale(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// TrackClickInput is a POST /track/click body (partners-and-embed.md §1.4).
type TrackClickInput struct {
	Domain, Key string
	URL         string // "" when absent, null or not a valid URL: the link's destination is recorded
	Referrer    string // the page's document.referrer ("" when absent)
}

// ParseTrackClick validates a POST /track/click body: domain (leading "www."
// removed) and key are required; url and referrer are optional strings.
func ParseTrackClick(body []byte) (TrackClickInput, error) {
	var in TrackClickInput
	o, err := decodeObject(body)
	if err != nil {
		return in, err
	}
	if v := o.str("domain", strOpts{required: true, reqMsg: "domain is required.", trim: true, lower: true, max: 190}); v != nil {
		in.Domain = strings.TrimPrefix(*v, "www.")
	}
	if v := o.str("key", strOpts{required: true, reqMsg: "key is required.", trim: true, max: 190}); v != nil {
		in.Key = *v
	}
	if v := o.str("url", strOpts{trim: true, max: 32000}); v != nil && validURL(*v) {
		in.URL = *v
	}
	if v := o.str("referrer", strOpts{trim: true, max: 32000}); v != nil {
		in.Referrer = *v
	}
	return in, o.err
}

// TrackOpenInput is a POST /track/open body (parity.md §9).
type TrackOpenInput struct {
	DeepLink  string // normalised URL ("" when absent)
	DubDomain string
}

// ParseTrackOpen validates a POST /track/open body: deepLink is a URL
// (https:// added when the scheme is missing), and one of deepLink and
// dubDomain is required (a root-level refinement: empty path).
func ParseTrackOpen(body []byte) (TrackOpenInput, error) {
	var in TrackOpenInput
	o, err := decodeObject(body)
	if err != nil {
		return in, err
	}
	if v := o.str("deepLink", strOpts{}); v != nil {
		u := links.URLify(*v)
		switch {
		case utf8.RuneCountInString(*v) > 32000:
			o.fail("too_big", "deepLink", "Must be 32000 or fewer characters long.")
		case !links.ValidURL(u):
			o.fail("custom", "deepLink", "Invalid URL")
		}
		in.DeepLink = u
	}
	if v := o.str("dubDomain", strOpts{}); v != nil {
		in.DubDomain = *v
	}
	if o.err == nil && in.DeepLink == "" && in.DubDomain == "" {
		o.fail("custom", "", "You need to provide either `deepLink` or `dubDomain` for deferred deep linking.")
	}
	return in, o.err
}
