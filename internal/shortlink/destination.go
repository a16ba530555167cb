package shortlink

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// params is an ordered query string with WHATWG URLSearchParams semantics
// (spec/links.md §10.3): set replaces the first occurrence in place, drops the
// other occurrences and appends when new; serialisation is form encoding.
type params struct {
	list []param
}

type param struct{ k, v string }

// parseParams parses a raw query (without '?') as application/x-www-form-urlencoded.
func parseParams(raw string) params {
	var p params
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		p.list = append(p.list, param{formDecode(k), formDecode(v)})
	}
	return p
}

func (p *params) get(k string) (string, bool) {
	for _, kv := range p.list {
		if kv.k == k {
			return kv.v, true
		}
	}
	return "", false
}

func (p *params) set(k, v string) {
	out := p.list[:0]
	done := false
	for _, kv := range p.list {
		if kv.k != k {
			out = append(out, kv)
			continue
		}
		if !done {
			out = append(out, param{k, v})
			done = true
		}
	}
	if !done {
		out = append(out, param{k, v})
	}
	p.list = out
}

func (p *params) del(k string) {
	out := p.list[:0]
	for _, kv := range p.list {
		if kv.k != k {
			out = append(out, kv)
		}
	}
	p.list = out
}

func (p *params) encode() string {
	var b strings.Builder
	for i, kv := range p.list {
		if i > 0 {
			b.WriteByte('&')
		}
		formEncode(&b, kv.k)
		b.WriteByte('=')
		formEncode(&b, kv.v)
	}
	return b.String()
}

const hexUpper = "0123456789ABCDEF"

// formEncode is the WHATWG application/x-www-form-urlencoded byte serializer.
func formEncode(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hexUpper[c>>4])
			b.WriteByte(hexUpper[c&15])
		}
	}
}

