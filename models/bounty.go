package models

import (
	"context"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

// Bounty types: a performance bounty is earned by reaching a sale-earnings
// goal within the bounty's window; a submission bounty by proof (links, a
// description) the partner submits and the program approves.
const (
	BountyPerformance = "performance"
	BountyProof       = "submission"
)

// Bounty is a bonus a program offers its partners (spec/partners-and-embed.md
// §6.5 Bounties): partners of its group (or of every group when GroupID is
// nil) who earn GoalEarnings in sale commissions between StartsAt and EndsAt
// receive RewardAmount.
type Bounty struct {
	ID           string `gorm:"primaryKey"`
	WorkspaceID  string
	ProgramID    string
	GroupID      *string
	Name         string
	Description  *string
	Type         string
	RewardAmount int64 // cents; 0 on a submission bounty: the reviewer sets it
	GoalEarnings int64 // cents of sale commissions (performance bounties)
	// RewardDescription describes a reward without a fixed amount.
	RewardDescription *string
	StartsAt          time.Time
	EndsAt            *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// TableName pins the table.
func (Bounty) TableName() string { return "bounties" }

// Validate checks a bounty before it is stored.
func (b *Bounty) Validate() error {
	switch {
	case strings.TrimSpace(b.Name) == "":
		return apierr.Validation("too_small", "name", "Name is required.")
	case b.Type != BountyPerformance && b.Type != BountyProof:
		return apierr.Validation("invalid_value", "type", `Invalid option: expected one of "performance"|"submission"`)
	case b.RewardAmount < 0 || (b.RewardAmount == 0 && b.Type == BountyPerformance):
		return apierr.Validation("too_small", "rewardAmount", "The reward must be more than 0.")
	case b.GoalEarnings <= 0 && b.Type == BountyPerformance:
		return apierr.Validation("too_small", "goalEarnings", "The goal must be more than 0.")
	case b.EndsAt != nil && !b.EndsAt.After(b.StartsAt):
		return apierr.Validation("custom", "endsAt", "The end must be after the start.")
	}
	return nil
}

// CreateBounty stores a new performance bounty in the program.
func (db *DB) CreateBounty(ctx context.Context, b *Bounty, now time.Time) error {
	if b.ID == "" {
		b.ID = ids.New(ids.Bounty)
	}
	if b.Type == "" {
		b.Type = BountyPerformance
	}
	if err := b.Validate(); err != nil {
		return err
	}
	b.CreatedAt, b.UpdatedAt = now.UTC(), now.UTC()
	b.StartsAt = b.StartsAt.UTC()
	if b.EndsAt != nil {
		t := b.EndsAt.UTC()
		b.EndsAt = &t
	}
	return dbErr(db.WithContext(ctx).Create(b).Error, "create bounty", "", "")
}

// ActiveBounties lists the bounties open to a group's partners at now:
// started, not ended, for the group or every group; ending soonest first.
func (db *DB) ActiveBounties(ctx context.Context, workspaceID, programID string, groupID *string, now time.Time) ([]Bounty, error) {
	q := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND starts_at <= ? AND (ends_at IS NULL OR ends_at > ?)",
		workspaceID, programID, now.UTC(), now.UTC())
	if groupID != nil {
		q = q.Where("group_id IS NULL OR group_id = ?", *groupID)
	} else {
		q = q.Where("group_id IS NULL")
	}
	var out []Bounty
	err := q.Order("CASE WHEN ends_at IS NULL THEN 1 ELSE 0 END, ends_at, starts_at, id").Find(&out).Error
	return out, dbErr(err, "list active bounties", "", "")
}
