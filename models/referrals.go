package models

import (
	"context"
	"time"
)

// Queries of the embedded referral dashboard (spec/partners-and-embed.md §4.6,
// §6.7). Each is scoped by workspace, program and partner: an embed token
// only ever reads its own enrollment's data.

// EarningsSummary is the dashboard's earnings card (§4.6).
type EarningsSummary struct {
	Upcoming   int64 // Σ earnings > 0 with status pending or processed
	Paid       int64 // Σ earnings > 0 with status paid
	TotalCount int64 // commissions with earnings > 0, any status
}

// PartnerEarningsSummary sums the partner's commissions for the dashboard.
func (db *DB) PartnerEarningsSummary(ctx context.Context, workspaceID, programID, partnerID string) (EarningsSummary, error) {
	var s EarningsSummary
	err := db.WithContext(ctx).Model(&Commission{}).
		Select(`COALESCE(SUM(CASE WHEN status IN ('pending', 'processed') THEN earnings ELSE 0 END), 0) AS upcoming,
			COALESCE(SUM(CASE WHEN status = 'paid' THEN earnings ELSE 0 END), 0) AS paid,
			COUNT(*) AS total_count`).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND earnings > 0", workspaceID, programID, partnerID).
		Scan(&s).Error
	return s, dbErr(err, "sum partner earnings", "", "")
}

// PartnerCommissions pages the partner's commissions with earnings ≠ 0,
// newest first, created at or after since (zero: all).
func (db *DB) PartnerCommissions(ctx context.Context, workspaceID, programID, partnerID string, since time.Time, limit, offset int) ([]Commission, error) {
	q := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND earnings <> 0", workspaceID, programID, partnerID)
	if !since.IsZero() {
		q = q.Where("created_at >= ?", since.UTC())
	}
	var out []Commission
	err := q.Order("created_at DESC, id DESC").Limit(limit).Offset(offset).Find(&out).Error
	return out, dbErr(err, "list partner commissions", "", "")
}

// CountPartnerCommissions counts what PartnerCommissions pages over.
func (db *DB) CountPartnerCommissions(ctx context.Context, workspaceID, programID, partnerID string, since time.Time) (int64, error) {
	q := db.WithContext(ctx).Model(&Commission{}).Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND earnings <> 0", workspaceID, programID, partnerID)
	if !since.IsZero() {
		q = q.Where("created_at >= ?", since.UTC())
	}
	var n int64
	err := q.Count(&n).Error
	return n, dbErr(err, "count partner commissions", "", "")
}

// LeaderboardRow is one enrollment on the program's leaderboard: only the
// enrollment id and its total, never a partner's name or email.
type LeaderboardRow struct {
	ID               string
	TotalCommissions int64
}

// CountApprovedEnrollments counts the program's approved partners: the
// leaderboard's "N partners in the program".
func (db *DB) CountApprovedEnrollments(ctx context.Context, workspaceID, programID string) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Model(&Enrollment{}).
		Where("workspace_id = ? AND program_id = ? AND status = ?", workspaceID, programID, EnrollmentApproved).Count(&n).Error
	return n, dbErr(err, "count approved enrollments", "", "")
}

// Leaderboard lists the program's approved enrollments with
// totalCommissions > 0, highest first (§6.7).
func (db *DB) Leaderboard(ctx context.Context, workspaceID, programID string, limit int) ([]LeaderboardRow, error) {
	var out []LeaderboardRow
	err := db.WithContext(ctx).Model(&Enrollment{}).Select("id, total_commissions").
		Where("workspace_id = ? AND program_id = ? AND status = ? AND total_commissions > 0", workspaceID, programID, EnrollmentApproved).
		Order("total_commissions DESC, id").Limit(limit).Scan(&out).Error
	return out, dbErr(err, "leaderboard", "", "")
}

// EarningsPoint is one commission reduced to what an earnings timeseries
// sums.
type EarningsPoint struct {
	LinkID    string
	CreatedAt time.Time
	Earnings  int64
}

// PartnerSaleEarnings lists the partner's sale commissions that count as
// earnings (spec/partners-and-embed.md §3.6: type sale, status pending, processed
// or paid) created in [start, end), optionally on one link only. It feeds
// GET /partners/analytics, GET /api/embed/referrals/earnings/timeseries and
// the embed dashboard's earnings chart, so all three agree.
func (db *DB) PartnerSaleEarnings(ctx context.Context, workspaceID, programID, partnerID string, start, end time.Time, linkID string) ([]EarningsPoint, error) {
	q := db.WithContext(ctx).Model(&Commission{}).Select("COALESCE(link_id, '') AS link_id, created_at, earnings").
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND type = ? AND status IN ? AND earnings <> 0 AND created_at >= ? AND created_at < ?",
			workspaceID, programID, partnerID, CommissionSale, CountedStatuses, start.UTC(), end.UTC())
	if linkID != "" {
		q = q.Where("link_id = ?", linkID)
	}
	var out []EarningsPoint
	err := q.Order("created_at").Scan(&out).Error
	return out, dbErr(err, "partner sale earnings", "", "")
}
