package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/models"
	"github.com/relinkhq/relink/views/embed"
)

// RequestLink is POST /partners/login: it answers the same page whether or
// not the address belongs to a partner, and sends the link (when it does)
// off the request, so the answer takes the same time too. The client IP's
// limit is the route's; the address's is here.
func (h *Handlers) RequestLink(c *fiber.Ctx) error {
	f := embed.SignInForm{CSRF: h.portalSession(c).CSRF, Email: strings.TrimSpace(c.FormValue("email"))}
	if a, err := mail.ParseAddress(f.Email); err != nil || a.Address != f.Email || len(f.Email) > 254 {
		f.Error = msgBadAddress
		return render.Page(c, http.StatusUnprocessableEntity, portalPage("Partner sign-in"), embed.SignIn(f))
	}
	bucket := "partner-link-address:" + hashHex(models.NormalizeEmail(f.Email))
	if err := h.RateLimit.Check(c, ruleOf(bucket, LinksPerAddress, LinkWindow, msgTooManyLinks)); err != nil {
		return err
	}
	go func(email string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := h.Portal.SendLink(ctx, email); err != nil {
			h.Log.Error("partner portal: sign-in link not sent", "err", err)
		}
	}(strings.Clone(f.Email)) // Fiber's strings live in the request's buffers
	f.Sent = true
	return render.Page(c, http.StatusOK, portalPage("Check your e-mail"), embed.SignIn(f))
}

// ConfirmLink is GET /partners/login/:token: a button that uses the link.
func (h *Handlers) ConfirmLink(c *fiber.Ctx) error {
	token := c.Params("token")
	ok, err := h.Portal.Usable(c.UserContext(), token)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if !ok {
		status = http.StatusGone
	}
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	return render.Page(c, status, portalPage("Sign in"), embed.Confirm(embed.ConfirmView{Token: token, CSRF: h.portalSession(c).CSRF, Usable: ok}))
}

// UseLink is POST /partners/login/:token: a usable link starts a session (a
// new CSRF token: the anonymous one is never reused); a used or expired
// one shows the confirmation page's "no longer works".
func (h *Handlers) UseLink(c *fiber.Ctx) error {
	sid, ok, err := h.Portal.SignIn(c.UserContext(), c.Params("token"))
	if err != nil {
		return err
	}
	if !ok {
		return render.Page(c, http.StatusGone, portalPage("Sign in"), embed.Confirm(embed.ConfirmView{CSRF: h.portalSession(c).CSRF}))
	}
	if err := h.savePortalSession(c, auth.Session{SessionID: sid, CSRF: auth.NewToken(), IssuedAt: h.now().Unix()}); err != nil {
		return err
	}
	h.Log.Info("partner portal sign-in", "session", sid[:8])
	return render.Redirect(c, embed.PortalPath)
}

// PortalLogout is POST /partners/logout: the session's row is deleted, so a
// copy of the cookie signs no one in any more.
func (h *Handlers) PortalLogout(c *fiber.Ctx) error {
	if sid := h.portalSession(c).SessionID; sid != "" {
		if err := h.Portal.SignOut(c.UserContext(), sid); err != nil {
			return err
		}
	}
	if err := h.savePortalSession(c, auth.Session{CSRF: auth.NewToken(), IssuedAt: h.now().Unix()}); err != nil {
		return err
	}
	return render.Redirect(c, embed.PortalPath)
}

func ruleOf(bucket string, limit int, window time.Duration, msg string) request.Rule {
	return request.Rule{Bucket: bucket, Limit: limit, Window: window, Message: msg}
}

// hashHex keys a limiter bucket without putting the address or session id
// in the limiter's store.
func hashHex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}
