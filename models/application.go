package models

import (
	"context"
	"time"
)

// ApplicationAnswer is one answer of an application form: what the
// application object's applicationFormData lists (spec/parity.md §5.3).
type ApplicationAnswer struct {
	Label string  `json:"label"`
	Value *string `json:"value"`
}

// ProgramApplication is a submission of the program's public application
// page (`pga_`), linked to the pending enrollment it created.
type ProgramApplication struct {
	ID                     string `gorm:"primaryKey"`
	WorkspaceID            string
	ProgramID              string
	PartnerID              string
	GroupID                *string
	Name                   string
	Email                  string
	Country                *string
	Website                *string
	Youtube                *string
	Twitter                *string
	Linkedin               *string
	Instagram              *string
	Tiktok                 *string
	FormData               JSONCol[[]ApplicationAnswer]
	ReviewedAt             *time.Time
	ReviewedBy             *string
	RejectionReason        *string
	RejectionNote          *string
	ReapplicationTimeframe *string
	CreatedAt              time.Time
	UpdatedAt              time.Time
}

// TableName pins the table.
func (ProgramApplication) TableName() string { return "program_applications" }

// ApplicationPrefix starts every application id.
const ApplicationPrefix = "pga_"

// PendingApplication is a pending enrollment with its application and partner.
type PendingApplication struct {
	Application ProgramApplication
	Enrollment  Enrollment
	Partner     Partner
}

// ApplicationQuery filters GET /partners/applications (§5.4).
type ApplicationQuery struct {
	Country, GroupID string
	Limit, Offset    int
}

// ListPendingApplications lists the program's pending enrollments that have
// an application, newest enrollment first.
func (db *DB) ListPendingApplications(ctx context.Context, workspaceID, programID string, q ApplicationQuery) ([]PendingApplication, error) {
	tx := db.WithContext(ctx).Table("program_enrollments AS e").Select("e.*").
		Joins("JOIN partners p ON p.id = e.partner_id AND p.workspace_id = e.workspace_id").
		Where("e.workspace_id = ? AND e.program_id = ? AND e.status = ? AND e.application_id IS NOT NULL", workspaceID, programID, EnrollmentPending)
	if q.Country != "" {
		tx = tx.Where("p.country = ?", q.Country)
	}
	if q.GroupID != "" {
		tx = tx.Where("e.group_id = ?", q.GroupID)
	}
	if q.Limit > 0 {
		tx = tx.Limit(q.Limit).Offset(q.Offset)
	}
	var ens []Enrollment
	if err := tx.Order("e.created_at DESC, e.id DESC").Scan(&ens).Error; err != nil {
		return nil, dbErr(err, "list applications", "", "")
	}
	out := make([]PendingApplication, 0, len(ens))
	if len(ens) == 0 {
		return out, nil
	}
	appIDs, partnerIDs := make([]string, len(ens)), make([]string, len(ens))
	for i := range ens {
		appIDs[i], partnerIDs[i] = *ens[i].ApplicationID, ens[i].PartnerID
	}
	var apps []ProgramApplication
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, appIDs).Find(&apps).Error; err != nil {
		return nil, dbErr(err, "load applications", "", "")
	}
	byID := map[string]ProgramApplication{}
	for _, a := range apps {
		byID[a.ID] = a
	}
	partners, err := db.PartnersByID(ctx, workspaceID, partnerIDs)
	if err != nil {
		return nil, err
	}
	for _, e := range ens {
		a, ok := byID[*e.ApplicationID]
		p := partners[e.PartnerID]
		if !ok || p == nil {
			continue
		}
		out = append(out, PendingApplication{Application: a, Enrollment: e, Partner: *p})
	}
	return out, nil
}

// ApplicationByID loads an application of the workspace.
func (db *DB) ApplicationByID(ctx context.Context, workspaceID, id string) (*ProgramApplication, error) {
	var a ProgramApplication
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&a).Error
	return &a, dbErr(err, "get application", "Application not found.", "")
}

// UpdateApplication writes review columns of an application.
func (db *DB) UpdateApplication(ctx context.Context, workspaceID, id string, set map[string]any) error {
	err := db.WithContext(ctx).Model(&ProgramApplication{}).Where("workspace_id = ? AND id = ?", workspaceID, id).Updates(set).Error
	return dbErr(err, "update application", "Application not found.", "")
}

// DeleteEnrollment removes an enrollment (an application rejected with
// reapplication "instant").
func (db *DB) DeleteEnrollment(ctx context.Context, e *Enrollment) error {
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", e.WorkspaceID, e.ID).Delete(&Enrollment{}).Error
	return dbErr(err, "delete enrollment", "", "")
}
