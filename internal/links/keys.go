package links

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// DefaultKeyLength is the length of a random key.
const DefaultKeyLength = 7

// RandomKey draws a nanoid key of length n (default 7) with an optional
// prefix: one leading and one trailing "/" are stripped and the key becomes
// prefix/random (links.md §3).
func RandomKey(n int, prefix string) string {
	if n <= 0 {
		n = DefaultKeyLength
	}
	k := ids.Nano(n)
	prefix = strings.TrimSuffix(strings.TrimPrefix(prefix, "/"), "/")
	if prefix != "" {
		return prefix + "/" + k
	}
	return k
}

// keyRe is upstream's key pattern: letters, digits, _ - / . and anything
// non-ASCII (emoji included).
var keyRe = regexp.MustCompile(`^[0-9A-Za-z_\x{0080}-\x{10FFFF}/\-.]+$`)

// ErrInvalidKey is upstream's single message for a malformed key.
const msgInvalidKey = "Invalid key."

// NormalizeKey validates a user-chosen key and returns its stored form
// (links.md §4.3): pattern check, no leading "_" except _root, no
// .well-known/.php, then leading/trailing "/" stripped and the key
// punycode-encoded label by label.
func NormalizeKey(key string) (string, error) {
	if key == models.RootKey {
		return key, nil
	}
	invalid := apierr.New(apierr.Unprocessable, msgInvalidKey)
	if !utf8.ValidString(key) || !keyRe.MatchString(key) || strings.HasPrefix(key, "_") {
		return "", invalid
	}
	low := strings.ToLower(key)
	if strings.HasPrefix(low, ".well-known") || strings.HasSuffix(low, ".php") || strings.HasSuffix(low, ".php7") {
		return "", invalid
	}
	key = strings.Trim(key, "/")
	if key == "" {
		return "", invalid
	}
	return punycodeKey(key)
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

// LookupKey is the stored form of a key as a visitor or a query gives it:
// slashes trimmed and non-ASCII labels punycoded, without validation.
func LookupKey(key string) string {
	key = strings.Trim(key, "/")
	if k, err := punycodeKey(key); err == nil {
		return k
	}
	return key
}

// reservedPaths can never be keys (links.md §4.3): 403.
var reservedPaths = map[string]bool{
	"favicon.ico": true, "sitemap.xml": true, "robots.txt": true,
	"manifest.webmanifest": true, "manifest.json": true, "apple-app-site-association": true,
}

// AppPaths are Relink's own top-level paths on the app host; on the default
// short domain (served by the app host in dev) a key cannot start with them.
var AppPaths = []string{"api", "embed", "static", "console", "apply", "healthz", "qr", "login", "logout", "deeplink", "stats", ".well-known"}

// reservedSlugs are upstream's reserved keys on its shared domains
// (links.md §4.3 built-in redirects and §4.9), answered as taken (409).
var reservedSlugs = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`home dub signin login register signup app dashboard links settings welcome discord
		va static stats share deeplink robots.txt undefined null proxy account api auth pricing about metatags blog
		changelog atom careers docs features contact terms privacy admin help new info demo reddit guides campaigns
		workspaces analytics invites domains events referrals webhooks upgrade wrapped rewind invoices onboarding
		program programs partners payouts commissions sales resources messages marketplace fraud`) {
		m[s] = true
	}
	return m
}()

// CheckReservedKey applies the reserved-key rules to a normalized key. On
// the shared default domain the app's own paths and upstream's reserved slugs
// are refused too.
func CheckReservedKey(key string, sharedDomain bool) error {
	low := strings.ToLower(key)
	if reservedPaths[low] {
		return apierr.Newf(apierr.Forbidden, "%s is a reserved path and cannot be used as a short link.", key)
	}
	if !sharedDomain {
		return nil
	}
	first, _, _ := strings.Cut(low, "/")
	for _, p := range AppPaths {
		if first == p {
			return apierr.Newf(apierr.Forbidden, "%s is a reserved path and cannot be used as a short link.", key)
		}
	}
	if reservedSlugs[low] || low == models.RootKey {
		return apierr.New(apierr.Conflict, models.MsgDuplicateKey)
	}
	return nil
}
