package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/ids"
)

// EmbedTokenTTL is how long a referral embed token is valid after minting;
// use never extends it. The wire contract (spec/partners-and-embed.md §5) says 3
// hours, which the SDK's callers rely on; docs/design.md's "2 hours" predates it
// (see README, Architecture).
const EmbedTokenTTL = 3 * time.Hour

// EmbedToken is a public token granting read access to one enrollment's
// data in the embedded referral dashboard. Only its SHA-256 is stored.
type EmbedToken struct {
	TokenHash    string `gorm:"primaryKey"`
	WorkspaceID  string
	ProgramID    string
	PartnerID    string
	EnrollmentID string
	ExpiresAt    time.Time
	CreatedAt    time.Time
}

// TableName pins the table.
func (EmbedToken) TableName() string { return "embed_tokens" }

// crockford is the ULID alphabet; tokens look like Dub's
// ("dub_embed_" + 25 characters) but every character is random.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func hashEmbedToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateEmbedToken mints a new token for an enrollment and returns the
// plaintext (shown once) with the stored row. Every call mints a new token;
// earlier ones stay valid until they expire.
func (db *DB) CreateEmbedToken(ctx context.Context, e *Enrollment, now time.Time) (string, *EmbedToken, error) {
	token := ids.EmbedToken + ids.Random(crockford, 25)
	t := &EmbedToken{
		TokenHash: hashEmbedToken(token), WorkspaceID: e.WorkspaceID, ProgramID: e.ProgramID,
		PartnerID: e.PartnerID, EnrollmentID: e.ID, ExpiresAt: now.Add(EmbedTokenTTL).UTC(), CreatedAt: now.UTC(),
	}
	if err := db.WithContext(ctx).Create(t).Error; err != nil {
		return "", nil, dbErr(err, "create embed token", "", "")
	}
	// Tokens expired for a while are useless; drop them while we are here.
	// Recently expired ones stay so the dashboard can say "expired" rather
	// than "invalid" (EmbedTokenExpired).
	if err := db.WithContext(ctx).Where("expires_at <= ?", now.Add(-EmbedTokenKeepExpired).UTC()).Delete(&EmbedToken{}).Error; err != nil {
		return "", nil, dbErr(err, "purge embed tokens", "", "")
	}
	return token, t, nil
}

// EmbedTokenKeepExpired is how long an expired token's row is kept, so that
// the dashboard tells an expired link from an invalid one.
const EmbedTokenKeepExpired = 7 * 24 * time.Hour

// EmbedTokenExpired reports whether token is a real token that has expired
// (within EmbedTokenKeepExpired): the dashboard says "expired" for it and
// "invalid" for anything else.
func (db *DB) EmbedTokenExpired(ctx context.Context, token string, now time.Time) (bool, error) {
	var n int64
	err := db.WithContext(ctx).Model(&EmbedToken{}).Where("token_hash = ? AND expires_at <= ?", hashEmbedToken(token), now.UTC()).Count(&n).Error
	if err != nil {
		return false, dbErr(err, "check embed token expiry", "", "")
	}
	return n > 0, nil
}

// WellFormedEmbedToken reports whether s looks like a token CreateEmbedToken
// mints ("dub_embed_" and 25 Crockford base-32 characters).
func WellFormedEmbedToken(s string) bool {
	rest, ok := strings.CutPrefix(s, ids.EmbedToken)
	if !ok || len(rest) != 25 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !strings.ContainsRune(crockford, rune(rest[i])) {
			return false
		}
	}
	return true
}

// MsgEmbedTokenInvalid answers an unknown or expired embed token.
const MsgEmbedTokenInvalid = "Invalid or expired embed token."

// EmbedTokenByToken resolves an unexpired token; anything else is a 401-worthy
// not-found error the caller maps.
func (db *DB) EmbedTokenByToken(ctx context.Context, token string, now time.Time) (*EmbedToken, error) {
	var t EmbedToken
	err := db.WithContext(ctx).Where("token_hash = ? AND expires_at > ?", hashEmbedToken(token), now.UTC()).Take(&t).Error
	if err != nil {
		return nil, dbErr(err, "get embed token", MsgEmbedTokenInvalid, "")
	}
	return &t, nil
}
