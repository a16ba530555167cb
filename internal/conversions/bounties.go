package conversions

import (
	"context"
	"fmt"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// SubmissionInput is a partner's bounty submission (the embed's Bounties tab).
type SubmissionInput struct {
	Description *string
	URLs        []string
	// IsDraft saves the submission as a draft (spec/parity.md §7.3): kept for
	// the partner to finish, not completed, not reviewable, replaced by
	// the final submission of the same period.
	IsDraft bool
}

// BountyProgress is the partner's sale commission earnings inside a
// performance bounty's window so far.
func (s *Service) BountyProgress(ctx context.Context, b *models.Bounty, partnerID string) (int64, error) {
	end := s.now().Add(time.Second)
	if b.EndsAt != nil && b.EndsAt.Before(end) {
		end = *b.EndsAt
	}
	points, err := s.DB.PartnerSaleEarnings(ctx, b.WorkspaceID, b.ProgramID, partnerID, b.StartsAt, end, "")
	if err != nil {
		return 0, err
	}
	var total int64
	for _, p := range points {
		total += p.Earnings
	}
	return total, nil
}

// SubmitBounty stores a partner's final submission for an active bounty of
// its group (spec/parity.md §7.3): proof for a submission bounty, a claim for a
// performance bounty whose goal is reached; with IsDraft, a draft that
// needs neither yet. One per (bounty, partner); a draft is overwritten.
func (s *Service) SubmitBounty(ctx context.Context, e *models.Enrollment, bountyID string, in SubmissionInput) (*models.BountySubmission, error) {
	if e.Status != models.EnrollmentApproved && e.Status != models.EnrollmentArchived {
		return nil, apierr.New(apierr.Forbidden, "You are not an active partner of this program.")
	}
	now := s.now()
	bs, err := s.DB.ActiveBounties(ctx, e.WorkspaceID, e.ProgramID, e.GroupID, now)
	if err != nil {
		return nil, err
	}
	var b *models.Bounty
	for i := range bs {
		if bs[i].ID == bountyID {
			b = &bs[i]
		}
	}
	if b == nil {
		return nil, apierr.Newf(apierr.NotFound, "Bounty %s not found.", bountyID)
	}
	sub := &models.BountySubmission{ID: ids.New(models.SubmissionPrefix), WorkspaceID: e.WorkspaceID, ProgramID: e.ProgramID,
		BountyID: b.ID, PartnerID: e.PartnerID, Status: models.SubmissionSubmitted, PeriodNumber: 1, Description: in.Description,
		CompletedAt: &now, CreatedAt: now, UpdatedAt: now}
	if in.IsDraft {
		sub.Status, sub.CompletedAt = models.SubmissionDraft, nil
	}
	if b.Type == models.BountyPerformance {
		progress, err := s.BountyProgress(ctx, b, e.PartnerID)
		if err != nil {
			return nil, err
		}
		if progress < b.GoalEarnings && !in.IsDraft {
			return nil, apierr.New(apierr.BadRequest, "You have not reached this bounty's goal yet.")
		}
		sub.PerformanceCount = &progress
	} else {
		if !in.IsDraft && len(in.URLs) == 0 && (in.Description == nil || *in.Description == "") {
			return nil, apierr.Validation("custom", "urls", "Add a link or a description of what you did.")
		}
		sub.URLs = models.Some(in.URLs)
	}
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		existing, err := tx.PartnerSubmissions(ctx, e.WorkspaceID, e.ProgramID, e.PartnerID)
		if err != nil {
			return err
		}
		if prev := existing[b.ID]; prev != nil {
			if prev.Status != models.SubmissionDraft {
				return apierr.Newf(apierr.Conflict, "You already have a %s submission for this period.", prev.Status)
			}
			sub.ID, sub.CreatedAt = prev.ID, prev.CreatedAt
			return tx.SaveSubmission(ctx, sub)
		}
		return tx.CreateSubmission(ctx, sub)
	})
	if err != nil {
		return nil, err
	}
	return sub, nil
}

// reviewedSubmission loads a submission for review with §7.5's checks 2-5.
func (s *Service) reviewedSubmission(ctx context.Context, tx *models.DB, ws *models.Workspace, bountyID, submissionID string) (*models.Program, *models.Bounty, *models.BountySubmission, error) {
	prog, err := tx.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := tx.BountyByID(ctx, ws.ID, prog.ID, bountyID)
	if err != nil {
		return nil, nil, nil, err
	}
	sub, err := tx.SubmissionByID(ctx, ws.ID, submissionID)
	if err != nil {
		return nil, nil, nil, err
	}
	if sub.ProgramID != prog.ID {
		return nil, nil, nil, apierr.Newf(apierr.NotFound, "Bounty submission %s does not belong to program %s.", submissionID, prog.ID)
	}
	if sub.BountyID != b.ID {
		return nil, nil, nil, apierr.Newf(apierr.NotFound, "Bounty submission %s not found for bounty %s.", submissionID, bountyID)
	}
	return prog, b, sub, nil
}

