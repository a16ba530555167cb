package handlers

import (
	"net"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/config"
)

// IsHTTPS reports whether the client reached us over TLS, directly or via a
// trusted proxy that says so.
func (s *Server) IsHTTPS(c *fiber.Ctx) bool {
	if c.Context().IsTLS() {
		return true
	}
	return s.svc.Config.IsTrustedProxy(c.Context().RemoteIP()) &&
		strings.EqualFold(c.Get(fiber.HeaderXForwardedProto), "https")
}

// requireHTTPS refuses plain-HTTP API requests outside dev mode.
func (s *Server) requireHTTPS(c *fiber.Ctx) error {
	if s.svc.Config.DevMode || s.IsHTTPS(c) || c.Path() == "/healthz" || c.Path() == "/readyz" {
		return c.Next()
	}
	return apierr.Newf(apierr.BadRequest, "HTTPS is required. Send this request to https://%s%s.", s.httpsHost(request.Host(c)), request.OriginalPath(c))
}

// upgradeHTTPS redirects plain-HTTP page and short-link requests to HTTPS
// outside dev mode.
func (s *Server) upgradeHTTPS(c *fiber.Ctx) error {
	if s.svc.Config.DevMode || s.IsHTTPS(c) || c.Path() == "/healthz" || c.Path() == "/readyz" {
		return c.Next()
	}
	target := "https://" + s.httpsHost(request.Host(c)) + string(c.Request().RequestURI())
	return c.Redirect(target, fiber.StatusMovedPermanently)
}

// httpsHost is where a plain-HTTP request for host goes over HTTPS: the
// plain listener's port (80 or RELINK_HTTP_ADDR's) is swapped for the HTTPS
// origin's port, which is dropped when it is 443.
func (s *Server) httpsHost(host string) string {
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		return host // no port: the default ports on both sides
	}
	cfg := s.svc.Config
	_, plain, _ := net.SplitHostPort(cfg.HTTPAddr)
	if p != "80" && p != plain {
		return host
	}
	tlsPort := "443"
	for _, u := range []*url.URL{cfg.AppURL, cfg.APIURL} {
		if u.Scheme == "https" {
			tlsPort = config.Port(u)
			break
		}
	}
	if tlsPort == "443" {
		return h
	}
	return net.JoinHostPort(h, tlsPort)
}
