package models

import (
	"context"
	"time"

	"github.com/relinkhq/relink/internal/ids"
)

// PartnerLoginToken is a one-time sign-in link of the partner portal
// (migration 01936): the SHA-256 of the token, the address it signs in
// (lower-cased), its expiry and when it was used.
type PartnerLoginToken struct {
	TokenHash string `gorm:"primaryKey"`
	Email     string
	ExpiresAt time.Time
	UsedAt    *time.Time
	CreatedAt time.Time
}

// TableName pins the table.
func (PartnerLoginToken) TableName() string { return "partner_login_tokens" }

// PartnerSession is a signed-in portal session: valid while its row exists.
type PartnerSession struct {
	ID        string `gorm:"primaryKey"`
	Email     string
	CreatedAt time.Time
}

// TableName pins the table.
func (PartnerSession) TableName() string { return "partner_sessions" }

// CreatePartnerLoginToken stores a sign-in link's token hash for email
// (lower-cased) and deletes the links that expired before now.
func (db *DB) CreatePartnerLoginToken(ctx context.Context, tokenHash, email string, now, expires time.Time) error {
	tx := db.WithContext(ctx)
	if err := tx.Where("expires_at < ?", now.UTC()).Delete(&PartnerLoginToken{}).Error; err != nil {
		return dbErr(err, "purge partner sign-in links", "", "")
	}
	t := PartnerLoginToken{TokenHash: tokenHash, Email: NormalizeEmail(email), ExpiresAt: expires.UTC(), CreatedAt: now.UTC()}
	return dbErr(tx.Create(&t).Error, "create partner sign-in link", "", "")
}

// UsePartnerLoginToken marks a sign-in link used and returns its address:
// only once, and only before it expires. ok is false for an unknown, used
// or expired link.
func (db *DB) UsePartnerLoginToken(ctx context.Context, tokenHash string, now time.Time) (email string, ok bool, err error) {
	// One UPDATE decides: of two concurrent uses, only one changes the row.
	res := db.WithContext(ctx).Model(&PartnerLoginToken{}).
		Where("token_hash = ? AND used_at IS NULL AND expires_at > ?", tokenHash, now.UTC()).
		Update("used_at", now.UTC())
	if res.Error != nil {
		return "", false, dbErr(res.Error, "use partner sign-in link", "", "")
	}
	if res.RowsAffected != 1 {
		return "", false, nil
	}
	var t PartnerLoginToken
	if err := db.WithContext(ctx).Where("token_hash = ?", tokenHash).Take(&t).Error; err != nil {
		return "", false, dbErr(err, "read partner sign-in link", "", "")
	}
	email, ok = t.Email, true
	return email, ok, err
}

// PartnerLoginTokenUsable reports whether a sign-in link is neither used nor
// expired (the confirmation page before it is used).
func (db *DB) PartnerLoginTokenUsable(ctx context.Context, tokenHash string, now time.Time) (bool, error) {
	var n int64
	err := db.WithContext(ctx).Model(&PartnerLoginToken{}).
		Where("token_hash = ? AND used_at IS NULL AND expires_at > ?", tokenHash, now.UTC()).Count(&n).Error
	return n > 0, dbErr(err, "check partner sign-in link", "", "")
}

// CreatePartnerSession starts a portal session for email and returns its id.
func (db *DB) CreatePartnerSession(ctx context.Context, email string, now time.Time) (string, error) {
	s := PartnerSession{ID: "ps_" + ids.Nano(24), Email: NormalizeEmail(email), CreatedAt: now.UTC()}
	if err := db.WithContext(ctx).Create(&s).Error; err != nil {
		return "", dbErr(err, "create partner session", "", "")
	}
	return s.ID, nil
}

// PartnerSessionEmail is the address of a live portal session; ok is false
// when the session was revoked (or never existed).
func (db *DB) PartnerSessionEmail(ctx context.Context, id string) (email string, ok bool, err error) {
	if id == "" {
		return "", false, nil
	}
	var s PartnerSession
	err = db.WithContext(ctx).Where("id = ?", id).Take(&s).Error
	if IsNotFound(dbErr(err, "get partner session", "", "")) {
		return "", false, nil
	}
	if err != nil {
		return "", false, dbErr(err, "get partner session", "", "")
	}
	return s.Email, true, nil
}

