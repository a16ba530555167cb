package models

import (
	"context"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

// Domain is a workspace's short domain (spec/links.md §6). Slugs are stored
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
	DeepviewData            *string `gorm:"column:deepview_data"` // compact JSON (spec/parity.md §11.4)
	// Verification (internal/domaincheck): the last check, the next one
	// (nil: due now), consecutive failed checks, and the last status and
	// DNS answer (JSON).
	LastCheckedAt *time.Time `gorm:"column:last_checked_at"`
	NextCheckAt   *time.Time `gorm:"column:next_check_at"`
	CheckFailures int        `gorm:"column:check_failures"`
	DNSStatus     *string    `gorm:"column:dns_status"`
	DNSAnswer     *string    `gorm:"column:dns_answer"`
	CreatedAt     time.Time
	UpdatedAt     time.Time
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

// DomainSlugs lists every registered domain's slug, of every workspace
// (archived ones too: their links still redirect). The in-memory set of
// registered domains (internal/domainset) is loaded from it.
func (db *DB) DomainSlugs(ctx context.Context) ([]string, error) {
	var slugs []string
	err := db.WithContext(ctx).Model(&Domain{}).Order("slug").Pluck("slug", &slugs).Error
	return slugs, dbErr(err, "list domain slugs", "", "")
}

// WorkspaceDomains lists a workspace's domains, oldest first.
func (db *DB) WorkspaceDomains(ctx context.Context, workspaceID string) ([]Domain, error) {
	var ds []Domain
	err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Order("created_at, id").Find(&ds).Error
	return ds, dbErr(err, "list workspace domains", "", "")
}

// DomainFilter selects domains for GET /domains.
type DomainFilter struct {
	Archived      bool   // equality filter
	Search        string // substring of the slug
	Offset, Limit int
}

// ListDomains returns one page of a workspace's domains, oldest first.
func (db *DB) ListDomains(ctx context.Context, workspaceID string, f DomainFilter) ([]Domain, error) {
	q := db.WithContext(ctx).Where("workspace_id = ? AND archived = ?", workspaceID, f.Archived)
	if f.Search != "" {
		q = q.Where(`slug LIKE ? ESCAPE '\'`, "%"+likeEscape(strings.ToLower(f.Search))+"%")
	}
	var ds []Domain
	err := q.Order("created_at, id").Offset(f.Offset).Limit(f.Limit).Find(&ds).Error
	return ds, dbErr(err, "list domains", "", "")
}

// MsgDomainInUse is the conflict for a taken slug.
const MsgDomainInUse = "Domain is already in use."

// InsertDomain stores a new domain with its root link (key _root, empty url);
// the workspace's first domain becomes primary. A taken slug is a 409.
func (db *DB) InsertDomain(ctx context.Context, d *Domain) error {
	return db.insertDomain(ctx, d, true)
}

// InsertDomainWithoutRoot stores a new domain as InsertDomain does, but
// without a root link (relink demo's short domain).
func (db *DB) InsertDomainWithoutRoot(ctx context.Context, d *Domain) error {
	return db.insertDomain(ctx, d, false)
}

func (db *DB) insertDomain(ctx context.Context, d *Domain, withRoot bool) error {
	d.Slug = strings.ToLower(d.Slug)
	return db.Tx(ctx, func(tx *DB) error {
		var n int64
		if err := tx.WithContext(ctx).Model(&Domain{}).Where("slug = ?", d.Slug).Count(&n).Error; err != nil {
			return dbErr(err, "check domain", "", "")
		}
		if n > 0 {
			return apierr.New(apierr.Conflict, MsgDomainInUse)
		}
		if err := tx.WithContext(ctx).Model(&Domain{}).Where("workspace_id = ?", d.WorkspaceID).Count(&n).Error; err != nil {
			return dbErr(err, "count domains", "", "")
		}
		d.Primary = n == 0
		if err := tx.WithContext(ctx).Create(d).Error; err != nil {
			return dbErr(err, "create domain", "", MsgDomainInUse)
		}
		if !withRoot {
			return nil
		}
		root := &Link{ID: ids.New(ids.Link), WorkspaceID: d.WorkspaceID, Domain: d.Slug, Key: RootKey}
		return tx.CreateLink(ctx, root)
	})
}

// SaveDomain writes an existing domain; when oldSlug differs from d.Slug the
// domain is renamed and its links move with it. A taken slug is a 409.
func (db *DB) SaveDomain(ctx context.Context, d *Domain, oldSlug string) error {
	d.Slug = strings.ToLower(d.Slug)
	cols := []string{"slug", "archived", "placeholder", "expired_url", "not_found_url", "logo", "asset_links", "apple_app_site_association", "deepview_data", "updated_at"}
	if d.Slug != oldSlug {
		cols = append(cols, "verified", "last_checked_at", "next_check_at", "check_failures", "dns_status", "dns_answer")
	}
	return db.Tx(ctx, func(tx *DB) error {
		if d.Slug != oldSlug {
			// A new name is a new DNS question: unverified, checked now.
			d.Verified, d.LastCheckedAt, d.NextCheckAt, d.CheckFailures, d.DNSStatus, d.DNSAnswer = false, nil, nil, 0, nil, nil
			var n int64
			if err := tx.WithContext(ctx).Model(&Domain{}).Where("slug = ?", d.Slug).Count(&n).Error; err != nil {
				return dbErr(err, "check domain", "", "")
			}
			if n > 0 {
				return apierr.New(apierr.Conflict, MsgDomainInUse)
			}
			if err := tx.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND domain = ?", d.WorkspaceID, oldSlug).
				Updates(map[string]any{"domain": d.Slug, "updated_at": d.UpdatedAt}).Error; err != nil {
				return dbErr(err, "move domain links", "", MsgDomainInUse)
			}
		}
		err := tx.WithContext(ctx).Model(d).Where("workspace_id = ?", d.WorkspaceID).
			Select(cols).Updates(d).Error
		return dbErr(err, "update domain", "", MsgDomainInUse)
	})
}

// SetPrimaryDomain makes d its workspace's primary domain and every other
// domain of the workspace not primary (spec/parity.md §11.2).
func (db *DB) SetPrimaryDomain(ctx context.Context, d *Domain, now time.Time) error {
	err := db.Tx(ctx, func(tx *DB) error {
		if err := tx.WithContext(ctx).Model(&Domain{}).Where("workspace_id = ? AND is_primary = ? AND id <> ?", d.WorkspaceID, true, d.ID).
			Updates(map[string]any{"is_primary": false, "updated_at": now}).Error; err != nil {
			return err
		}
		return tx.WithContext(ctx).Model(&Domain{}).Where("workspace_id = ? AND id = ?", d.WorkspaceID, d.ID).
			Updates(map[string]any{"is_primary": true, "updated_at": now}).Error
	})
	if err != nil {
		return dbErr(err, "set primary domain", "", "")
	}
	d.Primary, d.UpdatedAt = true, now
	return nil
}

// DeleteDomain removes a workspace's domain and every link on it, and
// returns the links removed (for cache invalidation). When the primary
// domain goes, the oldest remaining domain becomes primary.
func (db *DB) DeleteDomain(ctx context.Context, d *Domain) ([]Link, error) {
	var gone []Link
	err := db.Tx(ctx, func(tx *DB) error {
		q := tx.WithContext(ctx).Where("workspace_id = ? AND domain = ?", d.WorkspaceID, d.Slug)
		if err := q.Select("id", "domain", "key").Find(&gone).Error; err != nil {
			return err
		}
		if err := tx.WithContext(ctx).Where("workspace_id = ? AND domain = ?", d.WorkspaceID, d.Slug).Delete(&Link{}).Error; err != nil {
			return err
		}
		if err := tx.WithContext(ctx).Where("workspace_id = ? AND id = ?", d.WorkspaceID, d.ID).Delete(&Domain{}).Error; err != nil {
			return err
		}
		if !d.Primary {
			return nil
		}
		var next Domain
		err := tx.WithContext(ctx).Where("workspace_id = ?", d.WorkspaceID).Order("created_at, id").Take(&next).Error
		if IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return tx.WithContext(ctx).Model(&next).Update("is_primary", true).Error
	})
	return gone, dbErr(err, "delete domain", "", "")
}

// LinksOnDomain lists the (domain, key) of a workspace's links on a domain.
func (db *DB) LinksOnDomain(ctx context.Context, workspaceID, domain string) ([]Link, error) {
	var ls []Link
	err := db.WithContext(ctx).Select("id", "domain", "key").Where("workspace_id = ? AND domain = ?", workspaceID, strings.ToLower(domain)).Find(&ls).Error
	return ls, dbErr(err, "list domain links", "", "")
}

// DomainsDue lists up to limit non-archived domains whose verification
// check is due at now, the longest-waiting first.
func (db *DB) DomainsDue(ctx context.Context, now time.Time, limit int) ([]Domain, error) {
	var ds []Domain
	err := db.WithContext(ctx).Where("archived = ? AND (next_check_at IS NULL OR next_check_at <= ?)", false, now).
		Order("next_check_at, id").Limit(limit).Find(&ds).Error
	return ds, dbErr(err, "list domains due for a check", "", "")
}

// ClaimDomainCheck moves a due domain's next check to until, unless another
// instance has already done so: true when this caller owns the check.
func (db *DB) ClaimDomainCheck(ctx context.Context, d *Domain, now, until time.Time) (bool, error) {
	res := db.WithContext(ctx).Model(&Domain{}).
		Where("id = ? AND slug = ? AND (next_check_at IS NULL OR next_check_at <= ?)", d.ID, d.Slug, now).
		Update("next_check_at", until)
	if res.Error != nil {
		return false, dbErr(res.Error, "claim domain check", "", "")
	}
	return res.RowsAffected == 1, nil
}

// SaveDomainCheck writes a check's outcome (verified, the check times,
// failures, status and answer) unless the domain was renamed meanwhile.
func (db *DB) SaveDomainCheck(ctx context.Context, d *Domain) error {
	err := db.WithContext(ctx).Model(&Domain{}).Where("id = ? AND slug = ?", d.ID, d.Slug).Updates(map[string]any{
		"verified": d.Verified, "last_checked_at": d.LastCheckedAt, "next_check_at": d.NextCheckAt,
		"check_failures": d.CheckFailures, "dns_status": d.DNSStatus, "dns_answer": d.DNSAnswer,
	}).Error
	return dbErr(err, "save domain check", "", "")
}
