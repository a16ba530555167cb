// Package embed serves the embedded referral dashboard
// (spec/partners-and-embed.md §6): the page at /embed/referrals?token=… on the app
// origin, its htmx fragments under /embed/referrals/fragments/, and the JSON
// data API under /api/embed/referrals/ (§6.7). The page is framed by client
// apps: it sets CSP frame-ancestors from the workspace's allowed hostnames
// (default any), sends no X-Frame-Options and never reads cookies — the
// public token comes in the page URL, then in the Authorization header of
// every fragment and data request.
package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/internal/portal"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/models"
)

// Deps is what the embed handlers need.
type Deps struct {
	DB        *models.DB
	Referrals *referrals.Service
	RateLimit *request.RateLimit // the server's one rate-limit gate
	Now       func() time.Time
	Log       *slog.Logger
	// The partner portal's door (portal.go): sign-in links and sessions,
	// the cookie codec (the console's keys, another cookie name) and
	// whether cookies are Secure (outside dev mode).
	Portal        *portal.Service
	Sessions      *auth.SessionCodec
	SecureCookies bool
}

// Handlers serves the embed routes.
type Handlers struct{ Deps }

// New returns the embed handlers.
func New(d Deps) *Handlers {
	return &Handlers{Deps: d}
}

// RequestsPerMinute is the per-token limit of the data API and fragments
// (§6.7: 60 requests per minute per token).
const RequestsPerMinute = 60

type sessionKey struct{}

// session is the token's session set by Auth.
func session(c *fiber.Ctx) *referrals.Session {
	s, _ := c.Context().UserValue(sessionKey{}).(*referrals.Session)
	return s
}

// BearerToken reads the public token from the Authorization header: the
// second space-separated part, whatever the scheme word (§6.7).
func BearerToken(c *fiber.Ctx) string {
	parts := strings.Fields(c.Get(fiber.HeaderAuthorization))
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// Auth resolves the token of a data or fragment request, rate-limits it per
// token and stores the session. Errors: 401 without or with a bad token, 429
// over the limit.
func (h *Handlers) Auth(c *fiber.Ctx) error {
	token := BearerToken(c)
	if token == "" {
		return apierr.New(apierr.Unauthorized, referrals.MsgTokenMissing)
	}
	sess, err := h.Referrals.Open(c.UserContext(), token)
	if err != nil {
		return err
	}
	if err := h.limit(c, token); err != nil {
		return err
	}
	c.Context().SetUserValue(sessionKey{}, sess)
	return c.Next()
}

// limit counts the request against the token's budget and sets the rate
// limit headers (§6.7: on every response, Retry-After included).
func (h *Handlers) limit(c *fiber.Ctx, token string) error {
	sum := sha256.Sum256([]byte(token))
	return h.RateLimit.Check(c, request.Rule{Bucket: "embed:" + hex.EncodeToString(sum[:12]),
		Limit: RequestsPerMinute, Window: time.Minute, Message: "Too many requests.", RetryAfterAlways: true})
}

// asAPIError unwraps an *apierr.Error.
func asAPIError(err error) (*apierr.Error, bool) {
	var e *apierr.Error
	ok := errors.As(err, &e)
	return e, ok
}
