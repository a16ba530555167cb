package conversions

import (
	"net/url"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/models"
)

// Parsing of the conversion tracking bodies (spec/partners-and-embed.md §1.2-1.4)
// with the one input reader; the API and the redirect's POST /track/click
// call these.

// msgExternalIDRequired answers a track call without a customer id.
const msgExternalIDRequired = "customerExternalId is required"

var leadModes = []string{ModeAsync, ModeWait, ModeDeferred}

// PaymentProcessors are the accepted sale processors (lemonsqueezy is what
// the newest SDK may send).
var PaymentProcessors = []string{"stripe", "shopify", "polar", "paddle", "apple", "revenuecat", "lemonsqueezy", "dub", "custom"}

// customerFields reads the customer id (with its deprecated aliases) and the
// optional name, email and avatar shared by both track bodies.
func customerFields(o *input.Object, trimID bool) (ext string, name, email, avatar *string) {
	for _, k := range []string{"customerExternalId", "externalId", "customerId"} {
		if v := o.Str(k, input.Str{Trim: trimID, Max: input.MaxIdentifier}).Ptr(); v != nil && *v != "" && ext == "" {
			ext = *v
		}
	}
	name = o.Str("customerName", input.Str{Max: 100}).Ptr()
	email = o.Str("customerEmail", input.Str{Max: 100, Check: input.Email, Trim: true}).Ptr()
	avatar = o.Str("customerAvatar", input.Str{Check: input.URL}).Ptr()
	return ext, name, email, avatar
}

// ParseTrackLead validates a POST /track/lead body (spec/partners-and-embed.md
// §1.2): schema issues are 422, a missing customer id is 400.
func ParseTrackLead(body []byte) (LeadInput, error) {
	var in LeadInput
	o, err := input.DecodeNullish(body)
	if err != nil {
		return in, err
	}
	if v := o.Str("clickId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.ClickID = *v
	}
	if v := o.Str("eventName", input.Str{Required: true, Trim: true, Min: 1, Max: 255, MinMsg: "eventName is required"}).Ptr(); v != nil {
		in.EventName = *v
	}
	var ext string
	ext, in.CustomerName, in.CustomerEmail, in.CustomerAvatar = customerFields(o, true)
	in.Mode = o.Enum("mode", leadModes, ModeAsync)
	in.EventQuantity = 1
	if q := o.Int("eventQuantity", input.Num{Min: input.Bound(1), Max: input.Bound(100)}); q != nil {
		in.EventQuantity = *q
	}
	in.Metadata = o.Metadata("metadata")
	if o.Err() != nil {
		return in, o.Err()
	}
	if ext == "" {
		return in, apierr.New(apierr.BadRequest, msgExternalIDRequired)
	}
	in.CustomerExternalID = ext
	return in, nil
}

