package models

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"gorm.io/gorm"
)

// RootKey is the key of a domain's root link (https://domain/).
const RootKey = "_root"

// Link is a short link (spec/links.md §2). Counters (Clicks, LastClicked, Leads,
// Conversions, Sales, SaleAmount) are plain columns the click and conversion
// pipelines increment; link writes from the API never touch them.
type Link struct {
	ID              string `gorm:"primaryKey"`
	WorkspaceID     string `gorm:"column:workspace_id"`
	Domain          string `gorm:"column:domain"` // lower-case host, e.g. "acme.link" or Config.ShortDomain
	Key             string `gorm:"column:key"`    // stored case, unique per domain case-insensitively
	URL             string `gorm:"column:url"`
	TrackConversion bool   `gorm:"column:track_conversion"`
	ExternalID      *string
	TenantID        *string
	ProgramID       *string
	PartnerID       *string
	Archived        bool
	ExpiresAt       *time.Time
	ExpiredURL      *string `gorm:"column:expired_url"`
	DisabledAt      *time.Time
	Password        *string
	Proxy           bool
	Title           *string
	Description     *string
	Image           *string
	Video           *string
	Rewrite         bool
	DoIndex         bool    `gorm:"column:do_index"`
	IOS             *string `gorm:"column:ios"`
	Android         *string `gorm:"column:android"`
	Geo             Geo     `gorm:"column:geo"`
	PublicStats     bool    `gorm:"column:public_stats"`
	FolderID        *string
	Comments        *string
	UTMSource       *string      `gorm:"column:utm_source"`
	UTMMedium       *string      `gorm:"column:utm_medium"`
	UTMCampaign     *string      `gorm:"column:utm_campaign"`
	UTMTerm         *string      `gorm:"column:utm_term"`
	UTMContent      *string      `gorm:"column:utm_content"`
	TestVariants    TestVariants `gorm:"column:test_variants"`
	TestStartedAt   *time.Time
	TestCompletedAt *time.Time
	UserID          *string
	// PartnerGroupDefaultLinkID is the group default link this partner link
	// was created from; nil for additional links.
	PartnerGroupDefaultLinkID *string `gorm:"column:partner_group_default_link_id"`

	Clicks      int64      `gorm:"column:clicks"` // the click pipeline increments
	Leads       int64      `gorm:"column:leads"`
	Conversions int64      `gorm:"column:conversions"`
	Sales       int64      `gorm:"column:sales"`
	SaleAmount  int64      `gorm:"column:sale_amount"` // cents
	LastClicked *time.Time `gorm:"column:last_clicked"`

	CreatedAt time.Time
	UpdatedAt time.Time

	// Tags are loaded by the queries that return links to the API, ordered
	// by association time.
	Tags []Tag `gorm:"-"`
	// WebhookIDs, when non-nil, are the webhooks a create or update named
	// (the deprecated webhookIds field): InsertLink and SaveLink store them
	// in webhook_links, and the answer to that request carries them.
	WebhookIDs []string `gorm:"-"`
}

// TableName pins the table.
func (Link) TableName() string { return "links" }

// IsRoot reports the domain's root link.
func (l *Link) IsRoot() bool { return l.Key == RootKey }

// Expired reports whether the link has expired at now.
func (l *Link) Expired(now time.Time) bool { return l.ExpiresAt != nil && !l.ExpiresAt.After(now) }

// Geo maps an ISO-3166 alpha-2 country code to a destination. It is stored as
// JSON text; a nil map is NULL.
type Geo map[string]string

// GormDataType tells GORM the column is text.
func (Geo) GormDataType() string { return "text" }

// Value stores the map as JSON text.
func (g Geo) Value() (driver.Value, error) {
	if g == nil {
		return nil, nil
	}
	b, err := json.Marshal(map[string]string(g))
	return string(b), err
}

// Scan reads JSON text.
func (g *Geo) Scan(v any) error {
	*g = nil
	s, ok, err := textOf(v)
	if err != nil || !ok || s == "" || s == "null" {
		return err
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return fmt.Errorf("scan geo: %w", err)
	}
	*g = m
	return nil
}

// TestVariant is one A/B destination.
type TestVariant struct {
	URL        string  `json:"url"`
	Percentage float64 `json:"percentage"`
}

