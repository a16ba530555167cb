package shortlink

import (
	"crypto/subtle"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/useragent"
)

// Via is where a password candidate came from (spec/links.md §10.2 #4).
type Via uint8

// Password sources.
const (
	ViaNone   Via = iota
	ViaForm       // POSTed by the password page
	ViaQuery      // ?pw=
	ViaCookie     // dub_password_{linkId}
)

// Visit is what the redirect decision needs from a request. The handler
// reads it (path, headers, cookies, query); Decide does no I/O.
type Visit struct {
	Key     string // LookupKey form
	Inspect bool   // the path ended with "+" (#3)
	// Password is the candidate and where it came from (form, ?pw=, cookie).
	Password    string
	PasswordVia Via
	UA          string
	// Bot is the request-level bot signal (§10.5): HEAD or a non-empty
	// ?bot=. The user agent itself is checked here when it matters (#9).
	Bot     bool
	NoTrack bool   // dub-no-track header or parameter
	Query   string // the request's raw query (no '?')
	// SkipDeeplinkPreview: the visitor comes back from the interstitial.
	SkipDeeplinkPreview bool
	// ClickID is the dub_id cookie's id, or a new one (§10.4).
	ClickID string
	// IP is the visitor's address (Singular's ip=, §10.3).
	IP string
	// Domain and FullKey are the short link as requested (the domain
	// normalised, the path decoded, original case): Google Play's deepLink.
	Domain, FullKey string
	// PinnedVariant is the dub_test_url cookie (A/B, §10.2).
	PinnedVariant string
	// Rand draws in [0, 1) for A/B variants; nil: math/rand/v2.
	Rand func() float64
	// Country is the visitor's ISO country for geo targets, asked only when
	// the link has geo targets and no OS target applies.
	Country func() string
}

// Action is what the handler must do.
type Action uint8

// Actions, by the rows of spec/links.md §10.2 they serve.
const (
	ActProbe        Action = iota + 1 // #1: 302 to /?dub-no-track=1, noindex
	ActNotFound                       // #2, #6: 307 to URL when set, else the 404 page
	ActInspect                        // #3: inspect page
	ActPassword                       // #4: password page; Status 401 = a wrong password (rate-limited by the handler)
	ActExpired                        // #7: redirect to URL (Status), or the 410 page when URL is ""
	ActPlaceholder                    // #8: the domain's placeholder page
	ActProxy                          // #9: the OG preview page
	ActRefresh                        // #10: meta refresh to URL
	ActCloak                          // #11: URL in a full-page frame
	ActInterstitial                   // #12, #13: 307 to the app-store interstitial
	ActRedirect                       // #12-#15: Status to URL
)

// Decision is the outcome of Decide.
type Decision struct {
	Rule   int // the row of spec/links.md §10.2 that matched
	Action Action
	Status int
	// URL is the redirect's Location, or the final destination a page
	// refreshes to or frames (and the click records).
	URL  string
	Link *Target
	// SetClickCookie: the dub_id cookie is set (every answer from #8 on).
	SetClickCookie bool
	// SetPasswordCookie: the form's correct password is remembered.
	SetPasswordCookie bool
	// Record: hand a click to the pipeline.
	Record bool
	// Variant is a newly drawn A/B destination to pin in dub_test_url.
	Variant string
	// Store names the app store of an interstitial.
	Store string
}

// Decide applies the redirect rules (spec/links.md §10.2, first match wins) to
// the cached entry of the visit's key (res nil or res.Link nil: no usable
// link) at now. It is pure: everything it reads is in its arguments.
func Decide(res *Resolved, v Visit, now time.Time) Decision {
	if IsProbe(v.Key) { // #1
		return Decision{Rule: 1, Action: ActProbe, Status: 302, URL: "/?dub-no-track=1"}
	}
	if res == nil || res.Link == nil { // #2, #6
		d := Decision{Rule: 2, Action: ActNotFound, Status: 404}
		if res != nil {
			if res.Disabled {
				d.Rule = 6
			}
			if res.DomainNotFoundURL != "" {
				d.Status, d.URL = 307, res.DomainNotFoundURL
			}
		}
		return d
	}
	t := res.Link
	if v.Inspect && t.Password == "" { // #3
		return Decision{Rule: 3, Action: ActInspect, Status: 200, Link: t}
	}
	var drop []string
	setPW := false
	if t.Password != "" { // #4
		ok := v.Password != "" && subtle.ConstantTimeCompare([]byte(v.Password), []byte(t.Password)) == 1
		if !ok {
			d := Decision{Rule: 4, Action: ActPassword, Status: 200, Link: t}
			if v.Password != "" && v.PasswordVia != ViaCookie {
				d.Status = 401
			}
			return d
		}
		setPW = v.PasswordVia == ViaForm
		if v.PasswordVia == ViaQuery {
			drop = []string{"pw"}
		}
	}
	if t.Expired(now) { // #7
		d := Decision{Rule: 7, Action: ActExpired, Status: 410, Link: t, SetPasswordCookie: setPW}
		switch {
		case t.ExpiredURL != "":
			d.Status, d.URL = 302, t.ExpiredURL
		case res.DomainExpiredURL != "":
			d.Status, d.URL = 307, res.DomainExpiredURL
		}
		return d
	}
	d := reach(t, v, now, drop)
	d.SetPasswordCookie = setPW
	return d
}

