package handlers

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/config"
)

// Face returns the Fiber app that serves face f. Routes added to it before
// the first request is served are part of the route table; tests use this to
// mount probes (a panicking handler, a slow one) on a real face.
func (s *Server) Face(f request.Face) *fiber.App {
	switch f {
	case request.FaceAPI:
		return s.api
	case request.FaceShort:
		return s.short
	}
	return s.app
}

// dispatch hands the request to the face that serves it.
func (s *Server) dispatch(c *fiber.Ctx) error {
	s.seal.Do(s.sealRoutes)
	// Every answer (JSON, pages, downloads, redirects, errors) on every
	// face: no browser sniffs a JSON body or an upload into HTML.
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	path := c.Path()
	if s.acmeHTTP != nil && strings.HasPrefix(path, "/.well-known/acme-challenge/") {
		return s.acmeHTTP(c)
	}
	if path == TLSAskPath {
		return s.tlsAsk(c)
	}
	face := s.faceOf(c)
	request.SetOriginalPath(c, path)
	if face == request.FaceApp && (path == "/api" || strings.HasPrefix(path, "/api/")) {
		face = request.FaceAPI
		rest := strings.TrimPrefix(path, "/api")
		if rest == "" {
			rest = "/"
		}
		c.Request().URI().SetPath(rest)
	}
	request.SetFace(c, face)
	if s.IsHTTPS(c) {
		// Browsers that reached us over HTTPS keep to it for a year.
		c.Set(fiber.HeaderStrictTransportSecurity, "max-age=31536000")
	}
	switch face {
	case request.FaceAPI:
		s.apiH(c.Context())
	case request.FaceShort:
		s.shortH(c.Context())
	default:
		s.appH(c.Context())
	}
	return nil
}

// faceOf matches Host against the origins, then falls back to the arrival port.
func (s *Server) faceOf(c *fiber.Ctx) request.Face {
	cfg := s.svc.Config
	host := CanonicalHost(request.Host(c))
	switch host {
	case CanonicalHost(cfg.APIURL.Host):
		return request.FaceAPI
	case CanonicalHost(cfg.AppURL.Host):
		return request.FaceApp
	case CanonicalHost(cfg.ShortDomain):
		return request.FaceShort
	}
	if !bad([]byte(host)) && s.svc.Domains.IsRegistered(host) {
		return request.FaceShort
	}
	// Unknown host: the face of the port it arrived on.
	port := request.LocalPort(c)
	if port == config.Port(cfg.APIURL) && port != config.Port(cfg.AppURL) {
		return request.FaceAPI
	}
	return request.FaceApp
}

// CanonicalHost lower-cases a host and drops the default ports, so
// "Example.com:443" and "example.com" compare equal.
func CanonicalHost(h string) string {
	h = strings.ToLower(h)
	if strings.HasSuffix(h, ":80") {
		return strings.TrimSuffix(h, ":80")
	}
	return strings.TrimSuffix(h, ":443")
}
