package models

import (
	"context"
	"time"
)

// UpdateEnrollment writes columns of an enrollment (status changes of ban,
// deactivate, approve and reject) and reloads it.
func (db *DB) UpdateEnrollment(ctx context.Context, e *Enrollment, set map[string]any) error {
	err := db.WithContext(ctx).Model(&Enrollment{}).Where("workspace_id = ? AND id = ?", e.WorkspaceID, e.ID).Updates(set).Error
	if err != nil {
		return dbErr(err, "update enrollment", MsgPartnerNotEnrolled, "")
	}
	err = db.WithContext(ctx).Where("workspace_id = ? AND id = ?", e.WorkspaceID, e.ID).Take(e).Error
	return dbErr(err, "reload enrollment", MsgPartnerNotEnrolled, "")
}

// ExpirePartnerLinks expires the partner's links in the program now: all of
// them and disabled too (ban), or only those without an expiry (deactivate).
func (db *DB) ExpirePartnerLinks(ctx context.Context, workspaceID, programID, partnerID string, disable bool, now time.Time) error {
	q := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID)
	set := map[string]any{"expires_at": now.UTC(), "updated_at": now.UTC()}
	if disable {
		set["disabled_at"] = now.UTC()
	} else {
		q = q.Where("expires_at IS NULL")
	}
	return dbErr(q.Updates(set).Error, "expire partner links", "", "")
}

// CancelPartnerEarnings is a ban's effect on money (spec/parity.md §6.1): the
// partner's pending payouts are canceled, and so are its pending and held
// commissions and the processed ones in those payouts.
func (db *DB) CancelPartnerEarnings(ctx context.Context, workspaceID, programID, partnerID string, now time.Time) error {
	t := now.UTC()
	err := db.WithContext(ctx).Model(&Payout{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND status = ?", workspaceID, programID, partnerID, PayoutPending).
		Updates(map[string]any{"status": PayoutCanceled, "updated_at": t}).Error
	if err != nil {
		return dbErr(err, "cancel payouts", "", "")
	}
	canceled := db.WithContext(ctx).Model(&Payout{}).Select("id").
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND status = ?", workspaceID, programID, partnerID, PayoutCanceled)
	err = db.WithContext(ctx).Model(&Commission{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID).
		Where("(status IN ? OR (status = ? AND payout_id IN (?)))", []string{CommissionPending, CommissionHold}, CommissionProcessed, canceled).
		Updates(map[string]any{"status": CommissionCanceled, "updated_at": t}).Error
	return dbErr(err, "cancel commissions", "", "")
}

// UnexpirePartnerLinks clears the expiry of the partner's links in the
// program (a reactivated partner's links work again).
func (db *DB) UnexpirePartnerLinks(ctx context.Context, workspaceID, programID, partnerID string, now time.Time) error {
	err := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID).
		Updates(map[string]any{"expires_at": nil, "updated_at": now.UTC()}).Error
	return dbErr(err, "unexpire partner links", "", "")
}

// EnablePartnerLinks clears the expiry and the disabling of the partner's
// links in the program (an unbanned partner's links work again).
func (db *DB) EnablePartnerLinks(ctx context.Context, workspaceID, programID, partnerID string, now time.Time) error {
	err := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID).
		Updates(map[string]any{"expires_at": nil, "disabled_at": nil, "updated_at": now.UTC()}).Error
	return dbErr(err, "enable partner links", "", "")
}

// RestorePartnerEarnings undoes a ban's effect on money as Dub's unban
// does: the partner's canceled payouts and commissions are pending again.
func (db *DB) RestorePartnerEarnings(ctx context.Context, workspaceID, programID, partnerID string, now time.Time) error {
	t := now.UTC()
	err := db.WithContext(ctx).Model(&Payout{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND status = ?", workspaceID, programID, partnerID, PayoutCanceled).
		Updates(map[string]any{"status": PayoutPending, "updated_at": t}).Error
	if err != nil {
		return dbErr(err, "restore payouts", "", "")
	}
	err = db.WithContext(ctx).Model(&Commission{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND status = ?", workspaceID, programID, partnerID, CommissionCanceled).
		Updates(map[string]any{"status": CommissionPending, "updated_at": t}).Error
	return dbErr(err, "restore commissions", "", "")
}
