package handlers

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
)

// limitIP rate-limits a public route per client IP with the server's
// limiter (e.g. /qr: 10 per 10 s, spec/links.md §1.6). Over the limit: 429 with
// msg and the retry headers.
func (s *Server) limitIP(bucket string, limit int, window time.Duration, msg string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := s.limit(c, bucket+":"+s.ClientIP(c), limit, window, msg); err != nil {
			return err
		}
		return c.Next()
	}
}

// limitWorkspace rate-limits a route per workspace (after key()), as
// upstream's ratelimit(n, window) keyed by the workspace id.
func (s *Server) limitWorkspace(bucket string, limit int, window time.Duration, msg string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := s.limit(c, bucket+":"+request.Workspace(c).ID, limit, window, msg); err != nil {
			return err
		}
		return c.Next()
	}
}

// limit counts the request in bucket through the one rate-limit gate
// (request.RateLimit): the X-RateLimit headers on every response from here
// on, a 429 with msg and Retry-After / retry-after-ms over the limit.
func (s *Server) limit(c *fiber.Ctx, bucket string, limit int, window time.Duration, msg string) error {
	return s.limiter.Check(c, request.Rule{Bucket: bucket, Limit: limit, Window: window, Message: msg})
}
