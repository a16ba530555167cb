package console

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

func (h *Handlers) membersView(c *fiber.Ctx) (vc.MembersView, error) {
	vw := viewer(c)
	v := vc.MembersView{CSRF: session(c).CSRF, CanManage: vw.Role == models.RoleOwner, SelfID: vw.User.ID, Form: vc.InviteForm{Role: string(models.RoleMember)}, TTL: ttlText(h.Config.InviteTTL)}
	ctx := c.UserContext()
	ms, err := h.DB.ListMembers(ctx, vw.Workspace.ID)
	if err != nil {
		return v, err
	}
	// A workspace's members are few: the page is a slice of the list.
	lp := pageOf(c, listPageSize)
	for _, m := range ms[min(lp.Offset(), len(ms)):min(lp.Offset()+lp.Size, len(ms))] {
		v.Members = append(v.Members, vc.MemberRow{UserID: m.UserID, Email: m.Email, Role: string(m.Role), Joined: date(m.CreatedAt)})
	}
	v.Pager = *pagerFor(c, route.URL(route.Members), lp, len(v.Members), int64(len(ms)))
	invs, err := h.DB.ListInvites(ctx, vw.Workspace.ID)
	if err != nil {
		return v, err
	}
	now := h.Now()
	for _, i := range invs {
		v.Invites = append(v.Invites, vc.InviteRow{ID: i.ID, Email: i.Email, Role: string(i.Role), Expires: i.ExpiresAt.UTC().Format("Jan 2, 2006 15:04 UTC"), Expired: !now.Before(i.ExpiresAt)})
	}
	return v, nil
}

// Members lists members and pending invites.
func (h *Handlers) Members(c *fiber.Ctx) error {
	v, err := h.membersView(c)
	if err != nil {
		return err
	}
	return h.page(c, fiber.StatusOK, "Members", "members", vc.Members(v))
}

// CreateInvite invites an email (owners only) and shows the invite link
// once. An existing member is a 409 shown on the email field.
func (h *Handlers) CreateInvite(c *fiber.Ctx) error {
	vw := viewer(c)
	form := vc.InviteForm{Email: c.FormValue("email"), Role: c.FormValue("role")}
	inv, token, err := h.Workspaces.CreateInvite(c.UserContext(), vw.Workspace.ID, form.Email, models.Role(form.Role), &vw.User.ID, h.Config.InviteTTL)
	v, verr := h.membersView(c)
	if verr != nil {
		return verr
	}
	if err != nil {
		errs, status, ok := fieldErrors(err, "email")
		if !ok {
			return err
		}
		form.Errors = errs
		v.Form = form
		return h.page(c, status, "Members", "members", vc.Members(v))
	}
	v.InviteLink = h.Config.AppURL.String() + route.URL(route.Invite, token)
	h.Logger.Info("console invite created", "workspace_id", vw.Workspace.ID, "invite_id", inv.ID)
	return h.page(c, fiber.StatusCreated, "Members", "members", vc.Members(v))
}

// DeleteInvite withdraws an invite.
func (h *Handlers) DeleteInvite(c *fiber.Ctx) error {
	if err := h.Workspaces.DeleteInvite(c.UserContext(), viewer(c).Workspace.ID, c.Params("id")); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Members))
}

// SetRole changes a member's role; the last owner cannot be demoted (409).
func (h *Handlers) SetRole(c *fiber.Ctx) error {
	if err := h.Workspaces.SetMemberRole(c.UserContext(), viewer(c).Workspace.ID, c.Params("user"), models.Role(c.FormValue("role"))); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Members))
}

// RemoveMember takes a member out of the workspace.
func (h *Handlers) RemoveMember(c *fiber.Ctx) error {
	if err := h.Workspaces.RemoveMember(c.UserContext(), viewer(c).Workspace.ID, c.Params("user")); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Members))
}

// invitePage loads the invite behind a link; an expired one renders the 410
// page (the error is returned as handled: nil error, done true).
func (h *Handlers) invitePage(c *fiber.Ctx) (vc.InvitePage, bool, error) {
	token := c.Params("token")
	inv, w, err := h.DB.InviteByToken(c.UserContext(), token, h.Now())
	if apierr.Is(err, apierr.InviteExpired) {
		return vc.InvitePage{}, true, bare(c, fiber.StatusGone, "Invite expired", vc.InviteGone(apierr.As(err).Message))
	}
	if err != nil {
		return vc.InvitePage{}, true, err
	}
	p := vc.InvitePage{CSRF: session(c).CSRF, Token: token, Workspace: w.Name, Email: inv.Email, Role: string(inv.Role)}
	u, err := h.DB.UserByEmail(c.UserContext(), inv.Email)
	switch {
	case err == nil:
		p.HasAccount = u.PasswordHash != nil
	case !models.IsNotFound(err):
		return p, true, err
	}
	return p, false, nil
}

// Invite shows an invite: join with a new or the existing password. An
// expired invite is a 410 page, an unknown token a 404.
func (h *Handlers) Invite(c *fiber.Ctx) error {
	p, done, err := h.invitePage(c)
	if done {
		return err
	}
	return bare(c, fiber.StatusOK, "Join "+p.Workspace, vc.Invite(p))
}

// AcceptInvite redeems an invite and signs the invitee in to the workspace
// (a new session). An existing account must give its password.
func (h *Handlers) AcceptInvite(c *fiber.Ctx) error {
	p, done, err := h.invitePage(c)
	if done {
		return err
	}
	password := c.FormValue("password")
	var hashErr error
	u, w, err := h.Workspaces.AcceptInvite(c.UserContext(), p.Token,
		func() (string, error) {
			hsh, err := auth.HashPassword(password)
			if err != nil {
				hashErr = err
				return "", apierr.Validation("too_small", "password", err.Error())
			}
			return hsh, nil
		},
		func(hash *string) bool { return auth.CheckPassword(hash, password) })
	switch {
	case errors.Is(err, models.ErrWrongPassword):
		p.Error = "Incorrect password for " + p.Email + "."
		return bare(c, fiber.StatusUnauthorized, "Join "+p.Workspace, vc.Invite(p))
	case hashErr != nil:
		p.Error = "The password must be 8 to 72 characters."
		return bare(c, fiber.StatusUnprocessableEntity, "Join "+p.Workspace, vc.Invite(p))
	case err != nil:
		return err
	}
	sid, err := h.DB.CreateConsoleSession(c.UserContext(), u.ID, h.Now())
	if err != nil {
		return err
	}
	if err := h.saveSession(c, auth.Session{UserID: u.ID, SessionID: sid, WorkspaceID: w.ID, CSRF: auth.NewToken(), IssuedAt: h.Now().Unix()}); err != nil {
		return err
	}
	h.Logger.Info("console invite accepted", "workspace_id", w.ID, "user_id", u.ID)
	return redirect(c, route.URL(route.Home))
}

// ttlText says how long invites last: "7 days", or the duration.
func ttlText(d time.Duration) string {
	if d >= 24*time.Hour && d%(24*time.Hour) == 0 {
		if n := int(d / (24 * time.Hour)); n > 1 {
			return strconv.Itoa(n) + " days"
		}
		return "1 day"
	}
	return d.String()
}
