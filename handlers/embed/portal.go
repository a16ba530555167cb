package embed

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/internal/portal"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/models"
	"github.com/relinkhq/relink/views/embed"
	"github.com/relinkhq/relink/views/layout"
)

// The partner portal (issue 36, docs/portal.md): /partners on the app
// origin. A partner signs in with a one-time link sent by e-mail and then
// sees every program their address is enrolled in; a program's dashboard is
// the embed's page and fragments, with a session cookie as the door instead
// of a token. The cookie's path is /partners, so neither the console nor the
// embed ever receives it.

// PortalCookie is the portal's session cookie.
const PortalCookie = portal.CookieName

// Portal limits: sign-in links asked per address and per client IP, and a
// signed-in session's fragment requests.
const (
	LinksPerAddress   = 5
	LinksPerIP        = 20
	LinkWindow        = 15 * time.Minute
	PortalPerMinute   = 120
	msgTooManyLinks   = "Too many sign-in links were asked for this address. Wait a few minutes, then try again."
	msgBadAddress     = "Enter a valid e-mail address."
	msgPortalCSRF     = "The form has expired or did not come from this site. Reload the page and try again."
	portalBodyClass   = "bg-gray-50 text-gray-900 antialiased dark:bg-gray-950 dark:text-gray-100"
	portalSessionKey  = "portal-session"
	portalViewerKey   = "portal-viewer"
	partnerSessionTag = "ps_"
)

// portalViewer is the signed-in address and its enrollments.
type portalViewer struct {
	Email       string
	Enrollments []models.PortalEnrollment
}

func (h *Handlers) portalSession(c *fiber.Ctx) *auth.Session {
	s, _ := c.Locals(portalSessionKey).(*auth.Session)
	return s
}

// PortalSession loads the portal cookie (or starts an anonymous session
// with a fresh CSRF token), checks the CSRF token on every unsafe method,
// and sets the portal's headers: no framing, no caching.
func (h *Handlers) PortalSession(c *fiber.Ctx) error {
	render.FrameAncestors(c, "'none'")
	c.Set(fiber.HeaderCacheControl, "no-store")
	s, err := h.Sessions.Decode(PortalCookie, c.Cookies(PortalCookie), h.now())
	if err != nil {
		s = auth.Session{CSRF: auth.NewToken(), IssuedAt: h.now().Unix()}
		if err := h.savePortalSession(c, s); err != nil {
			return err
		}
	}
	c.Locals(portalSessionKey, &s)
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return c.Next()
	}
	token := c.Get("X-CSRF-Token")
	if token == "" {
		token = c.FormValue("_csrf")
	}
	if !auth.TokensEqual(s.CSRF, token) {
		return apierr.New(apierr.Forbidden, msgPortalCSRF)
	}
	return c.Next()
}

func (h *Handlers) now() time.Time {
	if h.Now == nil {
		return time.Now().UTC()
	}
	return h.Now().UTC()
}

func (h *Handlers) savePortalSession(c *fiber.Ctx, s auth.Session) error {
	v, err := h.Sessions.Encode(PortalCookie, s)
	if err != nil {
		return err
	}
	// The same session for the portal's pages and the partner-profile API:
	// two Set-Cookie lines (Fiber's c.Cookie keeps one per name), the later
	// line of a path winning in the browser.
	for _, path := range []string{embed.PortalPath, portal.APICookiePath} {
		ck := fasthttp.AcquireCookie()
		ck.SetKey(PortalCookie)
		ck.SetValue(v)
		ck.SetPath(path)
		ck.SetMaxAge(int(auth.SessionMaxAge / time.Second))
		ck.SetHTTPOnly(true)
		ck.SetSecure(h.SecureCookies)
		ck.SetSameSite(fasthttp.CookieSameSiteLaxMode)
		c.Response().Header.Add(fiber.HeaderSetCookie, string(ck.Cookie()))
		fasthttp.ReleaseCookie(ck)
	}
	c.Locals(portalSessionKey, &s)
	return nil
}

// signedIn is the address of the request's live portal session, or "".
func (h *Handlers) signedIn(c *fiber.Ctx) (string, error) {
	s := h.portalSession(c)
	if s == nil || !strings.HasPrefix(s.SessionID, partnerSessionTag) {
		return "", nil
	}
	email, ok, err := h.DB.PartnerSessionEmail(c.UserContext(), s.SessionID)
	if err != nil || !ok {
		return "", err
	}
	return email, nil
}

func portalPage(title string) layout.Page {
	return layout.Page{Title: title, Theme: layout.ThemeSystem, NoIndex: true, BodyClass: portalBodyClass}
}

