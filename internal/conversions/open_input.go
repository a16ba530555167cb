package conversions

import (
	"unicode/utf8"

	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/links"
)

// TrackOpenInput is a POST /track/open body (spec/parity.md §9).
type TrackOpenInput struct {
	DeepLink  string // normalised URL ("" when absent)
	DubDomain string
}

// ParseTrackOpen validates a POST /track/open body: deepLink is a URL
// (https:// added when the scheme is missing), and one of deepLink and
// dubDomain is required (a root-level refinement: empty path).
func ParseTrackOpen(body []byte) (TrackOpenInput, error) {
	var in TrackOpenInput
	o, err := input.Decode(body)
	if err != nil {
		return in, err
	}
	if v := o.Str("deepLink", input.Str{}); v.Has() {
		u := links.URLify(v.Value)
		switch {
		case utf8.RuneCountInString(v.Value) > 32000:
			o.Fail("too_big", "deepLink", "Must be 32000 or fewer characters long.")
		case !links.ValidURL(u):
			o.Fail("custom", "deepLink", "Invalid URL")
		}
		in.DeepLink = u
	}
	if v := o.Str("dubDomain", input.Str{}); v.Has() {
		in.DubDomain = v.Value
	}
	if o.Err() == nil && in.DeepLink == "" && in.DubDomain == "" {
		o.Fail("custom", "", "You need to provide either `deepLink` or `dubDomain` for deferred deep linking.")
	}
	return in, o.Err()
}
