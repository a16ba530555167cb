package models

import (
	"context"
	"time"

	"github.com/relinkhq/relink/internal/ids"
)

// ConsoleSession is a signed-in console session (migration 00710). The
// cookie names it; it is valid while its row exists.
type ConsoleSession struct {
	ID        string
	UserID    string
	CreatedAt time.Time
}

// CreateConsoleSession stores a new session for userID and returns its id.
func (db *DB) CreateConsoleSession(ctx context.Context, userID string, now time.Time) (string, error) {
	s := ConsoleSession{ID: "cs_" + ids.Nano(24), UserID: userID, CreatedAt: now.UTC()}
	if err := db.WithContext(ctx).Create(&s).Error; err != nil {
		return "", dbErr(err, "create console session", "", "")
	}
	return s.ID, nil
}

// ConsoleSessionValid reports whether session id exists and belongs to userID.
func (db *DB) ConsoleSessionValid(ctx context.Context, id, userID string) (bool, error) {
	if id == "" {
		return false, nil
	}
	var n int64
	err := db.WithContext(ctx).Model(&ConsoleSession{}).Where("id = ? AND user_id = ?", id, userID).Count(&n).Error
	if err != nil {
		return false, dbErr(err, "check console session", "", "")
	}
	return n > 0, nil
}

// RevokeConsoleSession deletes one session (sign-out).
func (db *DB) RevokeConsoleSession(ctx context.Context, id string) error {
	err := db.WithContext(ctx).Where("id = ?", id).Delete(&ConsoleSession{}).Error
	return dbErr(err, "revoke console session", "", "")
}

// RevokeOtherConsoleSessions deletes every session of userID but keep
// ("sign out everywhere else", a password change) and returns how many.
func (db *DB) RevokeOtherConsoleSessions(ctx context.Context, userID, keep string) (int64, error) {
	res := db.WithContext(ctx).Where("user_id = ? AND id <> ?", userID, keep).Delete(&ConsoleSession{})
	return res.RowsAffected, dbErr(res.Error, "revoke console sessions", "", "")
}

// SetPasswordHash replaces a user's password hash.
func (db *DB) SetPasswordHash(ctx context.Context, userID, hash string, now time.Time) error {
	err := db.WithContext(ctx).Model(&User{}).Where("id = ?", userID).
		Updates(map[string]any{"password_hash": hash, "updated_at": now.UTC()}).Error
	return dbErr(err, "set password", "", "")
}