// RevokePartnerSession deletes one portal session (sign-out).
func (db *DB) RevokePartnerSession(ctx context.Context, id string) error {
	return dbErr(db.WithContext(ctx).Where("id = ?", id).Delete(&PartnerSession{}).Error, "revoke partner session", "", "")
}

// PortalEnrollment is one enrollment of an address, as the portal lists it.
type PortalEnrollment struct {
	EnrollmentID  string
	WorkspaceID   string
	WorkspaceName string
	ProgramID     string
	ProgramName   string
	PartnerID     string
	Status        string
	CreatedAt     time.Time
}

// EnrollmentsByEmail lists every enrollment, in every workspace, of the
// partners whose address is email (case-insensitively), programs by name.
func (db *DB) EnrollmentsByEmail(ctx context.Context, email string) ([]PortalEnrollment, error) {
	var out []PortalEnrollment
	err := db.WithContext(ctx).Table("program_enrollments AS e").
		Select("e.id AS enrollment_id, e.workspace_id, w.name AS workspace_name, e.program_id, p.name AS program_name, e.partner_id, e.status, e.created_at").
		Joins("JOIN partners pa ON pa.id = e.partner_id AND pa.workspace_id = e.workspace_id").
		Joins("JOIN programs p ON p.id = e.program_id AND p.workspace_id = e.workspace_id").
		Joins("JOIN workspaces w ON w.id = e.workspace_id").
		Where("lower(pa.email) = ?", NormalizeEmail(email)).
		Order("p.name, w.name, e.id").Scan(&out).Error
	return out, dbErr(err, "list enrollments by email", "", "")
}

// EnrollmentOfEmail is one enrollment of an address: not found (404) unless
// the enrollment's partner has that address, so a session never opens
// another partner's enrollment.
func (db *DB) EnrollmentOfEmail(ctx context.Context, enrollmentID, email string) (*PortalEnrollment, error) {
	all, err := db.EnrollmentsByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].EnrollmentID == enrollmentID {
			return &all[i], nil
		}
	}
	return nil, dbErr(errNotFound, "get enrollment of email", "Program not found.", "")
}

// HasEnrollments reports whether any partner with this address is enrolled
// anywhere on the instance.
func (db *DB) HasEnrollments(ctx context.Context, email string) (bool, error) {
	var n int64
	err := db.WithContext(ctx).Table("program_enrollments AS e").
		Joins("JOIN partners pa ON pa.id = e.partner_id AND pa.workspace_id = e.workspace_id").
		Where("lower(pa.email) = ?", NormalizeEmail(email)).Count(&n).Error
	return n > 0, dbErr(err, "count enrollments by email", "", "")
}

// PartnerToken is a partner's API token (migration 01937).
type PartnerToken struct {
	TokenHash string `gorm:"primaryKey"`
	Email     string
	CreatedAt time.Time
}

// TableName pins the table.
func (PartnerToken) TableName() string { return "partner_tokens" }

// CreatePartnerToken stores a token's hash for email.
func (db *DB) CreatePartnerToken(ctx context.Context, tokenHash, email string, now time.Time) error {
	t := PartnerToken{TokenHash: tokenHash, Email: NormalizeEmail(email), CreatedAt: now.UTC()}
	return dbErr(db.WithContext(ctx).Create(&t).Error, "create partner token", "", "")
}

// PartnerTokenEmail is the address a token acts for; ok is false for an
// unknown (or revoked) token.
func (db *DB) PartnerTokenEmail(ctx context.Context, tokenHash string) (email string, ok bool, err error) {
	var ts []PartnerToken
	if err := db.WithContext(ctx).Where("token_hash = ?", tokenHash).Limit(1).Find(&ts).Error; err != nil {
		return "", false, dbErr(err, "get partner token", "", "")
	}
	if len(ts) == 0 {
		return "", false, nil
	}
	return ts[0].Email, true, nil
}

// CountPartnerTokens counts an address's tokens.
func (db *DB) CountPartnerTokens(ctx context.Context, email string) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Model(&PartnerToken{}).Where("email = ?", NormalizeEmail(email)).Count(&n).Error
	return n, dbErr(err, "count partner tokens", "", "")
}

// RevokePartnerTokens deletes every token of an address.
func (db *DB) RevokePartnerTokens(ctx context.Context, email string) error {
	err := db.WithContext(ctx).Where("email = ?", NormalizeEmail(email)).Delete(&PartnerToken{}).Error
	return dbErr(err, "revoke partner tokens", "", "")
}
