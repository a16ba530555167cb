package handlers

import (
	"crypto/subtle"
	"strings"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
)

// TLSAskPath is the check a reverse proxy with on-demand TLS (Caddy's
// `on_demand_tls { ask … }`) makes before it gets a certificate for a host:
// GET TLSAskPath?domain=NAME answers 200 when Relink serves NAME (a
// registered short domain, or the app, API or default short domain) and
// 404 otherwise, so a proxy never asks a CA for names pointed at it by
// strangers. The dispatcher answers it before any face (on every Host), and
// only to direct loopback calls (the proxy on the same machine; a request
// the proxy forwards carries X-Forwarded-For and is refused) or with
// ?token=RELINK_TLS_ASK_TOKEN. docs/deploy.md.
const TLSAskPath = "/.well-known/relink/tls-ask"

// tlsAskCounts are the ask's answers, on /metrics.
type tlsAskCounts struct{ allowed, refused, forbidden atomic.Uint64 }

// tlsAsk answers TLSAskPath.
func (s *Server) tlsAsk(c *fiber.Ctx) error {
	if !s.askAllowed(c) {
		s.asks.forbidden.Add(1)
		return c.Status(fiber.StatusNotFound).SendString("Not found.")
	}
	host := CanonicalHost(strings.TrimSuffix(strings.TrimSpace(c.Query("domain")), "."))
	if host != "" && !bad([]byte(host)) && s.ServesTLSHost(host) {
		s.asks.allowed.Add(1)
		return c.SendString("ok")
	}
	s.asks.refused.Add(1)
	s.log.Info("on-demand TLS refused: not a Relink domain", "domain", c.Query("domain"))
	return c.Status(fiber.StatusNotFound).SendString("not a Relink domain")
}

// askAllowed: a direct call from the loopback interface (not a request a
// local proxy forwards: those carry forwarding headers), or the token.
func (s *Server) askAllowed(c *fiber.Ctx) bool {
	if tok := s.svc.Config.TLSAskToken; tok != "" && subtle.ConstantTimeCompare([]byte(c.Query("token")), []byte(tok)) == 1 {
		return true
	}
	if c.Get(fiber.HeaderXForwardedFor) != "" || c.Get("Forwarded") != "" {
		return false
	}
	return c.Context().RemoteIP().IsLoopback()
}

// ServesTLSHost reports whether host (lower-case, no port) is a name Relink
// answers and may hold a certificate for: the app, API and default short
// domain hosts, and every registered short domain (the redirect face's own
// in-memory check). The ACME host policy and the on-demand TLS check both
// ask it.
func (s *Server) ServesTLSHost(host string) bool {
	cfg := s.svc.Config
	if host == cfg.AppURL.Hostname() || host == cfg.APIURL.Hostname() || host == CanonicalHost(cfg.ShortDomain) {
		return true
	}
	return s.svc.Domains.IsRegistered(host)
}
