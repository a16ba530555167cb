package shortlink

import (
	"strings"
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

// destination builds the final URL (spec/links.md §10.3) from target.
type destination struct {
	clickID    string
	key        string // for partner links' via=
	track      bool   // conversion tracking applies (trackConversion or a partner link)
	partner    bool
	noTrack    bool   // the request has dub-no-track
	reqQuery   string // the short-link request's raw query
	dropParams []string
}

func (d destination) build(target string) string {
	base, rawQuery, frag := splitURL(target)
	reqQ := d.reqQuery
	modify := d.track || d.partner || reqQ != ""
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