// ParseTrackSale validates a POST /track/sale body (§1.3).
func ParseTrackSale(body []byte) (SaleInput, error) {
	var in SaleInput
	o, err := input.DecodeNullish(body)
	if err != nil {
		return in, err
	}
	var ext string
	for _, k := range []string{"customerExternalId", "externalId", "customerId"} {
		if v := o.Str(k, input.Str{Max: input.MaxIdentifier}).Ptr(); v != nil && *v != "" && ext == "" {
			ext = *v
		}
	}
	if v := o.Int("amount", input.Num{Required: true, ReqMsg: "amount is required", Min: input.Bound(0), MinMsg: "amount cannot be negative"}); v != nil {
		in.Amount = *v
	}
	in.Currency = "usd"
	if v := o.Str("currency", input.Str{Trim: true, Lower: true, Min: 1, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.Currency = *v
	}
	in.EventName = "Purchase"
	if v := o.Str("eventName", input.Str{Max: 255}).Ptr(); v != nil && *v != "" {
		in.EventName = *v
	}
	in.PaymentProcessor = o.Enum("paymentProcessor", PaymentProcessors, "custom")
	if v := o.Str("invoiceId", input.Str{Max: input.MaxIdentifier}).Ptr(); v != nil && *v != "" {
		in.InvoiceID = v
	}
	in.Metadata = o.Metadata("metadata")
	if v := o.Str("leadEventName", input.Str{Max: input.MaxIdentifier}).Ptr(); v != nil && *v != "" {
		in.LeadEventName = v
	}
	if v := o.Str("clickId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil && *v != "" {
		in.ClickID = v
	}
	_, in.CustomerName, in.CustomerEmail, in.CustomerAvatar = customerFields(o, false)
	if o.Err() != nil {
		return in, o.Err()
	}
	if ext == "" {
		return in, apierr.New(apierr.BadRequest, msgExternalIDRequired)
	}
	in.CustomerExternalID = ext
	return in, nil
}

// TrackClickInput is a POST /track/click body (spec/partners-and-embed.md §1.4).
type TrackClickInput struct {
	Domain, Key string
	URL         string // "" when absent, null or not a valid URL: the link's destination is recorded
	Referrer    string // the page's document.referrer ("" when absent)
}

// ParseTrackClick validates a POST /track/click body: domain (leading "www."
// removed) and key are required; url and referrer are optional strings.
func ParseTrackClick(body []byte) (TrackClickInput, error) {
	var in TrackClickInput
	o, err := input.DecodeNullish(body)
	if err != nil {
		return in, err
	}
	if v := o.Str("domain", input.Str{Required: true, ReqMsg: "domain is required.", Trim: true, Lower: true, Max: 190}).Ptr(); v != nil {
		in.Domain = strings.TrimPrefix(*v, "www.")
	}
	if v := o.Str("key", input.Str{Required: true, ReqMsg: "key is required.", Trim: true, Max: 190}).Ptr(); v != nil {
		in.Key = *v
	}
	if v := o.Str("url", input.Str{Trim: true, Max: 32000}).Ptr(); v != nil && input.ValidAbsURL(*v) {
		in.URL = *v
	}
	if v := o.Str("referrer", input.Str{Trim: true, Max: 32000}).Ptr(); v != nil {
		in.Referrer = *v
	}
	return in, o.Err()
}

// TrackVisitInput is a POST /track/visit body: the page a visitor opened on
// a site whose short domain is Domain (Dub's route
// apps/web/app/(ee)/api/track/visit).
type TrackVisitInput struct {
	Domain   string // the site's short domain, lower-cased
	Key      string // the page's path without its leading "/"; models.RootKey for "/"
	URL      string // the page's URL, recorded as the click's destination
	Referrer string // the page's document.referrer ("" when absent)
}

// ParseTrackVisit validates a POST /track/visit body. domain and url are
// required (400 "Missing domain or url" when absent, null or empty, as
// Dub answers); url must be an absolute URL (400 where Dub's URL
// constructor throws); a non-string field is a 422 invalid_type.
func ParseTrackVisit(body []byte) (TrackVisitInput, error) {
	var in TrackVisitInput
	o, err := input.DecodeNullish(body)
	if err != nil {
		return in, err
	}
	domain := o.Str("domain", input.Str{Trim: true, Lower: true, Max: 190}).Ptr()
	page := o.Str("url", input.Str{Trim: true, Max: 32000}).Ptr()
	if v := o.Str("referrer", input.Str{Trim: true, Max: 32000}).Ptr(); v != nil {
		in.Referrer = *v
	}
	if o.Err() != nil {
		return in, o.Err()
	}
	if domain == nil || *domain == "" || page == nil || *page == "" {
		return in, apierr.New(apierr.BadRequest, "Missing domain or url")
	}
	u, err := url.Parse(*page)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return in, apierr.New(apierr.BadRequest, "Invalid url: expected an absolute URL such as https://example.com/pricing.")
	}
	in.Domain, in.URL = *domain, *page
	in.Key = strings.TrimPrefix(u.Path, "/")
	if in.Key == "" {
		in.Key = models.RootKey
	}
	return in, nil
}
