package models

import (
	"context"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
)

// Discount is a partner group's discount for the customers its partners
// refer (spec/parity.md §8.1): a percentage or a flat amount in cents, for
// maxDuration months (nil: lifetime, 0: first purchase).
type Discount struct {
	ID                     string `gorm:"primaryKey"`
	WorkspaceID            string
	ProgramID              string
	Amount                 int64
	Type                   string // "percentage" | "flat"
	MaxDuration            *int
	CouponID               *string
	CouponTestID           *string
	Description            *string
	AutoProvisionEnabledAt *time.Time
	Provider               string // "custom": Relink talks to no payment provider
	CreatedAt              time.Time
	UpdatedAt              time.Time
}

// TableName pins the table.
func (Discount) TableName() string { return "discounts" }

// Discount types.
const (
	DiscountPercentage = "percentage"
	DiscountFlat       = "flat"
)

// DiscountCode is a partner's code for one of its links (§8.2).
type DiscountCode struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string
	ProgramID   string
	DiscountID  *string
	PartnerID   string
	LinkID      string
	Code        string
	DisabledAt  *time.Time
	CreatedAt   time.Time
}

// TableName pins the table.
func (DiscountCode) TableName() string { return "discount_codes" }

// MsgDiscountCodeTaken is the insert conflict of §8.4 step 8.
const MsgDiscountCodeTaken = "This discount code is already in use, or this link already has a code. Please refresh and try again."

// CheckDiscount validates a discount's fields.
func CheckDiscount(d *Discount) error {
	switch d.Type {
	case DiscountPercentage:
		if d.Amount < 0 || d.Amount > 100 {
			return apierr.Validation("too_big", "amount", "A percentage discount is between 0 and 100.")
		}
	case DiscountFlat:
		if d.Amount < 0 || d.Amount > 99999999 {
			return apierr.Validation("too_big", "amount", "A flat discount is between 0 and 99999999 cents.")
		}
	default:
		return apierr.Validation("invalid_value", "type", `Invalid option: expected one of "percentage"|"flat"`)
	}
	if d.MaxDuration != nil && (*d.MaxDuration < 0 || *d.MaxDuration > 600) {
		return apierr.Validation("too_big", "maxDuration", "maxDuration must be between 0 and 600 months.")
	}
	return nil
}

// SetGroupDiscount stores d as group g's discount and gives it to the
// group's current partners (every enrollment of the group that is not
// banned, deactivated or rejected), as upstream assigns a group discount.
func (db *DB) SetGroupDiscount(ctx context.Context, g *Group, d *Discount) error {
	if err := CheckDiscount(d); err != nil {
		return err
	}
	d.WorkspaceID, d.ProgramID = g.WorkspaceID, g.ProgramID
	if d.Provider == "" {
		d.Provider = "custom"
	}
	err := db.Tx(ctx, func(tx *DB) error {
		if err := tx.WithContext(ctx).Create(d).Error; err != nil {
			return err
		}
		if err := tx.WithContext(ctx).Model(&Group{}).Where("workspace_id = ? AND id = ?", g.WorkspaceID, g.ID).
			Update("discount_id", d.ID).Error; err != nil {
			return err
		}
		return tx.WithContext(ctx).Model(&Enrollment{}).
			Where("workspace_id = ? AND group_id = ? AND status NOT IN ?", g.WorkspaceID, g.ID, []string{"banned", "deactivated", "rejected"}).
			Updates(map[string]any{"discount_id": d.ID, "updated_at": d.UpdatedAt}).Error
	})
	if err != nil {
		return dbErr(err, "set group discount", "", "")
	}
	g.DiscountID = &d.ID
	return nil
}

// DiscountByID loads a discount of the workspace.
func (db *DB) DiscountByID(ctx context.Context, workspaceID, id string) (*Discount, error) {
	var d Discount
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&d).Error
	return &d, dbErr(err, "get discount", "Discount not found.", "")
}

// DiscountsByID loads the workspace's discounts with the given ids.
func (db *DB) DiscountsByID(ctx context.Context, workspaceID string, idList []string) (map[string]*Discount, error) {
	out := map[string]*Discount{}
	if len(idList) == 0 {
		return out, nil
	}
	var ds []Discount
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, idList).Find(&ds).Error; err != nil {
		return nil, dbErr(err, "get discounts", "", "")
	}
	for i := range ds {
		out[ds[i].ID] = &ds[i]
	}
	return out, nil
}