// PortalHome is GET /partners: the sign-in form, or the signed-in address's
// programs.
func (h *Handlers) PortalHome(c *fiber.Ctx) error {
	email, err := h.signedIn(c)
	if err != nil {
		return err
	}
	if email == "" {
		return render.Page(c, http.StatusOK, portalPage("Partner sign-in"), embed.SignIn(embed.SignInForm{CSRF: h.portalSession(c).CSRF}))
	}
	v, err := h.portalView(c.UserContext(), email, h.portalSession(c).CSRF, "")
	if err != nil {
		return err
	}
	return render.Page(c, http.StatusOK, portalPage("Your programs"), embed.Programs(v))
}

func (h *Handlers) portalView(ctx context.Context, email, csrf, current string) (embed.PortalView, error) {
	es, err := h.DB.EnrollmentsByEmail(ctx, email)
	if err != nil {
		return embed.PortalView{}, err
	}
	v := embed.PortalView{Email: email, CSRF: csrf, Current: current}
	for _, e := range es {
		v.Programs = append(v.Programs, embed.PortalProgram{ID: e.EnrollmentID, Href: embed.PortalProgramPath(e.EnrollmentID),
			Program: e.ProgramName, Workspace: e.WorkspaceName, Status: e.Status, ProgramID: e.ProgramID})
	}
	if current == "" {
		if v.Tokens, err = h.DB.CountPartnerTokens(ctx, email); err != nil {
			return v, err
		}
	}
	return v, nil
}

// CreateToken is POST /partners/tokens: a partner API token, shown once on
// the programs page.
func (h *Handlers) CreateToken(c *fiber.Ctx) error {
	email, err := h.signedIn(c)
	if err != nil || email == "" {
		return orSignIn(c, err)
	}
	token, err := h.Portal.CreateToken(c.UserContext(), email)
	if err != nil {
		return err
	}
	v, err := h.portalView(c.UserContext(), email, h.portalSession(c).CSRF, "")
	if err != nil {
		return err
	}
	v.NewToken = token
	return render.Page(c, http.StatusOK, portalPage("Your programs"), embed.Programs(v))
}

// RevokeTokens is POST /partners/tokens/revoke: every token of the address.
func (h *Handlers) RevokeTokens(c *fiber.Ctx) error {
	email, err := h.signedIn(c)
	if err != nil || email == "" {
		return orSignIn(c, err)
	}
	if err := h.Portal.RevokeTokens(c.UserContext(), email); err != nil {
		return err
	}
	return render.Redirect(c, embed.PortalPath)
}

// orSignIn is err, or without one the sign-in page.
func orSignIn(c *fiber.Ctx, err error) error {
	if err != nil {
		return err
	}
	return render.Redirect(c, embed.PortalPath)
}

// PortalAuth opens the enrollment of the URL for the signed-in address: not
// signed in goes to the sign-in page; an enrollment of another address is
// 404, as one that does not exist. The session's requests are limited.
func (h *Handlers) PortalAuth(c *fiber.Ctx) error {
	email, err := h.signedIn(c)
	if err != nil {
		return err
	}
	if email == "" {
		return render.Redirect(c, embed.PortalPath)
	}
	ctx := c.UserContext()
	e, err := h.DB.EnrollmentOfEmail(ctx, c.Params("enrollmentId"), email)
	if err != nil {
		return err
	}
	sess, err := h.Referrals.OpenEnrollment(ctx, e.WorkspaceID, e.ProgramID, e.EnrollmentID, e.PartnerID)
	if err != nil {
		return err
	}
	sid := h.portalSession(c).SessionID
	if err := h.RateLimit.Check(c, ruleOf("portal:"+hashHex(sid), PortalPerMinute, time.Minute, "Too many requests.")); err != nil {
		return err
	}
	c.Context().SetUserValue(sessionKey{}, sess)
	c.Locals(portalViewerKey, &portalViewer{Email: email})
	c.SetUserContext(embed.WithBase(ctx, embed.PortalProgramPath(e.EnrollmentID)+"/fragments"))
	return c.Next()
}

// PortalPage is GET /partners/programs/:enrollmentId: the portal's header
// over the embed's dashboard for that enrollment.
func (h *Handlers) PortalPage(c *fiber.Ctx) error {
	sess := session(c)
	viewer, _ := c.Locals(portalViewerKey).(*portalViewer)
	v, err := h.portalView(c.UserContext(), viewer.Email, h.portalSession(c).CSRF, sess.Enrollment.ID)
	if err != nil {
		return err
	}
	page := portalPage(sess.Program.Name)
	if q := c.Query("theme"); q != "" {
		page.Theme = ParseTheme(q) // as the embed's ?theme=; default: the visitor's
	}
	if sess.Group == nil {
		ev := errorView(apierr.New(apierr.Forbidden, referrals.MsgNoGroup))
		return render.Page(c, http.StatusForbidden, page, embed.Portal(v, embed.Shell{}, &ev))
	}
	shell, err := h.shell(c, sess)
	if err != nil {
		return err
	}
	shell.CSRF = h.portalSession(c).CSRF
	return render.Page(c, http.StatusOK, page, embed.Portal(v, shell, nil))
}
