package redirect

import (
	"net/url"
	"strings"

	"github.com/relinkhq/relink/internal/shortlink"
)

// shortLink is t's short link as the preview pages show it, always https.
func (h *Handlers) shortLink(t *shortlink.Target) string { return h.Wire.ShortLink(t.Domain, t.Key) }

// hostOnly drops a port (dev domains like localhost:8080): ':' is not
// allowed in a cookie name.
func hostOnly(domain string) string {
	if i := strings.LastIndexByte(domain, ':'); i >= 0 && !strings.Contains(domain[i:], "]") {
		return domain[:i]
	}
	return domain
}

// frameSource is the CSP source of u's origin.
func frameSource(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https") {
		return "'none'"
	}
	return p.Scheme + "://" + p.Host
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
