package models

import (
	"context"
	"errors"
	"net/mail"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

// Invite is a pending invitation to join a workspace. Only the SHA-256 of its
// token is stored; the link with the token is shown once, to the inviter.
type Invite struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string
	Email       string
	Role        Role
	TokenHash   string
	InvitedBy   *string
	ExpiresAt   time.Time
	CreatedAt   time.Time
}

// TableName is the invites table.
func (Invite) TableName() string { return "workspace_invites" }

// ParseRole validates a role name.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleOwner, RoleMember:
		return r, nil
	}
	return "", apierr.Validation("invalid_value", "role", `Invalid option: expected one of "owner"|"member"`)
}

// CreateInvite invites email to the workspace with role until expiresAt
// (RELINK_INVITE_TTL from now) and returns the
// invite with its plaintext token. Inviting an existing member is a 409
// conflict; inviting an address with a pending invite replaces that invite
// (new token, new expiry), so a lost link can be re-sent.
func (db *DB) CreateInvite(ctx context.Context, workspaceID, email string, role Role, invitedBy *string, now, expiresAt time.Time) (*Invite, string, error) {
	email = NormalizeEmail(email)
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		return nil, "", apierr.Validation("invalid_format", "email", "Invalid email address.")
	}
	if _, err := ParseRole(string(role)); err != nil {
		return nil, "", err
	}
	token := ids.Nano(32)
	inv := &Invite{
		ID: ids.New(ids.Invite), WorkspaceID: workspaceID, Email: email, Role: role,
		TokenHash: HashAPIKey(token), InvitedBy: invitedBy, ExpiresAt: expiresAt.UTC(), CreatedAt: now.UTC(),
	}
	err := db.Tx(ctx, func(tx *DB) error {
		var n int64
		err := tx.WithContext(ctx).Table("workspace_users").
			Joins("JOIN users ON users.id = workspace_users.user_id").
			Where("workspace_users.workspace_id = ? AND users.email = ?", workspaceID, email).Count(&n).Error
		if err != nil {
			return dbErr(err, "check member", "", "")
		}
		if n > 0 {
			return apierr.Newf(apierr.Conflict, "%s is already a member of this workspace.", email)
		}
		if err := tx.WithContext(ctx).Where("workspace_id = ? AND email = ?", workspaceID, email).Delete(&Invite{}).Error; err != nil {
			return dbErr(err, "replace invite", "", "")
		}
		return dbErr(tx.WithContext(ctx).Create(inv).Error, "create invite", "", "An invite for this email already exists.")
	})
	if err != nil {
		return nil, "", err
	}
	return inv, token, nil
}

// ListInvites lists a workspace's pending invites (expired ones included,
// marked by ExpiresAt), newest first.
func (db *DB) ListInvites(ctx context.Context, workspaceID string) ([]Invite, error) {
	var out []Invite
	err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Order("created_at DESC").Find(&out).Error
	return out, dbErr(err, "list invites", "", "")
}

// DeleteInvite withdraws a workspace's invite.
func (db *DB) DeleteInvite(ctx context.Context, workspaceID, id string) error {
	res := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Invite{})
	if res.Error != nil {
		return dbErr(res.Error, "delete invite", "", "")
	}
	if res.RowsAffected == 0 {
		return apierr.New(apierr.NotFound, "Invite not found.")
	}
	return nil
}

// InviteByToken finds an invite by its plaintext token with its workspace.
// An unknown token is not-found; an expired one is 410 invite_expired.
func (db *DB) InviteByToken(ctx context.Context, token string, now time.Time) (*Invite, *Workspace, error) {
	var inv Invite
	err := db.WithContext(ctx).Where("token_hash = ?", HashAPIKey(token)).Take(&inv).Error
	if err != nil {
		return nil, nil, dbErr(err, "get invite", "This invite link is not valid. It may have been used or withdrawn.", "")
	}
	if !now.Before(inv.ExpiresAt) {
		return &inv, nil, apierr.New(apierr.InviteExpired, "This invite has expired. Ask a workspace owner to send a new one.")
	}
	w, err := db.WorkspaceByID(ctx, inv.WorkspaceID)
	if err != nil {
		return nil, nil, err
	}
	return &inv, w, nil
}

