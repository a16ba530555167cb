package api

import (
	"net/url"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

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
	o, err := decodeObject(body)
	if err != nil {
		return in, err
	}
	domain := o.str("domain", strOpts{trim: true, lower: true, max: 190})
	page := o.str("url", strOpts{trim: true, max: 32000})
	if v := o.str("referrer", strOpts{trim: true, max: 32000}); v != nil {
		in.Referrer = *v
	}
	if o.err != nil {
		return in, o.err
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
