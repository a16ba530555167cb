package shortlink

import (
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// Face says which face routes a reserved path.
type Face uint8

// Faces routing a reserved path.
const (
	// AppFace is the app origin (console, embed, /api, /metrics …), which
	// in dev also serves the default short domain behind its own routes.
	AppFace Face = 1 << iota
	// ShortFace is every other short-link domain.
	ShortFace
)

// reservedPath is one top-level path segment the app routes itself.
type reservedPath struct {
	seg   string
	faces Face
}

// reserved is THE list of top-level paths that are not short-link keys:
// routing (handlers.routes mounts nothing outside it on the app face;
// TestReservedPathsCoverRoutes checks it against the registered routes),
// link validation (CheckReservedKey) and the redirect (IsReserved) all read
// it. A path routed on the short face too (/healthz, /static) is reserved on
// every domain; the others only where the app serves the domain itself (the
// default short domain in dev), so that a custom domain's "login" or
// "api/docs" links keep working. qr, login, logout and stats are kept free
// for upstream-compatible pages (Dub serves them on its app host).
// ".well-known" is not listed: no key may start with it (NormalizeKey), and
// on a short-link path it is the redirect's own (#1 and the app-association
// files), the ACME challenge and the on-demand TLS check
// (/.well-known/relink/tls-ask) being answered by the dispatcher before any
// face.
var reserved = []reservedPath{
	{"api", AppFace},
	{"apply", AppFace}, // the public partner application page
	{"console", AppFace},
	{"deeplink", AppFace},
	{"embed", AppFace},
	{"healthz", AppFace | ShortFace},
	{"login", AppFace},
	{"logout", AppFace},
	{"metrics", AppFace},
	{"partners", AppFace}, // the partner portal (issue 36)
	{"qr", AppFace},
	{"readyz", AppFace | ShortFace},
	{"static", AppFace | ShortFace},
	{"stats", AppFace},
}

// IsReserved reports whether key's first path segment is a path face f
// routes itself, so the key never resolves as a link there.
func IsReserved(key string, f Face) bool {
	first, _, _ := strings.Cut(key, "/")
	for _, r := range reserved {
		if r.faces&f != 0 && strings.EqualFold(first, r.seg) {
			return true
		}
	}
	return false
}

// reservedFiles can never be keys on any domain (spec/links.md §4.3): 403.
var reservedFiles = map[string]bool{
	"favicon.ico": true, "sitemap.xml": true, "robots.txt": true,
	"manifest.webmanifest": true, "manifest.json": true, "apple-app-site-association": true,
}

// reservedSlugs are upstream's reserved keys on its shared domains
// (spec/links.md §4.3 built-in redirects and §4.9), answered as taken (409).
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

// CheckReservedKey applies the reserved-key rules to a normalized key. The
// shared default domain is served by the app face, so every app path is
// refused there, and upstream's reserved slugs too; on other domains only
// the files and the paths the short face routes itself.
func CheckReservedKey(key string, sharedDomain bool) error {
	low := strings.ToLower(key)
	face := ShortFace
	if sharedDomain {
		face = AppFace
	}
	if reservedFiles[low] || IsReserved(low, face) {
		return apierr.Newf(apierr.Forbidden, "%s is a reserved path and cannot be used as a short link.", key)
	}
	if !sharedDomain {
		return nil
	}
	if reservedSlugs[low] || low == models.RootKey {
		return apierr.New(apierr.Conflict, models.MsgDuplicateKey)
	}
	return nil
}
