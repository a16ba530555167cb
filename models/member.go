package models

import (
	"context"
	"time"
)

// UserByID loads a user by id.
func (db *DB) UserByID(ctx context.Context, id string) (*User, error) {
	var u User
	err := db.WithContext(ctx).Where("id = ?", id).Take(&u).Error
	return &u, dbErr(err, "get user", "User not found.", "")
}

// Membership is a workspace a user belongs to, with the user's role there.
type Membership struct {
	Workspace Workspace
	Role      Role
}

// UserWorkspaces lists the workspaces a user belongs to, by name.
func (db *DB) UserWorkspaces(ctx context.Context, userID string) ([]Membership, error) {
	type row struct {
		Workspace
		Role Role
	}
	var rows []row
	err := db.WithContext(ctx).Table("workspaces").
		Select("workspaces.*, workspace_users.role AS role").
		Joins("JOIN workspace_users ON workspace_users.workspace_id = workspaces.id").
		Where("workspace_users.user_id = ?", userID).
		Order("workspaces.name, workspaces.id").Scan(&rows).Error
	if err != nil {
		return nil, dbErr(err, "list user workspaces", "", "")
	}
	out := make([]Membership, len(rows))
	for i, r := range rows {
		out[i] = Membership{Workspace: r.Workspace, Role: r.Role}
	}
	return out, nil
}

// MemberRole is the user's role in the workspace; not a member is not-found.
func (db *DB) MemberRole(ctx context.Context, workspaceID, userID string) (Role, error) {
	var m WorkspaceUser
	err := db.WithContext(ctx).Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Take(&m).Error
	return m.Role, dbErr(err, "get member", "Not a member of this workspace.", "")
}

// Member is one row of a workspace's member list.
type Member struct {
	UserID    string
	Email     string
	Name      *string
	Role      Role
	CreatedAt time.Time
}

// ListMembers lists a workspace's members, owners first.
func (db *DB) ListMembers(ctx context.Context, workspaceID string) ([]Member, error) {
	var ms []Member
	err := db.WithContext(ctx).Table("workspace_users").
		Select("users.id AS user_id, users.email, users.name, workspace_users.role, workspace_users.created_at").
		Joins("JOIN users ON users.id = workspace_users.user_id").
		Where("workspace_users.workspace_id = ?", workspaceID).
		Order("CASE WHEN workspace_users.role = 'owner' THEN 0 ELSE 1 END, users.email").Scan(&ms).Error
	return ms, dbErr(err, "list members", "", "")
}
