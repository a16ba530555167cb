package console

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// signInFailed is the one message for a wrong password and an unknown email.
const signInFailed = "Incorrect email or password."

// LoginForm shows the sign-in form; a signed-in user goes to the console.
func (h *Handlers) LoginForm(c *fiber.Ctx) error {
	if session(c).UserID != "" {
		return render.Redirect(c, route.URL(route.Home))
	}
	return bare(c, fiber.StatusOK, "Sign in", vc.Login(vc.LoginForm{CSRF: session(c).CSRF, Next: safeNext(c.Query("next"))}))
}

// Login checks email and password. An unknown email is checked against a
// dummy hash (auth.CheckPassword), so both failures take the same time and
// give the same message. Success starts a new session (new CSRF token: the
// pre-sign-in one is never reused).
func (h *Handlers) Login(c *fiber.Ctx) error {
	f := vc.LoginForm{Email: c.FormValue("email"), Next: safeNext(c.FormValue("next"))}
	password := c.FormValue("password")
	ctx := c.UserContext()
	u, err := h.DB.UserByEmail(ctx, f.Email)
	var hash *string
	switch {
	case err == nil:
		hash = u.PasswordHash
	case !models.IsNotFound(err):
		return err
	}
	if f.Email == "" || password == "" || !auth.CheckPassword(hash, password) {
		f.CSRF, f.Error = session(c).CSRF, signInFailed
		return bare(c, fiber.StatusUnauthorized, "Sign in", vc.Login(f))
	}
	ms, err := h.DB.UserWorkspaces(ctx, u.ID)
	if err != nil {
		return err
	}
	sid, err := h.DB.CreateConsoleSession(ctx, u.ID, h.Now())
	if err != nil {
		return err
	}
	s := auth.Session{UserID: u.ID, SessionID: sid, CSRF: auth.NewToken(), IssuedAt: h.Now().Unix()}
	if len(ms) > 0 {
		s.WorkspaceID = ms[0].Workspace.ID
	}
	if err := h.saveSession(c, s); err != nil {
		return err
	}
	h.Logger.Info("console sign-in", "user_id", u.ID)
	return render.Redirect(c, f.Next)
}

// Logout ends the session on the server (its row is deleted, so a copy of
// the old cookie no longer signs anyone in) and replaces the cookie by a
// fresh anonymous one.
func (h *Handlers) Logout(c *fiber.Ctx) error {
	if sid := session(c).SessionID; sid != "" {
		if err := h.DB.RevokeConsoleSession(c.UserContext(), sid); err != nil {
			return err
		}
	}
	if err := h.saveSession(c, auth.Session{CSRF: auth.NewToken(), IssuedAt: h.Now().Unix()}); err != nil {
		return err
	}
	return render.Redirect(c, route.URL(route.LoginForm))
}

// SwitchWorkspace makes another of the user's workspaces the current one.
func (h *Handlers) SwitchWorkspace(c *fiber.Ctx) error {
	v := viewer(c)
	id := c.FormValue("workspace")
	for _, m := range v.Workspaces {
		if m.Workspace.ID == id {
			s := *session(c)
			s.WorkspaceID = id
			if err := h.saveSession(c, s); err != nil {
				return err
			}
			return render.Redirect(c, safeNext(c.FormValue("next")))
		}
	}
	return apierr.New(apierr.NotFound, "Workspace not found.")
}

// LogoutEverywhere signs the user out of every other session (other
// browsers, a stolen cookie); this one stays signed in.
func (h *Handlers) LogoutEverywhere(c *fiber.Ctx) error {
	v := viewer(c)
	n, err := h.DB.RevokeOtherConsoleSessions(c.UserContext(), v.User.ID, session(c).SessionID)
	if err != nil {
		return err
	}
	h.Logger.Info("console sessions revoked", "user_id", v.User.ID, "sessions", n)
	return render.Redirect(c, route.URL(route.Settings))
}

// ChangePassword checks the current password, stores the new one and signs
// the user out of every other session.
func (h *Handlers) ChangePassword(c *fiber.Ctx) error {
	v := viewer(c)
	if !auth.CheckPassword(v.User.PasswordHash, c.FormValue("current_password")) {
		return apierr.New(apierr.Forbidden, "The current password is not correct.")
	}
	hash, err := auth.HashPassword(c.FormValue("new_password"))
	if err != nil {
		return apierr.Validation("too_small", "new_password", err.Error())
	}
	ctx := c.UserContext()
	if err := h.DB.SetPasswordHash(ctx, v.User.ID, hash, h.Now()); err != nil {
		return err
	}
	n, err := h.DB.RevokeOtherConsoleSessions(ctx, v.User.ID, session(c).SessionID)
	if err != nil {
		return err
	}
	h.Logger.Info("console password changed; other sessions revoked", "user_id", v.User.ID, "sessions", n)
	return render.Redirect(c, route.URL(route.Settings))
}
