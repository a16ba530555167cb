package request_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ratelimit"
)

// TestRateLimitHeaders: every rule sends X-RateLimit-Reset as the epoch in
// milliseconds (spec/links.md §1.6, the embed's §6.7 too); Retry-After is sent
// on a 429 (and on every response with RetryAfterAlways) as delta seconds,
// with retry-after-ms on the 429.
func TestRateLimitHeaders(t *testing.T) {
	windowStart := time.Date(2030, 4, 16, 17, 0, 0, 0, time.UTC)
	now := func() time.Time { return windowStart.Add(15 * time.Second) }
	resetMs := strconv.FormatInt(windowStart.Add(time.Minute).UnixMilli(), 10)
	rl := &request.RateLimit{Limiter: ratelimit.NewMemory(now), Now: now, Log: slog.Default()}
	for _, always := range []bool{false, true} {
		app := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
			var e *apierr.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an API error", err)
			}
			return c.Status(e.Status()).SendString(string(e.Code) + ": " + e.Message)
		}})
		bucket := "b" + strconv.FormatBool(always)
		app.Get("/", func(c *fiber.Ctx) error {
			if err := rl.Check(c, request.Rule{Bucket: bucket, Limit: 2, Window: time.Minute, Message: "Slow down.", RetryAfterAlways: always}); err != nil {
				return err
			}
			return c.SendString("ok")
		})
		for i := 1; i <= 3; i++ {
			res, err := app.Test(httptest.NewRequest("GET", "/", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			h := res.Header
			if h.Get("X-RateLimit-Reset") != resetMs || h.Get("X-RateLimit-Limit") != "2" || h.Get("X-RateLimit-Remaining") != strconv.Itoa(max(2-i, 0)) {
				t.Fatalf("always=%v request %d: reset %q limit %q remaining %q, want reset %s", always, i,
					h.Get("X-RateLimit-Reset"), h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining"), resetMs)
			}
			limited := i == 3
			if limited != (res.StatusCode == 429) {
				t.Fatalf("always=%v request %d: status %d", always, i, res.StatusCode)
			}
			wantRA := ""
			if limited || always {
				wantRA = "45"
			}
			if h.Get("Retry-After") != wantRA {
				t.Fatalf("always=%v request %d: Retry-After %q, want %q", always, i, h.Get("Retry-After"), wantRA)
			}
			if limited && h.Get("Retry-After-Ms") != "45000" {
				t.Fatalf("retry-after-ms %q", h.Get("Retry-After-Ms"))
			}
		}
	}
}

type brokenLimiter struct{}

func (brokenLimiter) Allow(context.Context, string, int, time.Duration) (ratelimit.Result, error) {
	return ratelimit.Result{}, errors.New("redis down")
}

// TestRateLimitOutage: a limiter that fails lets the request through,
// without headers, and logs the failure.
func TestRateLimitOutage(t *testing.T) {
	var logs bytes.Buffer
	rl := &request.RateLimit{Limiter: brokenLimiter{}, Now: time.Now, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	app := fiber.New()
	app.Get("/", func(c *fiber.Ctx) error {
		if err := rl.Check(c, request.Rule{Bucket: "x", Limit: 1, Window: time.Minute, Message: "no"}); err != nil {
			return err
		}
		return c.SendString("ok")
	})
	res, err := app.Test(httptest.NewRequest("GET", "/", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("X-RateLimit-Limit") != "" {
		t.Fatalf("status %d, headers %v", res.StatusCode, res.Header)
	}
	if !strings.Contains(logs.String(), "rate limiter unavailable; request allowed") || !strings.Contains(logs.String(), "redis down") {
		t.Fatalf("log: %s", logs.String())
	}
}