// ApproveSubmission approves a submission (spec/parity.md §7.5) and, in the same
// transaction, creates the custom commission that pays its reward: the
// bounty's amount, or rewardAmount when the bounty has none.
func (s *Service) ApproveSubmission(ctx context.Context, ws *models.Workspace, bountyID, submissionID string, rewardAmount *int64, reviewer *string) (*models.BountySubmission, error) {
	var out *models.BountySubmission
	var progID string
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		prog, b, sub, err := s.reviewedSubmission(ctx, tx, ws, bountyID, submissionID)
		if err != nil {
			return err
		}
		progID = prog.ID
		switch sub.Status {
		case models.SubmissionDraft:
			return apierr.New(apierr.BadRequest, "This bounty submission is in progress and cannot be approved.")
		case models.SubmissionApproved:
			return apierr.New(apierr.BadRequest, "This bounty submission has already been approved.")
		}
		reward := b.RewardAmount
		if reward == 0 && rewardAmount != nil {
			reward = *rewardAmount
		}
		if reward <= 0 {
			return apierr.New(apierr.BadRequest, "Reward amount is required to approve the bounty submission.")
		}
		now := s.now()
		desc := fmt.Sprintf("Commission for successfully completed %q bounty.", b.Name)
		cm := &models.Commission{ID: ids.New(ids.Commission), WorkspaceID: ws.ID, ProgramID: prog.ID, PartnerID: sub.PartnerID,
			Type: models.CommissionCustom, Earnings: reward, Currency: "usd", Status: models.CommissionPending, Quantity: 1,
			Description: &desc, UserID: reviewer, CreatedAt: now, UpdatedAt: now}
		if _, err := tx.InsertCommission(ctx, cm); err != nil {
			return err
		}
		if err := tx.AddTotalCommissions(ctx, ws.ID, prog.ID, sub.PartnerID, reward); err != nil {
			return err
		}
		// commission.created (spec/webhooks.md §3.8), in the approval's transaction.
		if err := s.emitCommission(ctx, tx, cm, nil, nil); err != nil {
			return err
		}
		sub.Status, sub.ReviewedAt, sub.UserID, sub.CommissionID, sub.UpdatedAt = models.SubmissionApproved, &now, reviewer, &cm.ID, now
		sub.RejectionReason, sub.RejectionNote = nil, nil
		out = sub
		return tx.SaveSubmission(ctx, sub)
	})
	if err != nil {
		return nil, err
	}
	if _, err := s.DB.AggregateProgram(ctx, ws.ID, progID, s.now()); err != nil {
		s.Log.Error("aggregate after bounty approval", "program", progID, "err", err)
	}
	return out, nil
}

// RejectSubmission rejects a submission (spec/parity.md §7.6).
func (s *Service) RejectSubmission(ctx context.Context, ws *models.Workspace, bountyID, submissionID, reason string, note *string, reviewer *string) (*models.BountySubmission, error) {
	var out *models.BountySubmission
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		_, _, sub, err := s.reviewedSubmission(ctx, tx, ws, bountyID, submissionID)
		if err != nil {
			return err
		}
		switch sub.Status {
		case models.SubmissionDraft:
			return apierr.New(apierr.BadRequest, "This bounty submission is in progress and cannot be rejected.")
		case models.SubmissionRejected:
			return apierr.New(apierr.BadRequest, "This bounty submission has already been rejected.")
		case models.SubmissionApproved:
			return apierr.New(apierr.BadRequest, "This bounty submission has already been approved and cannot be rejected.")
		}
		now := s.now()
		sub.Status, sub.ReviewedAt, sub.UserID, sub.UpdatedAt = models.SubmissionRejected, &now, reviewer, now
		sub.RejectionReason, sub.RejectionNote, sub.CommissionID = &reason, note, nil
		out = sub
		return tx.SaveSubmission(ctx, sub)
	})
	return out, err
}

// CreateBounty stores a new bounty in the workspace's program and emits
// bounty.created in the same transaction (spec/webhooks.md §3.10).
func (s *Service) CreateBounty(ctx context.Context, b *models.Bounty) error {
	return s.DB.Tx(ctx, func(tx *models.DB) error {
		if err := tx.CreateBounty(ctx, b, s.now()); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, b.WorkspaceID, webhooks.BountyCreated, wire.BountyOf(b))
	})
}

// UpdateBounty applies edit to the workspace's bounty id, validates and
// stores it, and emits bounty.updated in the same transaction. The type,
// program and workspace cannot change.
func (s *Service) UpdateBounty(ctx context.Context, workspaceID, id string, edit func(*models.Bounty) error) (*models.Bounty, error) {
	var out models.Bounty
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		if err := tx.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&out).Error; err != nil {
			if models.IsNotFound(err) {
				return apierr.Newf(apierr.NotFound, "Bounty %s not found.", id)
			}
			return fmt.Errorf("load bounty %s: %w", id, err)
		}
		kept := out
		if err := edit(&out); err != nil {
			return err
		}
		out.ID, out.WorkspaceID, out.ProgramID, out.Type, out.CreatedAt = kept.ID, kept.WorkspaceID, kept.ProgramID, kept.Type, kept.CreatedAt
		if err := out.Validate(); err != nil {
			return err
		}
		out.UpdatedAt = s.now().UTC()
		if err := tx.WithContext(ctx).Save(&out).Error; err != nil {
			return fmt.Errorf("update bounty %s: %w", id, err)
		}
		return webhooks.Emit(ctx, tx, workspaceID, webhooks.BountyUpdated, wire.BountyOf(&out))
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
