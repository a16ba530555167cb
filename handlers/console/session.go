package console

import (
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/models"
)

// CookieName is the console session cookie. Its path is /console, so the
// embed pages and the API never receive it.
const CookieName = "relink_session"

// CSRFField is the form field and CSRFHeader the htmx header that carry the
// session's CSRF token.
const (
	CSRFField  = "_csrf"
	CSRFHeader = "X-CSRF-Token"
)

// Session loads the session cookie (or starts an anonymous one with a fresh
// CSRF token), checks the CSRF token on every unsafe method, and sets the
// console's response headers: no framing, no caching.
func (h *Handlers) Session(c *fiber.Ctx) error {
	render.FrameAncestors(c, "'none'")
	c.Set(fiber.HeaderCacheControl, "no-store")
	s, err := h.Sessions.Decode(CookieName, c.Cookies(CookieName), h.Now())
	if err != nil {
		s = auth.Session{CSRF: auth.NewToken(), IssuedAt: h.Now().Unix()}
		if err := h.saveSession(c, s); err != nil {
			return err
		}
	}
	c.Context().SetUserValue(keySession, &s)
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return c.Next()
	}
	token := c.Get(CSRFHeader)
	if token == "" {
		token = c.FormValue(CSRFField)
	}
	if !auth.TokensEqual(s.CSRF, token) {
		return apierr.New(apierr.Forbidden, "The form has expired or did not come from this site. Reload the page and try again.")
	}
	return c.Next()
}

// session is the request's session (set by Session).
func session(c *fiber.Ctx) *auth.Session {
	s, _ := c.Context().UserValue(keySession).(*auth.Session)
	if s == nil {
		panic("console: session read on a route without the Session middleware")
	}
	return s
}

// saveSession writes the session cookie.
func (h *Handlers) saveSession(c *fiber.Ctx, s auth.Session) error {
	v, err := h.Sessions.Encode(CookieName, s)
	if err != nil {
		return err
	}
	c.Cookie(&fiber.Cookie{
		Name: CookieName, Value: v, Path: route.Prefix,
		MaxAge:   int(auth.SessionMaxAge / time.Second),
		HTTPOnly: true, Secure: h.secure, SameSite: fiber.CookieSameSiteLaxMode,
	})
	c.Context().SetUserValue(keySession, &s)
	return nil
}

// RequireUser lets signed-in users through with their Viewer (user, current
// workspace, role, all memberships), and sends everyone else to sign-in.
func (h *Handlers) RequireUser(c *fiber.Ctx) error {
	s := session(c)
	if s.UserID == "" {
		return toSignIn(c)
	}
	ctx := c.UserContext()
	// Signed out on the server (sign-out, "sign out everywhere", a password
	// change), or a cookie from before server-side sessions: sign in again.
	if ok, err := h.DB.ConsoleSessionValid(ctx, s.SessionID, s.UserID); err != nil {
		return err
	} else if !ok {
		return toSignIn(c)
	}
	u, err := h.DB.UserByID(ctx, s.UserID)
	if models.IsNotFound(err) {
		return toSignIn(c)
	} else if err != nil {
		return err
	}
	ms, err := h.DB.UserWorkspaces(ctx, u.ID)
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return apierr.New(apierr.Forbidden, "Your account does not belong to any workspace yet. Ask an owner for an invite.")
	}
	v := &Viewer{User: u, Workspaces: ms}
	for i := range ms {
		if ms[i].Workspace.ID == s.WorkspaceID {
			v.Workspace, v.Role = &ms[i].Workspace, ms[i].Role
		}
	}
	if v.Workspace == nil {
		// Removed from the workspace, or it was deleted: show the first one.
		v.Workspace, v.Role = &ms[0].Workspace, ms[0].Role
		ns := *s
		ns.WorkspaceID = v.Workspace.ID
		if err := h.saveSession(c, ns); err != nil {
			return err
		}
	}
	c.Context().SetUserValue(keyViewer, v)
	return c.Next()
}

// RequireOwner allows only the workspace's owners.
func (h *Handlers) RequireOwner(c *fiber.Ctx) error {
	if viewer(c).Role != models.RoleOwner {
		return apierr.New(apierr.Forbidden, "Only workspace owners can do this.")
	}
	return c.Next()
}

func toSignIn(c *fiber.Ctx) error {
	target := route.URL(route.LoginForm)
	if c.Method() == fiber.MethodGet && c.OriginalURL() != route.URL(route.Home) {
		target += "?next=" + url.QueryEscape(c.OriginalURL())
	}
	return render.Redirect(c, target)
}

// safeNext keeps a post-sign-in target only when it is a console path on this
// origin (no open redirect through "//evil" or "/\evil").
func safeNext(next string) string {
	if strings.HasPrefix(next, route.Prefix) && !strings.HasPrefix(next, "//") && !strings.ContainsAny(next, "\\\r\n") {
		return next
	}
	return route.URL(route.Home)
}
