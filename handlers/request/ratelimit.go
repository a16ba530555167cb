package request

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ratelimit"
)

// RateLimit is the one rate-limit gate of every face: API keys, publishable
// keys, per-IP public routes (/qr, /track/click, console sign-in) and the
// embed's public tokens. It counts a request in a bucket and sets Dub's
// headers (spec/links.md §1.6): X-RateLimit-Limit, X-RateLimit-Remaining and
// X-RateLimit-Reset as the Unix epoch in milliseconds when the window
// resets (upstream's unit, Upstash's `reset`). Over the limit it answers 429
// rate_limit_exceeded with Retry-After as delta seconds and retry-after-ms,
// which the SDKs' retry logic reads.
type RateLimit struct {
	Limiter ratelimit.Limiter
	Now     func() time.Time
	Log     *slog.Logger
}

// Rule is one limit: limit requests per window in Bucket.
type Rule struct {
	Bucket  string
	Limit   int
	Window  time.Duration
	Message string // the 429's message
	// RetryAfterAlways sends Retry-After on every response, not only on a
	// 429 (the embed's data API, spec/partners-and-embed.md §6.7).
	RetryAfterAlways bool
}

// Check counts the request under r and sets the headers on the response
// (they stay on an error response produced later). A limiter outage is
// logged and the request allowed: it must not take the API down.
func (l *RateLimit) Check(c *fiber.Ctx, r Rule) error {
	res, err := l.Limiter.Allow(c.UserContext(), r.Bucket, r.Limit, r.Window)
	if err != nil {
		l.Log.Error("rate limiter unavailable; request allowed", "request_id", RequestID(c), "err", err)
		return nil
	}
	c.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	c.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	c.Set("X-RateLimit-Reset", strconv.FormatInt(res.Reset.UnixMilli(), 10))
	wait := max(res.Reset.Sub(l.Now()), 0)
	if r.RetryAfterAlways || !res.Allowed {
		c.Set(fiber.HeaderRetryAfter, strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
	}
	if !res.Allowed {
		c.Set("retry-after-ms", strconv.FormatInt(wait.Milliseconds(), 10))
		return apierr.New(apierr.RateLimitExceeded, r.Message)
	}
	return nil
}
