package models

import (
	"context"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/ids"
)

// Role of a user in a workspace.
type Role string

// Roles.
const (
	RoleOwner  Role = "owner"
	RoleMember Role = "member"
)

// User is a console user.
type User struct {
	ID           string `gorm:"primaryKey"`
	Email        string
	Name         *string
	PasswordHash *string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// WorkspaceUser is a membership.
type WorkspaceUser struct {
	WorkspaceID string `gorm:"primaryKey"`
	UserID      string `gorm:"primaryKey"`
	Role        Role
	CreatedAt   time.Time
}

// NormalizeEmail lower-cases and trims an address.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// CreateUser stores a user with an already-hashed password.
func (db *DB) CreateUser(ctx context.Context, email, passwordHash string) (*User, error) {
	u := &User{ID: ids.New(ids.User), Email: NormalizeEmail(email)}
	if passwordHash != "" {
		u.PasswordHash = &passwordHash
	}
	err := db.WithContext(ctx).Create(u).Error
	return u, dbErr(err, "create user", "", "A user with this email already exists.")
}

// UserByEmail finds a user by email.
func (db *DB) UserByEmail(ctx context.Context, email string) (*User, error) {
	var u User
	err := db.WithContext(ctx).Where("email = ?", NormalizeEmail(email)).Take(&u).Error
	return &u, dbErr(err, "get user", "User not found.", "")
}

// AddMember adds a user to a workspace with a role.
func (db *DB) AddMember(ctx context.Context, workspaceID, userID string, role Role) error {
	err := db.WithContext(ctx).Create(&WorkspaceUser{WorkspaceID: workspaceID, UserID: userID, Role: role}).Error
	return dbErr(err, "add member", "", "This user is already a member of the workspace.")
}
