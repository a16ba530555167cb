package handlers

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/static"
)

// Cache lifetimes of /static/ responses: a request carrying the file's
// current fingerprint (static.URL) may be cached for a year without
// revalidation; anything else (no ?v=, an old one) briefly, since the bytes
// behind that URL change with the next build.
const (
	cacheFingerprinted = "public, max-age=31536000, immutable"
	cacheShort         = "public, max-age=300"
)

// serveStatic answers /static/* from the embedded assets: the right content
// type, a weak ETag (304 on If-None-Match), and the brotli or gzip encoding
// precomputed at start-up when the client accepts it. Unknown files get the
// HTML 404 page.
func (s *Server) serveStatic(c *fiber.Ctx) error {
	f, ok := static.Lookup(c.Params("*"))
	if !ok {
		return apierr.New(apierr.NotFound, "The requested file does not exist.")
	}
	if c.Query(static.VersionParam) == f.Version {
		c.Set(fiber.HeaderCacheControl, cacheFingerprinted)
	} else {
		c.Set(fiber.HeaderCacheControl, cacheShort)
	}
	c.Set(fiber.HeaderETag, f.ETag)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	// Public assets: other sites load the browser script (js/analytics.js,
	// docs/browser-script.md), also with crossorigin/integrity or under
	// Cross-Origin-Embedder-Policy.
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	c.Set("Cross-Origin-Resource-Policy", "cross-origin")
	c.Set(fiber.HeaderContentType, f.ContentType)
	if f.Compressible {
		c.Vary(fiber.HeaderAcceptEncoding)
	}
	if etagMatches(c.Get(fiber.HeaderIfNoneMatch), f.ETag) {
		c.Status(fiber.StatusNotModified)
		return nil
	}
	body := f.Body
	switch encoding(c.Get(fiber.HeaderAcceptEncoding), f) {
	case "br":
		body = f.Brotli()
		c.Set(fiber.HeaderContentEncoding, "br")
	case "gzip":
		body = f.Gzip()
		c.Set(fiber.HeaderContentEncoding, "gzip")
	}
	return c.Send(body)
}

// etagMatches compares If-None-Match with etag weakly (RFC 9110 §13.1.2).
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// encoding picks the encoding to send: br, then gzip, when the client
// accepts it with a non-zero q and it is smaller than the file; "" for the
// identity. The file's first request for an encoding compresses it (about
// 80 ms for css/app.css or js/htmx.min.js at brotli's best quality), every
// later one reuses the bytes (static.File.Gzip).
func encoding(acceptEncoding string, f *static.File) string {
	if !f.Compressible || acceptEncoding == "" {
		return ""
	}
	var br, gz bool
	for _, part := range strings.Split(acceptEncoding, ",") {
		name, params, _ := strings.Cut(part, ";")
		ok := true
		if q, found := strings.CutPrefix(strings.TrimSpace(params), "q="); found {
			v, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
			ok = err == nil && v > 0
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "br":
			br = ok
		case "gzip":
			gz = ok
		}
	}
	switch {
	case br && len(f.Brotli()) < len(f.Body):
		return "br"
	case gz && len(f.Gzip()) < len(f.Body):
		return "gzip"
	}
	return ""
}