// TestVariants is stored as JSON text; nil is NULL.
type TestVariants []TestVariant

// GormDataType tells GORM the column is text.
func (TestVariants) GormDataType() string { return "text" }

// Value stores the variants as JSON text.
func (t TestVariants) Value() (driver.Value, error) {
	if t == nil {
		return nil, nil
	}
	b, err := json.Marshal([]TestVariant(t))
	return string(b), err
}

// Scan reads JSON text.
func (t *TestVariants) Scan(v any) error {
	*t = nil
	s, ok, err := textOf(v)
	if err != nil || !ok || s == "" || s == "null" {
		return err
	}
	var out []TestVariant
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return fmt.Errorf("scan test variants: %w", err)
	}
	*t = out
	return nil
}

func textOf(v any) (string, bool, error) {
	switch x := v.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, true, nil
	case []byte:
		return string(x), true, nil
	}
	return "", false, fmt.Errorf("scan: unsupported type %T", v)
}

// LinkByDomainKey finds a link by its short domain and key, the key compared
// case-insensitively. It is not workspace-scoped: the redirect is public.
func (db *DB) LinkByDomainKey(ctx context.Context, domain, key string) (*Link, error) {
	var l Link
	err := db.WithContext(ctx).
		Where("domain = ? AND lower(key) = ?", strings.ToLower(domain), strings.ToLower(key)).
		Take(&l).Error
	if err != nil {
		return nil, dbErr(err, "get link by domain and key", "Link not found.", "")
	}
	return &l, nil
}

// LinkByID loads one of the workspace's links by id, without tags.
func (db *DB) LinkByID(ctx context.Context, workspaceID, id string) (*Link, error) {
	var l Link
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&l).Error
	if err != nil {
		return nil, dbErr(err, "get link", "Link not found.", "")
	}
	return &l, nil
}

// Messages of the link conflicts (spec/links.md §4.3, §4.4).
const (
	MsgDuplicateKey        = "Duplicate key: This short link already exists."
	MsgDuplicateExternalID = "A link with this externalId already exists in this workspace."
)

// CreateLink stores a new link as given (callers validate first: whether a
// key is available is decided by internal/links, Service.checkKey). It fills
// ID and timestamps when empty and lower-cases the domain. The database's
// unique indexes are the backstop: a (domain, key) or externalId taken
// meanwhile is a 409 conflict (linkConflict).
func (db *DB) CreateLink(ctx context.Context, l *Link) error {
	if l.ID == "" {
		l.ID = ids.New(ids.Link)
	}
	l.Domain = strings.ToLower(l.Domain)
	// In a savepoint of its own, so that a conflict leaves a caller's
	// transaction usable for linkConflict's question.
	err := db.Tx(ctx, func(tx *DB) error { return tx.WithContext(ctx).Create(l).Error })
	return db.linkConflict(ctx, l, err, "create link")
}

// linkConflict maps a write of l that a unique index refused to the 409 of
// the rule it broke: the externalId's when another link of the workspace
// holds it, else the key's (spec/links.md §4.3, §4.4). Other errors are
// wrapped with op.
func (db *DB) linkConflict(ctx context.Context, l *Link, err error, op string) error {
	if !errors.Is(err, gorm.ErrDuplicatedKey) {
		return dbErr(err, op, "", "")
	}
	if l.ExternalID != nil {
		if taken, qerr := db.ExternalIDTaken(ctx, l.WorkspaceID, *l.ExternalID, l.ID); qerr == nil && taken {
			return apierr.Wrap(apierr.Conflict, err, MsgDuplicateExternalID)
		}
	}
	return apierr.Wrap(apierr.Conflict, err, MsgDuplicateKey)
}

// SetPartnerGroupDefaultLink records the group default link a partner link
// was created from.
func (db *DB) SetPartnerGroupDefaultLink(ctx context.Context, workspaceID, linkID, defaultLinkID string) error {
	res := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND id = ?", workspaceID, linkID).
		Update("partner_group_default_link_id", defaultLinkID)
	if res.Error != nil {
		return dbErr(res.Error, "set partner group default link", "", "")
	}
	if res.RowsAffected == 0 {
		return apierr.New(apierr.NotFound, "Link not found.")
	}
	return nil
}
