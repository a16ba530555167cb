package conversions

import (
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/input"
)

// FuzzParseTrackVisit: a /track/visit body is either a 400/422 in the spec's
// format or an input with a domain, an absolute URL and a key that is the
// URL's path without its first "/" (never empty: _root for "/").
func FuzzParseTrackVisit(f *testing.F) {
	for _, s := range append([]string{
		`{"domain":"site.example","url":"https://site.example/"}`, `{"domain":"a","url":"https://a/b/c?x=1#y"}`,
		`{"domain":"a","url":"/rel"}`, `{"domain":"a","url":"https://a/%zz"}`, `{"domain":"a","url":"http://[::1"}`,
		`{"domain":"a","url":"mailto:x@y"}`, `{"domain":" ","url":"https://a"}`, `{"domain":"a","url":"https://a","referrer":5}`,
	}, trackSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseTrackVisit(body)
		checkParseResult(t, body, err, func() {
			switch {
			case in.Domain == "" || in.Domain != strings.ToLower(in.Domain):
				t.Fatalf("parse %q: domain %q", body, in.Domain)
			case !input.ValidAbsURL(in.URL):
				t.Fatalf("parse %q: url %q", body, in.URL)
			case in.Key == "":
				t.Fatalf("parse %q: key %q", body, in.Key)
			}
		})
	})
}
