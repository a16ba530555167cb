package handlers

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
)

// limitIP rate-limits a public route per client IP with the server's
// limiter (e.g. /qr: 10 per 10 s, links.md §1.6). Over the limit: 429 with
// msg and the retry headers.
func (s *Server) limitIP(bucket string, limit int, window time.Duration, msg string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := s.limit(c, bucket+":"+s.ClientIP(c), limit, window, msg); err != nil {
			return err
		}
		return c.Next()
	}
}

// limit counts the request in bucket and sets the X-RateLimit headers on
// every response from here on; over the limit it answers 429 with msg and
// Retry-After / retry-after-ms. A limiter outage is logged and the request
// allowed: it must not take the API down.
func (s *Server) limit(c *fiber.Ctx, bucket string, limit int, window time.Duration, msg string) error {
	res, err := s.svc.Limiter.Allow(c.UserContext(), bucket, limit, window)
	if err != nil {
		s.log.Error("rate limiter unavailable; request allowed", "request_id", request.RequestID(c), "err", err)
		return nil
	}
	c.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	c.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	c.Set("X-RateLimit-Reset", strconv.FormatInt(res.Reset.UnixMilli(), 10))
	if !res.Allowed {
		wait := max(res.Reset.Sub(s.svc.Now()), 0)
		c.Set(fiber.HeaderRetryAfter, strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
		c.Set("retry-after-ms", strconv.FormatInt(wait.Milliseconds(), 10))
		return apierr.New(apierr.RateLimitExceeded, msg)
	}
	return nil
}
