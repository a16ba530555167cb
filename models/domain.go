package models

import (
	"context"
	"strings"
	"time"
)

// Domain is a workspace's short domain (links.md §6). Slugs are stored
// lower-case and belong to one workspace.
type Domain struct {
	ID                      string `gorm:"primaryKey"`
	WorkspaceID             string `gorm:"column:workspace_id"`
	Slug                    string
	Verified                bool
	Primary                 bool `gorm:"column:is_primary"`
	Archived                bool
	Placeholder             *string
	ExpiredURL              *string `gorm:"column:expired_url"`
	NotFoundURL             *string `gorm:"column:not_found_url"`
	Logo                    *string
	AssetLinks              *string `gorm:"column:asset_links"`
	AppleAppSiteAssociation *string `gorm:"column:apple_app_site_association"`
	CreatedAt               time.Time
	UpdatedAt               time.Time
}

// TableName pins the table.
func (Domain) TableName() string { return "domains" }

// DomainByName finds a registered domain by its name (any workspace; the
// redirect uses it for notFoundUrl/expiredUrl/placeholder). The default short
// domain from config is not a row and is never found here.
func (db *DB) DomainByName(ctx context.Context, name string) (*Domain, error) {
	var d Domain
	err := db.WithContext(ctx).Where("slug = ?", strings.ToLower(name)).Take(&d).Error
	if err != nil {
		return nil, dbErr(err, "get domain by name", "Domain "+name+" not found.", "")
	}
	return &d, nil
}

// ShortDomainExists reports whether host (case-insensitive, no port) is a
// registered short domain of some workspace.
func (db *DB) ShortDomainExists(ctx context.Context, host string) (bool, error) {
	var n int64
	err := db.WithContext(ctx).Model(&Domain{}).Where("slug = ?", strings.ToLower(host)).Limit(1).Count(&n).Error
	if err != nil {
		return false, dbErr(err, "check short domain", "", "")
	}
	return n > 0, nil
}
