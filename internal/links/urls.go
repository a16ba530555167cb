package links

import (
	"net"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

var schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*:`)

// specialSchemes need a host (WHATWG "special" schemes).
var specialSchemes = map[string]bool{"http": true, "https": true, "ftp": true, "ws": true, "wss": true}

// URLify follows upstream's getUrlFromString (spec/links.md §3): an absolute URL is
// kept verbatim; otherwise a string with a dot and no space becomes
// https://… (with a trailing slash when it has no path); anything else is
// returned unchanged and fails validation later.
func URLify(s string) string {
	if s == "" || ValidURL(s) {
		return s
	}
	if strings.Contains(s, ".") && !strings.ContainsAny(s, " \t\r\n") {
		u, err := url.Parse("https://" + s)
		if err == nil && u.Host != "" && validHost(u.Hostname()) {
			if u.Path == "" && u.RawPath == "" {
				u.Path = "/"
			}
			return u.String()
		}
	}
	return s
}

// ValidURL reports an absolute URL with a scheme; http(s), ftp and ws(s) URLs
// need a valid host. Custom schemes (mailto:, tel:, myapp://) are valid.
func ValidURL(s string) bool {
	if !schemeRe.MatchString(s) || strings.ContainsAny(s, " \t\r\n\x00") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return false
	}
	if specialSchemes[strings.ToLower(u.Scheme)] {
		return u.Host != "" && validHost(u.Hostname())
	}
	return u.Opaque != "" || u.Host != "" || u.Path != ""
}

// unsafeSchemes run code or read local data in the visitor's browser; a
// short link may not send anyone there (issue 15 item 5).
var unsafeSchemes = map[string]bool{"javascript": true, "data": true, "file": true, "vbscript": true}

// UnsafeScheme reports a URL whose scheme is javascript:, data:, file: or
// vbscript: (any case, leading spaces and control characters ignored, as
// browsers do).
func UnsafeScheme(s string) bool {
	s = strings.TrimLeft(s, "\x00\t\n\r\f ")
	scheme, _, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	scheme = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1 // browsers drop these inside a scheme
		}
		return r
	}, scheme)
	return unsafeSchemes[strings.ToLower(scheme)]
}

var hostLabelRe = regexp.MustCompile(`^[\p{L}\p{N}_]([\p{L}\p{N}\-_]*[\p{L}\p{N}_])?$`)

func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if net.ParseIP(strings.Trim(h, "[]")) != nil {
		return true
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if len(label) > 63 || !hostLabelRe.MatchString(label) {
			return false
		}
	}
	return true
}

// PublicHTTPURL reports an http(s) URL whose host is a name other than
// localhost, not an IP address (for OG images; spec/links.md §3).
func PublicHTTPURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !validHost(u.Hostname()) {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return h != "localhost" && !strings.HasSuffix(h, ".localhost") && net.ParseIP(strings.Trim(h, "[]")) == nil && strings.Contains(h, ".")
}

// SearchParams is an ordered query string with WHATWG URLSearchParams
// semantics: Set replaces the first occurrence in place and drops the rest,
// Encode uses application/x-www-form-urlencoded serialisation without sorting.
type SearchParams struct{ pairs [][2]string }

// ParseSearchParams parses a raw query (without "?").
func ParseSearchParams(raw string) *SearchParams {
	p := &SearchParams{}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		p.pairs = append(p.pairs, [2]string{formDecode(k), formDecode(v)})
	}
	return p
}

func formDecode(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	// WHATWG leaves invalid percent sequences as they are.
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			d, _ := url.PathUnescape(s[i : i+3])
			b.WriteString(d)
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// Get returns the first value of key.
func (p *SearchParams) Get(key string) (string, bool) {
	for _, kv := range p.pairs {
		if kv[0] == key {
			return kv[1], true
		}
	}
	return "", false
}

// Set replaces the first key's value, removes later ones, or appends.
func (p *SearchParams) Set(key, value string) {
	out := p.pairs[:0]
	found := false
	for _, kv := range p.pairs {
		if kv[0] == key {
			if found {
				continue
			}
			found = true
			kv[1] = value
		}
		out = append(out, kv)
	}
	p.pairs = out
	if !found {
		p.pairs = append(p.pairs, [2]string{key, value})
	}
}

// Delete removes every occurrence of key.
func (p *SearchParams) Delete(key string) {
	out := p.pairs[:0]
	for _, kv := range p.pairs {
		if kv[0] != key {
			out = append(out, kv)
		}
	}
	p.pairs = out
}

// Len is the number of pairs.
func (p *SearchParams) Len() int { return len(p.pairs) }

// Encode serialises as WHATWG does: space as +, only *-._ and alphanumerics
// unescaped, pairs in order.
func (p *SearchParams) Encode() string {
	var b strings.Builder
	for i, kv := range p.pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		formEncode(&b, kv[0])
		b.WriteByte('=')
		formEncode(&b, kv[1])
	}
	return b.String()
}

func formEncode(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}

// ApplyUTM writes UTM values into a destination's query (spec/links.md §4.8): a
// non-empty value is set (only its first "+" becomes a space, as upstream),
// nil or "" deletes the param. keys lists the params to touch in order; a URL
// that does not parse is returned unchanged.
func ApplyUTM(dest string, keys []string, values map[string]*string) string {
	if len(keys) == 0 || !ValidURL(dest) {
		return dest
	}
	u, err := url.Parse(dest)
	if err != nil {
		return dest
	}
	frag := ""
	if i := strings.IndexByte(dest, '#'); i >= 0 {
		frag = dest[i:]
	}
	beforeFrag := strings.TrimSuffix(dest, frag)
	base, rawQuery, _ := strings.Cut(beforeFrag, "?")
	p := ParseSearchParams(rawQuery)
	for _, k := range keys {
		v := values[k]
		if v == nil || *v == "" {
			p.Delete(k)
			continue
		}
		p.Set(k, strings.Replace(*v, "+", " ", 1))
	}
	if specialSchemes[strings.ToLower(u.Scheme)] && u.Path == "" && u.RawPath == "" && !strings.HasSuffix(base, "/") {
		base += "/"
	}
	if p.Len() == 0 {
		return base + frag
	}
	return base + "?" + p.Encode() + frag
}

// UTMFromURL returns the URL's non-empty utm_* params (spec/links.md §4.8: the
// stored columns mirror the destination).
func UTMFromURL(dest string) map[string]*string {
	out := map[string]*string{}
	_, rest, ok := strings.Cut(dest, "?")
	if !ok {
		return out
	}
	rest, _, _ = strings.Cut(rest, "#")
	p := ParseSearchParams(rest)
	for _, k := range UTMKeys {
		if v, ok := p.Get(k); ok && v != "" {
			out[k] = &v
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
