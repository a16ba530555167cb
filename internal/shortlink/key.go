// Package shortlink holds the short-link rules the redirect, the link API
// and the router share (spec/links.md §4.3, §10): key normalisation, the reserved
// paths, the cached redirect target and its loader, the destination URL
// builder and the pure redirect decision (Decide). It does no HTTP I/O.
package shortlink

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// keyRe is upstream's key pattern: letters, digits, _ - / . and anything
// non-ASCII (emoji included).
var keyRe = regexp.MustCompile(`^[0-9A-Za-z_\x{0080}-\x{10FFFF}/\-.]+$`)

// msgInvalidKey is upstream's single message for a malformed key.
const msgInvalidKey = "Invalid key."

// NormalizeKey validates a user-chosen key and returns its stored form
// (spec/links.md §4.3): leading and trailing "/" stripped FIRST, then the pattern
// check, no leading "_" except _root, no .well-known/.php, then the key
// punycode-encoded label by label. The stored key keeps its case.
//
// Validating after the trim makes the function idempotent: "/_" used to pass
// the checks (its first byte was "/") and be stored as "_", which on its own
// is refused; it is now refused up front. A stored key always validates to
// itself (FuzzNormalizeKey).
func NormalizeKey(key string) (string, error) {
	invalid := apierr.New(apierr.Unprocessable, msgInvalidKey)
	if !utf8.ValidString(key) {
		return "", invalid
	}
	key = strings.Trim(key, "/")
	if key == models.RootKey {
		return key, nil
	}
	if key == "" || !keyRe.MatchString(key) || strings.HasPrefix(key, "_") || IsProbe(key) {
		return "", invalid
	}
	return punycodeKey(key)
}

// IsProbe reports a key that is never a link (spec/links.md §4.3 check 3,
// §10.2 #1): it starts with .well-known or ends with .php / .php7.
func IsProbe(key string) bool {
	low := strings.ToLower(key)
	return strings.HasPrefix(low, ".well-known") || strings.HasSuffix(low, ".php") || strings.HasSuffix(low, ".php7")
}

// LookupKey is the one lookup form of a key as a visitor, a query or a QR
// code gives it (spec/links.md §10.1): slashes trimmed, "" is the root, non-ASCII
// labels punycoded, lowercased. It does not validate (an invalid key simply
// finds nothing) and is idempotent. The link cache, the database lookup
// (lower(key)) and the click-id cookie name all use this form.
func LookupKey(key string) string {
	key = strings.Trim(key, "/")
	if key == "" {
		return models.RootKey
	}
	if !isASCII(key) {
		if k, err := punycodeKey(key); err == nil {
			key = k
		}
	}
	return strings.ToLower(key)
}

// punycodeKey encodes each dot-separated label holding non-ASCII as
// "xn--…" and leaves ASCII labels as they are (punycode.toASCII upstream).
func punycodeKey(key string) (string, error) {
	labels := strings.Split(key, ".")
	for i, l := range labels {
		if isASCII(l) {
			continue
		}
		a, err := idna.Punycode.ToASCII(l)
		if err != nil || !isASCII(a) {
			return "", apierr.New(apierr.Unprocessable, msgInvalidKey)
		}
		labels[i] = a
	}
	return strings.Join(labels, "."), nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
