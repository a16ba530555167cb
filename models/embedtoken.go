package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/relinkhq/relink/internal/ids"
)

// EmbedTokenTTL is how long a referral embed token is valid after minting;
// use never extends it. The wire contract (partners-and-embed.md §5) says 3
// hours, which the SDK's callers rely on; DESIGN.md's "2 hours" predates it
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
	// Expired tokens are useless; drop them while we are here.
	if err := db.WithContext(ctx).Where("expires_at <= ?", now.UTC()).Delete(&EmbedToken{}).Error; err != nil {
		return "", nil, dbErr(err, "purge embed tokens", "", "")
	}
	return token, t, nil
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