// formDecode replaces '+' by space and decodes %XX, leaving malformed escapes
// as they are (WHATWG percent-decode is lenient).
func formDecode(s string) string {
	if !strings.ContainsAny(s, "+%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// splitURL cuts a URL into the part before the query, the raw query and the
// fragment (with its '#'), without normalising anything.
func splitURL(u string) (base, query, frag string) {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u, frag = u[:i], u[i:]
	}
	base, query, _ = strings.Cut(u, "?")
	return base, query, frag
}

// destination builds the final URL (spec/links.md §10.3) from target, as
// Dub's apps/web/lib/middleware/utils/get-final-url.ts does.
type destination struct {
	clickID    string
	key        string // for partner links' via=
	track      bool   // the click id is passed: trackConversion, a partner link, or an AppsFlyer/Singular url
	partner    bool
	noTrack    bool   // the request has dub-no-track
	reqQuery   string // the short-link request's raw query
	dropParams []string
	// The app-install rewrites (§10.3 steps 4-6), read only when the
	// target's host is one of theirs.
	ua, ip          string // Singular's ua= and ip=
	domain, fullKey string // Google Play's deepLink: https://{domain}/{key as requested}
}

func (d destination) build(target string) string {
	base, rawQuery, frag := splitURL(target)
	reqQ := d.reqQuery
	app := appKindOf(target)
	modify := d.track || d.partner || reqQ != "" || app != appNone
	if !modify {
		return target
	}
	q := parseParams(rawQuery)
	changed := false
	if d.partner {
		q.set("via", d.key)
		changed = true
	}
	if d.track {
		if v, _ := q.get("dub_client_reference_id"); v == "1" {
			q.set("client_reference_id", "dub_id_"+d.clickID)
			q.del("dub_client_reference_id")
			changed = true
		} else if !d.noTrack {
			q.set("dub_id", d.clickID)
			changed = true
		}
	}
	if app != appNone {
		d.appParams(&q, app)
		changed = true
	}
	if reqQ != "" {
		rq := parseParams(reqQ)
	next:
		for _, kv := range rq.list {
			if kv.k == "dub-no-track" || kv.k == "redir_url" {
				continue
			}
			for _, drop := range d.dropParams {
				if kv.k == drop {
					continue next
				}
			}
			q.set(kv.k, kv.v)
			changed = true
		}
		if v, ok := q.get("qr"); ok && v == "1" {
			q.del("qr")
		}
		if v, ok := q.get("skip_deeplink_preview"); ok && v == "1" {
			q.del("skip_deeplink_preview")
		}
	}
	if !changed {
		return target
	}
	enc := q.encode()
	if enc == "" {
		return base + frag
	}
	return base + "?" + enc + frag
}

// appParams are get-final-url.ts's AppsFlyer, Singular and Google Play
// steps. Dub passes the click id only when it caches it (d.track) and via
// only for partner links; AppsFlyer's pid is Dub's integration id.
func (d destination) appParams(q *params, app appKind) {
	clickID, via := "", ""
	if d.track {
		clickID = d.clickID
	}
	if d.partner {
		via = d.key
	}
	switch app {
	case appAppsFlyer:
		q.set("pid", "dubinc_int")
		if clickID != "" {
			q.set("clickid", clickID)
		}
		if _, ok := q.get("c"); !ok && via != "" {
			q.set("c", via)
		}
		if _, ok := q.get("af_siteid"); !ok && via != "" {
			q.set("af_siteid", via)
		}
	case appSingular:
		q.set("cl", clickID)
		q.set("ua", d.ua)
		q.set("ip", d.ip)
		if v, _ := q.get("wpcn"); v == "{via}" {
			q.set("wpcn", via)
		}
		if v, _ := q.get("wpcl"); v == "{dub_id}" {
			q.set("wpcl", clickID)
		}
	case appPlay:
		ref, _ := q.get("referrer")
		if ref != "" {
			ref = decodeURIComponent(ref)
		}
		rp := parseParams(strings.TrimPrefix(ref, "?")) // URLSearchParams drops a leading '?'
		rp.set("deepLink", "https://"+d.domain+"/"+d.fullKey+d.requestQuery())
		q.set("referrer", rp.encode())
	}
}

// requestQuery is parse.ts's searchParamsString: the request's query as
// URLSearchParams serialises it ('?' first, "" when empty), without a
// correct ?pw= (Dub deletes it from the request before building the URL).
func (d destination) requestQuery() string {
	if d.reqQuery == "" {
		return ""
	}
	rq := parseParams(d.reqQuery)
	for _, drop := range d.dropParams {
		rq.del(drop)
	}
	if len(rq.list) == 0 {
		return ""
	}
	return "?" + rq.encode()
}

// decodeURIComponent is JavaScript's: every %XX decoded, '+' kept (as
// url.PathUnescape does). A malformed escape (bad hex or not UTF-8) throws
// in JavaScript, which fails Dub's redirect; here the value is used as it is.
func decodeURIComponent(s string) string {
	d, err := url.PathUnescape(s)
	if err != nil || !utf8.ValidString(d) {
		return s
	}
	return d
}

// appKind names an app-install destination get-final-url.ts rewrites.
type appKind uint8

const (
	appNone      appKind = iota
	appAppsFlyer         // *.onelink.me (is-appsflyer-tracking-url.ts)
	appSingular          // *.sng.link (is-singular-tracking-url.ts)
	appPlay              // play.google.com (is-google-play-store-url.ts)
)

// appKindOf reads u's host without parsing or allocating (the redirect
// calls it for every destination): the authority after "scheme://", without
// userinfo and port, compared case-insensitively as WHATWG URL lowercases it.
func appKindOf(u string) appKind {
	i := strings.Index(u, "://")
	if i <= 0 || strings.ContainsAny(u[:i], "/?#") {
		return appNone
	}
	h := u[i+3:]
	if j := strings.IndexAny(h, "/?#\\"); j >= 0 {
		h = h[:j]
	}
	if j := strings.LastIndexByte(h, '@'); j >= 0 {
		h = h[j+1:]
	}
	if j := strings.LastIndexByte(h, ':'); j >= 0 && strings.IndexByte(h[j:], ']') < 0 {
		h = h[:j]
	}
	switch {
	case strings.EqualFold(h, "play.google.com"):
		return appPlay
	case hasSuffixFold(h, ".onelink.me"):
		return appAppsFlyer
	case hasSuffixFold(h, ".sng.link"):
		return appSingular
	}
	return appNone
}

// isAppTracking reports an AppsFlyer or Singular tracking URL: Dub passes
// the click id to those even on links without conversion tracking.
func isAppTracking(u string) bool {
	k := appKindOf(u)
	return k == appAppsFlyer || k == appSingular
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}
