package models

import (
	"context"
	"time"
)

// Bounty submission statuses (spec/parity.md §7.2).
const (
	SubmissionDraft     = "draft"
	SubmissionSubmitted = "submitted"
	SubmissionApproved  = "approved"
	SubmissionRejected  = "rejected"
)

// SubmissionStatuses lists every status (the SDK's closed enum).
var SubmissionStatuses = []string{SubmissionDraft, SubmissionSubmitted, SubmissionApproved, SubmissionRejected}

// SubmissionRejectionReasons are the reasons a reviewer may give.
var SubmissionRejectionReasons = []string{"invalidProof", "duplicateSubmission", "outOfTimeWindow", "didNotMeetCriteria", "other"}

// SubmissionFile is one uploaded proof file.
type SubmissionFile struct {
	URL      string `json:"url"`
	FileName string `json:"fileName"`
	Size     int64  `json:"size"`
}

// BountySubmission is a partner's proof for a bounty (`bnty_sub_`).
type BountySubmission struct {
	ID               string `gorm:"primaryKey"`
	WorkspaceID      string
	ProgramID        string
	BountyID         string
	PartnerID        string
	Description      *string
	URLs             JSONCol[[]string]         `gorm:"column:urls"`
	Files            JSONCol[[]SubmissionFile] `gorm:"column:files"`
	Status           string
	PerformanceCount *int64
	PeriodNumber     int
	CommissionID     *string
	UserID           *string
	RejectionReason  *string
	RejectionNote    *string
	CompletedAt      *time.Time
	ReviewedAt       *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// TableName pins the table.
func (BountySubmission) TableName() string { return "bounty_submissions" }

// SubmissionPrefix starts every submission id.
const SubmissionPrefix = "bnty_sub_"

// RejectOpenSubmissions rejects the partner's bounty submissions that are not
// approved (a ban's effect, spec/parity.md §6.1).
func (db *DB) RejectOpenSubmissions(ctx context.Context, workspaceID, programID, partnerID, note string, now time.Time) error {
	err := db.WithContext(ctx).Model(&BountySubmission{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND status <> ?", workspaceID, programID, partnerID, SubmissionApproved).
		Updates(map[string]any{"status": SubmissionRejected, "rejection_reason": "other", "rejection_note": note,
			"reviewed_at": now.UTC(), "updated_at": now.UTC()}).Error
	return dbErr(err, "reject submissions", "", "")
}

// BountyByID loads one of the program's bounties.
func (db *DB) BountyByID(ctx context.Context, workspaceID, programID, id string) (*Bounty, error) {
	var b Bounty
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND id = ?", workspaceID, programID, id).Take(&b).Error
	return &b, dbErr(err, "get bounty", "Bounty "+id+" not found.", "")
}

// SubmissionQuery filters and pages GET /bounties/{id}/submissions (§7.4).
type SubmissionQuery struct {
	Status    string // "" = draft, submitted and approved
	GroupID   string
	PartnerID string
	SortBy    string // completedAt | performanceCount | socialMetricCount
	Desc      bool
	Limit     int
	Offset    int
}

// ListSubmissions lists a bounty's submissions.
func (db *DB) ListSubmissions(ctx context.Context, workspaceID, bountyID string, q SubmissionQuery) ([]BountySubmission, error) {
	tx := db.WithContext(ctx).Where("workspace_id = ? AND bounty_id = ?", workspaceID, bountyID)
	if q.Status != "" {
		tx = tx.Where("status = ?", q.Status)
	} else {
		tx = tx.Where("status IN ?", []string{SubmissionDraft, SubmissionSubmitted, SubmissionApproved})
	}
	if q.PartnerID != "" {
		tx = tx.Where("partner_id = ?", q.PartnerID)
	}
	if q.GroupID != "" {
		sub := db.WithContext(ctx).Model(&Enrollment{}).Select("partner_id").Where("workspace_id = ? AND group_id = ?", workspaceID, q.GroupID)
		tx = tx.Where("partner_id IN (?)", sub)
	}
	col := map[string]string{"completedAt": "completed_at", "performanceCount": "performance_count"}[q.SortBy]
	if col == "" {
		col = "completed_at" // socialMetricCount: Relink tracks no social metrics
	}
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	if q.Limit > 0 {
		tx = tx.Limit(q.Limit).Offset(q.Offset)
	}
	var out []BountySubmission
	err := tx.Order("CASE WHEN " + col + " IS NULL THEN 0 ELSE 1 END " + dir + ", " + col + " " + dir + ", id " + dir).Find(&out).Error
	return out, dbErr(err, "list submissions", "", "")
}

// SubmissionByID loads a submission of the workspace (any program).
func (db *DB) SubmissionByID(ctx context.Context, workspaceID, id string) (*BountySubmission, error) {
	var s BountySubmission
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&s).Error
	return &s, dbErr(err, "get submission", "Bounty submission "+id+" not found.", "")
}

// SaveSubmission writes a submission's review and proof fields.
func (db *DB) SaveSubmission(ctx context.Context, s *BountySubmission) error {
	err := db.WithContext(ctx).Model(s).Where("workspace_id = ?", s.WorkspaceID).
		Select("description", "urls", "files", "status", "performance_count", "commission_id", "user_id", "rejection_reason",
			"rejection_note", "completed_at", "reviewed_at", "updated_at").Updates(s).Error
	return dbErr(err, "save submission", "Bounty submission "+s.ID+" not found.", "")
}

// PartnerSubmissions lists the partner's submissions in the program, keyed
// by bounty id (the latest period wins).
func (db *DB) PartnerSubmissions(ctx context.Context, workspaceID, programID, partnerID string) (map[string]*BountySubmission, error) {
	var ss []BountySubmission
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID).
		Order("period_number").Find(&ss).Error
	if err != nil {
		return nil, dbErr(err, "list partner submissions", "", "")
	}
	out := map[string]*BountySubmission{}
	for i := range ss {
		out[ss[i].BountyID] = &ss[i]
	}
	return out, nil
}

// CreateSubmission stores a new submission; a second one for the same
// (bounty, partner, period) is a 409.
func (db *DB) CreateSubmission(ctx context.Context, s *BountySubmission) error {
	err := db.WithContext(ctx).Create(s).Error
	return dbErr(err, "create submission", "", "You already have a submission for this period.")
}

// ReopenSubmissions submits again the partner's submissions rejected with
// note (those a ban rejected, when the partner is unbanned).
func (db *DB) ReopenSubmissions(ctx context.Context, workspaceID, programID, partnerID, note string, now time.Time) error {
	err := db.WithContext(ctx).Model(&BountySubmission{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND status = ? AND rejection_note = ?", workspaceID, programID, partnerID, SubmissionRejected, note).
		Updates(map[string]any{"status": SubmissionSubmitted, "rejection_reason": nil, "rejection_note": nil, "reviewed_at": nil, "updated_at": now.UTC()}).Error
	return dbErr(err, "reopen submissions", "", "")
}
