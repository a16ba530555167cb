package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/relinkhq/relink/internal/ids"
)

// APIKey is a workspace API key. Only the SHA-256 of the token is stored.
type APIKey struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string
	UserID      *string
	Name        string
	HashedKey   string
	PartialKey  string
	Scopes      *string // space-separated; nil = all permissions of the role
	ExpiresAt   *time.Time
	RevokedAt   *time.Time
	LastUsedAt  *time.Time
	CreatedAt   time.Time
	// UserRole is the key's user's current workspace role, filled by
	// APIKeyByToken; nil when the key has no user or the user has left the
	// workspace (spec/parity.md §13.2).
	UserRole *Role `gorm:"-"`
}

// APIKeyPrefix starts every workspace key.
const APIKeyPrefix = "dub_"

// HashAPIKey is the stored form of a token.
func HashAPIKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// PartialKey is the display form: first 3 characters, "...", last 4.
func PartialKey(token string) string {
	if len(token) < 8 {
		return "..."
	}
	return token[:3] + "..." + token[len(token)-4:]
}

// CreateAPIKey makes a new key for a workspace and returns the stored row and
// the plaintext token, which is never stored and cannot be shown again.
func (db *DB) CreateAPIKey(ctx context.Context, workspaceID, name string, userID *string) (*APIKey, string, error) {
	token := APIKeyPrefix + ids.Nano(24)
	k := &APIKey{
		ID: ids.New(ids.APIKey), WorkspaceID: workspaceID, UserID: userID, Name: name,
		HashedKey: HashAPIKey(token), PartialKey: PartialKey(token),
	}
	if err := db.WithContext(ctx).Create(k).Error; err != nil {
		return nil, "", dbErr(err, "create api key", "", "")
	}
	return k, token, nil
}

// APIKeyByToken finds an unrevoked key by its plaintext token, with its
// workspace. A missing key is a not-found error.
func (db *DB) APIKeyByToken(ctx context.Context, token string) (*APIKey, *Workspace, error) {
	var row struct {
		APIKey
		MemberRole *Role
	}
	res := db.WithContext(ctx).Table("api_keys").
		Select("api_keys.*, workspace_users.role AS member_role").
		Joins("LEFT JOIN workspace_users ON workspace_users.workspace_id = api_keys.workspace_id AND workspace_users.user_id = api_keys.user_id").
		Where("api_keys.hashed_key = ? AND api_keys.revoked_at IS NULL", HashAPIKey(token)).Limit(1).Scan(&row)
	if res.Error == nil && res.RowsAffected == 0 {
		res.Error = errNotFound
	}
	if res.Error != nil {
		return nil, nil, dbErr(res.Error, "get api key", "Unauthorized: Invalid API key.", "")
	}
	k := row.APIKey
	k.UserRole = row.MemberRole
	w, err := db.WorkspaceByID(ctx, k.WorkspaceID)
	if err != nil {
		return nil, nil, err
	}
	return &k, w, nil
}

// ListAPIKeys lists a workspace's keys, newest first (revoked ones included).
func (db *DB) ListAPIKeys(ctx context.Context, workspaceID string) ([]APIKey, error) {
	var ks []APIKey
	err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Order("created_at DESC").Find(&ks).Error
	return ks, dbErr(err, "list api keys", "", "")
}

// RevokeAPIKey revokes a workspace's key.
func (db *DB) RevokeAPIKey(ctx context.Context, workspaceID, id string) error {
	res := db.WithContext(ctx).Model(&APIKey{}).Where("workspace_id = ? AND id = ? AND revoked_at IS NULL", workspaceID, id).
		Update("revoked_at", time.Now().UTC())
	if res.Error != nil {
		return dbErr(res.Error, "revoke api key", "", "")
	}
	if res.RowsAffected == 0 {
		return dbErr(errNotFound, "revoke api key", "API key not found.", "")
	}
	return nil
}

// TouchAPIKey records that the key was used at at (never moving the time
// back).
func (db *DB) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	err := db.WithContext(ctx).Model(&APIKey{}).Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, at.UTC()).
		Update("last_used_at", at.UTC()).Error
	return dbErr(err, "record api key use", "", "")
}