// reach is #8 onward: the visitor reaches the link.
func reach(t *Target, v Visit, now time.Time, drop []string) Decision {
	d := Decision{Link: t, SetClickCookie: true}
	dest := t.URL
	if len(t.TestVariants) > 0 && t.TestCompletedAt.After(now) {
		dest, d.Variant = pickVariant(t, v)
	}
	if t.Proxy && (v.Bot || useragent.IsBot(v.UA)) { // #9: no click
		d.Rule, d.Action, d.Status = 9, ActProxy, 200
		return d
	}
	target, status, rule := dest, 302, 15
	if t.Root() {
		status = 301
	}
	osTarget, store := t.StoreTarget(v.UA)
	switch {
	case osTarget != "": // #12, #13
		target, rule = osTarget, 13
		if t.IOS != "" && useragent.IsIOS(v.UA) {
			rule = 12
		}
	case len(t.Geo) > 0 && v.Country != nil: // #14
		if u := t.Geo[v.Country()]; u != "" {
			target, rule = u, 14
		}
	}
	if target != "" {
		// Dub's shouldCacheClickId reads the link's url (or its A/B variant),
		// not the OS or geo target.
		dst := destination{clickID: v.ClickID, key: t.Key, track: t.TrackConversion || t.Partner || isAppTracking(dest),
			partner: t.Partner, noTrack: v.NoTrack, reqQuery: v.Query, dropParams: drop, ua: v.UA, ip: v.IP,
			domain: v.Domain, fullKey: v.FullKey}
		d.URL = dst.build(target)
	}
	d.Record = !v.NoTrack
	switch {
	case store != "" && !v.SkipDeeplinkPreview: // #12, #13 via the interstitial
		d.Rule, d.Action, d.Status, d.Store = rule, ActInterstitial, 307, store
	case dest == "" && target == "": // #8: root without destination
		d.Rule, d.Action, d.Status = 8, ActPlaceholder, 200
	case hasScheme(d.URL, "mailto:", "sms:", "tel:", "tg:", "whatsapp:", "xmpp:"): // #10
		d.Rule, d.Action, d.Status = 10, ActRefresh, 200
	case t.Rewrite: // #11
		d.Rule, d.Action, d.Status = 11, ActCloak, 200
	default:
		d.Rule, d.Action, d.Status = rule, ActRedirect, status
	}
	return d
}

// pickVariant chooses an A/B destination (spec/links.md §10.2): a valid
// dub_test_url cookie pins it (nothing new to pin); else weighted random,
// returned as the variant to pin for 7 days.
func pickVariant(t *Target, v Visit) (dest, pin string) {
	if v.PinnedVariant != "" {
		for _, tv := range t.TestVariants {
			if tv.URL == v.PinnedVariant {
				return tv.URL, ""
			}
		}
	}
	total := 0.0
	for _, tv := range t.TestVariants {
		total += tv.Percentage
	}
	draw := rand.Float64
	if v.Rand != nil {
		draw = v.Rand
	}
	pick := t.TestVariants[len(t.TestVariants)-1].URL
	r := draw() * total
	for _, tv := range t.TestVariants {
		if r < tv.Percentage {
			pick = tv.URL
			break
		}
		r -= tv.Percentage
	}
	return pick, pick
}

func hasScheme(u string, schemes ...string) bool {
	for _, s := range schemes {
		if len(u) >= len(s) && strings.EqualFold(u[:len(s)], s) {
			return true
		}
	}
	return false
}
