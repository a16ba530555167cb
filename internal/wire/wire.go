// Package wire owns every Dub object Relink writes: the link, domain, tag,
// folder, partner, enrollment, customer, commission, payout, application,
// bounty and event objects, their keys in the order Dub writes them, and the
// constructors that fill them from models. The API (handlers/api), the
// webhooks (internal/webhooks), the conversions' webhook events
// (internal/conversions), the embedded dashboard (internal/referrals,
// handlers/embed) and the exports (internal/export) all write these types,
// so one object has one shape wherever it appears. The analytics rows and
// event objects of GET /analytics and /events are the subpackage
// wire/dubjson.
//
// Two strings every answer shares are built once here: a short link
// (Writer.ShortLink) and a qrCode URL (Writer.QRCode).
package wire

import (
	"strings"
	"time"

	"github.com/relinkhq/relink/models"
)

// Writer writes the objects that carry a short link or a qrCode URL. Its
// zero value writes https short links and points qrCode at Dub's API, as a
// production deployment behind TLS without its own API origin would.
type Writer struct {
	// PlainHTTPDomain is the short domain served over plain http (the
	// default short domain of a dev server on http:// , docs/shortlink.md);
	// every other domain's short links are https. "" : none.
	PlainHTTPDomain string
	// APIOrigin is the origin qrCode URLs point at; "" is Dub's
	// (DubAPIOrigin).
	APIOrigin string
}

// ShortLink builds every short link Relink writes (spec/links.md §2.1):
// {scheme}://{domain}/{key}, or {scheme}://{domain} for the root link; the
// key is not URL-encoded. The scheme is https but on PlainHTTPDomain.
func (w Writer) ShortLink(domain, key string) string {
	scheme := "https"
	if w.PlainHTTPDomain != "" && strings.EqualFold(domain, w.PlainHTTPDomain) {
		scheme = "http"
	}
	if key == models.RootKey {
		return scheme + "://" + domain
	}
	return scheme + "://" + domain + "/" + key
}

// LinkShort is l's short link (ShortLink of its domain and key).
func (w Writer) LinkShort(l *models.Link) string { return w.ShortLink(l.Domain, l.Key) }

// DubAPIOrigin is the QR endpoint's origin when none is configured.
const DubAPIOrigin = "https://api.dub.co"

// QRCode builds every qrCode URL Relink writes (spec/links.md §2.1; the
// event link object of spec/analytics.md §6 too):
// {APIOrigin}/qr?url={shortLink}?qr=1, literally — the inner URL is not
// encoded.
func (w Writer) QRCode(shortLink string) string {
	origin := strings.TrimSuffix(w.APIOrigin, "/")
	if origin == "" {
		origin = DubAPIOrigin
	}
	return origin + "/qr?url=" + shortLink + "?qr=1"
}

// Timestamp formats t as every datetime Dub writes: ISO-8601 UTC with
// milliseconds (spec/webhooks.md §3.1).
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// OptTimestamp is Timestamp for a nullable time.
func OptTimestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Timestamp(*t)
	return &s
}

// IDRef is an object that only names another: {"id": …}.
type IDRef struct {
	ID string `json:"id"`
}