// DiscountCodeFilter selects GET /discount-codes.
type DiscountCodeFilter struct {
	PartnerID, DiscountID string
	Offset, Limit         int
}

// ListDiscountCodes lists a program's codes, newest first, disabled ones
// included (§8.3).
func (db *DB) ListDiscountCodes(ctx context.Context, workspaceID, programID string, f DiscountCodeFilter) ([]DiscountCode, error) {
	q := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ?", workspaceID, programID)
	if f.PartnerID != "" {
		q = q.Where("partner_id = ?", f.PartnerID)
	}
	if f.DiscountID != "" {
		q = q.Where("discount_id = ?", f.DiscountID)
	}
	var cs []DiscountCode
	err := q.Order("created_at DESC").Order("id DESC").Offset(f.Offset).Limit(f.Limit).Find(&cs).Error
	return cs, dbErr(err, "list discount codes", "", "")
}

// DiscountCodeOfLink is the link's code, if any.
func (db *DB) DiscountCodeOfLink(ctx context.Context, workspaceID, linkID string) (*DiscountCode, error) {
	var c DiscountCode
	err := db.WithContext(ctx).Where("workspace_id = ? AND link_id = ?", workspaceID, linkID).Take(&c).Error
	return &c, dbErr(err, "get link discount code", "Discount code not found.", "")
}

// DiscountCodeByCode finds a program's code, case-insensitively.
func (db *DB) DiscountCodeByCode(ctx context.Context, workspaceID, programID, code string) (*DiscountCode, error) {
	var c DiscountCode
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND lower(code) = ?", workspaceID, programID, strings.ToLower(code)).
		Take(&c).Error
	return &c, dbErr(err, "get discount code", "Discount code not found.", "")
}

// DiscountCodeByID loads a program's code by id.
func (db *DB) DiscountCodeByID(ctx context.Context, workspaceID, programID, id string) (*DiscountCode, error) {
	var c DiscountCode
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND id = ?", workspaceID, programID, id).Take(&c).Error
	return &c, dbErr(err, "get discount code", "Discount code not found.", "")
}

// CreateDiscountCode stores a code; a taken code or link is a 409.
func (db *DB) CreateDiscountCode(ctx context.Context, c *DiscountCode) error {
	return dbErr(db.WithContext(ctx).Create(c).Error, "create discount code", "", MsgDiscountCodeTaken)
}

// DeleteDiscountCode removes a code.
func (db *DB) DeleteDiscountCode(ctx context.Context, workspaceID, id string) error {
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&DiscountCode{}).Error
	return dbErr(err, "delete discount code", "", "")
}

// ProgramPartnerLinks lists every partner link of a program, oldest first
// (the console's discount-code form).
func (db *DB) ProgramPartnerLinks(ctx context.Context, workspaceID, programID string) ([]Link, error) {
	var ls []Link
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id IS NOT NULL", workspaceID, programID).
		Order("created_at, id").Find(&ls).Error
	return ls, dbErr(err, "list program partner links", "", "")
}

// DisablePartnerCodes soft-deletes a partner's enabled codes in a program
// (disabledAt = at; detach also clears their discount) and returns them as
// they were, with the disabled time set (spec/parity.md §6.1, §6.2, §8.6).
func (db *DB) DisablePartnerCodes(ctx context.Context, workspaceID, programID, partnerID string, detach bool, at time.Time) ([]DiscountCode, error) {
	var cs []DiscountCode
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND disabled_at IS NULL", workspaceID, programID, partnerID).
		Order("created_at").Find(&cs).Error
	if err != nil || len(cs) == 0 {
		return cs, dbErr(err, "list partner discount codes", "", "")
	}
	ids := make([]string, len(cs))
	for i := range cs {
		ids[i] = cs[i].ID
	}
	set := map[string]any{"disabled_at": at}
	if detach {
		set["discount_id"] = nil
	}
	if err := db.WithContext(ctx).Model(&DiscountCode{}).Where("workspace_id = ? AND id IN ?", workspaceID, ids).Updates(set).Error; err != nil {
		return nil, dbErr(err, "disable partner discount codes", "", "")
	}
	for i := range cs {
		cs[i].DisabledAt = &at
	}
	return cs, nil
}