// ErrWrongPassword is returned by AcceptInvite when the invited address
// already has an account and the password does not match.
var ErrWrongPassword = errors.New("wrong password")

// AcceptInvite redeems an invite: the invited address's account (made with
// passwordHash when it has none yet) joins the workspace with the invite's
// role, and the invite is deleted, all in one transaction. check verifies the
// password of an existing account.
func (db *DB) AcceptInvite(ctx context.Context, token string, now time.Time, newPasswordHash func() (string, error), check func(hash *string) bool) (*User, *Workspace, error) {
	var user *User
	var ws *Workspace
	err := db.Tx(ctx, func(tx *DB) error {
		inv, w, err := tx.InviteByToken(ctx, token, now)
		if err != nil {
			return err
		}
		u, err := tx.UserByEmail(ctx, inv.Email)
		switch {
		case IsNotFound(err):
			hash, herr := newPasswordHash()
			if herr != nil {
				return herr
			}
			if u, err = tx.CreateUser(ctx, inv.Email, hash); err != nil {
				return err
			}
		case err != nil:
			return err
		case u.PasswordHash == nil:
			hash, herr := newPasswordHash()
			if herr != nil {
				return herr
			}
			if err := tx.WithContext(ctx).Model(u).Update("password_hash", hash).Error; err != nil {
				return dbErr(err, "set password", "", "")
			}
		case !check(u.PasswordHash):
			return ErrWrongPassword
		}
		if err := tx.AddMember(ctx, w.ID, u.ID, inv.Role); err != nil {
			return err
		}
		if err := tx.WithContext(ctx).Delete(inv).Error; err != nil {
			return dbErr(err, "delete invite", "", "")
		}
		user, ws = u, w
		return nil
	})
	return user, ws, err
}

// RemoveMember takes a user out of a workspace. The last owner cannot leave
// (409), so a workspace always has someone who can manage it.
func (db *DB) RemoveMember(ctx context.Context, workspaceID, userID string) error {
	return db.Tx(ctx, func(tx *DB) error {
		role, err := tx.MemberRole(ctx, workspaceID, userID)
		if err != nil {
			return err
		}
		if role == RoleOwner {
			if err := tx.ensureAnotherOwner(ctx, workspaceID, userID); err != nil {
				return err
			}
		}
		err = tx.WithContext(ctx).Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Delete(&WorkspaceUser{}).Error
		return dbErr(err, "remove member", "", "")
	})
}

// SetMemberRole changes a member's role; demoting the last owner is a 409.
func (db *DB) SetMemberRole(ctx context.Context, workspaceID, userID string, role Role) error {
	if _, err := ParseRole(string(role)); err != nil {
		return err
	}
	return db.Tx(ctx, func(tx *DB) error {
		old, err := tx.MemberRole(ctx, workspaceID, userID)
		if err != nil {
			return err
		}
		if old == RoleOwner && role != RoleOwner {
			if err := tx.ensureAnotherOwner(ctx, workspaceID, userID); err != nil {
				return err
			}
		}
		err = tx.WithContext(ctx).Model(&WorkspaceUser{}).Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Update("role", role).Error
		return dbErr(err, "set role", "", "")
	})
}

func (db *DB) ensureAnotherOwner(ctx context.Context, workspaceID, userID string) error {
	var n int64
	err := db.WithContext(ctx).Model(&WorkspaceUser{}).
		Where("workspace_id = ? AND role = ? AND user_id <> ?", workspaceID, RoleOwner, userID).Count(&n).Error
	if err != nil {
		return dbErr(err, "count owners", "", "")
	}
	if n == 0 {
		return apierr.New(apierr.Conflict, "A workspace needs at least one owner.")
	}
	return nil
}
