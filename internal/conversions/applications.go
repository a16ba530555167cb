package conversions

import (
	"context"
	"fmt"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// ApplicationInput is a submission of the public application page (spec/parity.md
// §5.2, Relink's own intake).
type ApplicationInput struct {
	Name     string
	Email    string
	Country  *string
	Website  *string
	Socials  map[string]string // youtube, twitter, linkedin, instagram, tiktok → handle or URL
	Answers  []models.ApplicationAnswer
	GroupSel string // group id or slug; "" = the program's default group
}

// Messages of the application page and review.
const (
	MsgApplicationsClosed = "This program is no longer accepting applications."
	MsgAlreadyApplied     = "You have already applied to this program."
	MsgEnrollmentNotFound = "Program enrollment not found."
)

// SubmitApplication stores an application and the partner's pending
// enrollment (the partner is created when the e-mail is new) in one
// transaction, and returns the application.
func (s *Service) SubmitApplication(ctx context.Context, ws *models.Workspace, prog *models.Program, in ApplicationInput) (*models.ProgramApplication, error) {
	if prog.ApplicationsOpenAt == nil {
		return nil, apierr.New(apierr.Forbidden, MsgApplicationsClosed)
	}
	var app *models.ProgramApplication
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		sel := in.GroupSel
		if sel == "" && prog.DefaultGroupID != nil {
			sel = *prog.DefaultGroupID
		}
		g, err := tx.GroupByIDOrSlug(ctx, ws.ID, prog.ID, sel)
		if err != nil {
			return err
		}
		now := s.now()
		name := in.Name
		p, err := s.partnerByEmailOrCreate(ctx, tx, ws, EnrollInput{Email: in.Email, Name: &name, Country: in.Country}, now)
		if err != nil {
			return err
		}
		if _, err := tx.EnrollmentByPartner(ctx, ws.ID, prog.ID, p.ID); err == nil {
			return apierr.New(apierr.Conflict, MsgAlreadyApplied)
		} else if !models.IsNotFound(err) {
			return err
		}
		app = &models.ProgramApplication{
			ID: ids.New(models.ApplicationPrefix), WorkspaceID: ws.ID, ProgramID: prog.ID, PartnerID: p.ID, GroupID: &g.ID,
			Name: in.Name, Email: strings.TrimSpace(in.Email), Country: in.Country, Website: in.Website,
			FormData: models.Some(in.Answers), CreatedAt: now, UpdatedAt: now,
		}
		for k, v := range in.Socials {
			v := v
			switch k {
			case "youtube":
				app.Youtube = &v
			case "twitter":
				app.Twitter = &v
			case "linkedin":
				app.Linkedin = &v
			case "instagram":
				app.Instagram = &v
			case "tiktok":
				app.Tiktok = &v
			}
		}
		if err := tx.WithContext(ctx).Create(app).Error; err != nil {
			return err
		}
		e := &models.Enrollment{
			ID: ids.New(ids.Enrollment), WorkspaceID: ws.ID, ProgramID: prog.ID, PartnerID: p.ID, GroupID: &g.ID,
			Status: models.EnrollmentPending, ApplicationID: &app.ID,
			ClickRewardID: g.ClickRewardID, LeadRewardID: g.LeadRewardID, SaleRewardID: g.SaleRewardID,
			ReferralRewardID: g.ReferralRewardID, DiscountID: g.DiscountID, CreatedAt: now, UpdatedAt: now,
		}
		created, err := tx.CreateEnrollmentIfAbsent(ctx, e)
		if err != nil {
			return err
		}
		if !created {
			return apierr.New(apierr.Conflict, MsgAlreadyApplied)
		}
		// partner.application_submitted (spec/webhooks.md §3.6), with the
		// enrollment it creates.
		return webhooks.Emit(ctx, tx, ws.ID, webhooks.PartnerApplicationSubmitted, wire.ApplicationSubmittedOf(app, p))
	})
	return app, err
}

// ApproveApplication approves a pending or rejected enrollment (spec/parity.md
// §5.5): approved from now, in the group given (or its own, or the
// program's default) with that group's rewards; the application is marked
// reviewed. The group's default links are created after the commit.
func (s *Service) ApproveApplication(ctx context.Context, ws *models.Workspace, partnerID, groupSel string, reviewer *string) error {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return err
	}
	var res *enrolled
	var p *models.Partner
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		e, err := tx.EnrollmentByPartner(ctx, ws.ID, prog.ID, partnerID)
		if models.IsNotFound(err) {
			return apierr.New(apierr.NotFound, MsgEnrollmentNotFound)
		}
		if err != nil {
			return err
		}
		if e.Status != models.EnrollmentPending && e.Status != models.EnrollmentRejected {
			return apierr.Newf(apierr.BadRequest, "This enrollment cannot be approved because it is already %s.", e.Status)
		}
		sel := groupSel
		for _, alt := range []*string{e.GroupID, prog.DefaultGroupID} {
			if sel == "" && alt != nil {
				sel = *alt
			}
		}
		if sel == "" {
			return apierr.New(apierr.NotFound, "No group ID provided and no default group ID found in the program.")
		}
		g, err := tx.GroupByIDOrSlug(ctx, ws.ID, prog.ID, sel)
		if err != nil {
			return err
		}
		now := s.now()
		set := map[string]any{"status": models.EnrollmentApproved, "group_id": g.ID, "created_at": now, "updated_at": now,
			"click_reward_id": g.ClickRewardID, "lead_reward_id": g.LeadRewardID, "sale_reward_id": g.SaleRewardID,
			"referral_reward_id": g.ReferralRewardID, "discount_id": g.DiscountID}
		if err := tx.UpdateEnrollment(ctx, e, set); err != nil {
			return err
		}
		if e.ApplicationID != nil {
			if err := tx.UpdateApplication(ctx, ws.ID, *e.ApplicationID, map[string]any{"reviewed_at": now, "reviewed_by": reviewer,
				"rejection_reason": nil, "rejection_note": nil, "reapplication_timeframe": nil, "updated_at": now}); err != nil {
				return err
			}
		}
		if p, err = tx.PartnerByID(ctx, ws.ID, e.PartnerID); err != nil {
			return err
		}
		// The group's default links, then partner.enrolled
		// (spec/webhooks.md §3.7: "their application was approved") carrying them, in the
		// approval's transaction.
		res = &enrolled{e: e, group: g}
		return s.welcome(ctx, tx, ws, prog, res, EnrollInput{Email: p.Email, Name: &p.Name, Username: p.Username})
	})
	if err == nil && s.Applicants != nil {
		if merr := s.Applicants.ApplicationApproved(ctx, prog, p); merr != nil {
			s.Log.Error("application approved, partner not told", "partner", p.ID, "err", merr)
		}
	}
	return err
}

// RejectInput is a validated POST /partners/applications/reject body.
type RejectInput struct {
	PartnerID              string
	RejectionReason        *string
	RejectionNote          *string
	ReapplicationTimeframe string // instant | standard | never
	FlagForFraud           bool
	FlagForFraudReason     *string
	Reviewer               *string
}

// RejectApplication rejects a pending enrollment (spec/parity.md §5.6). With
// "instant" the enrollment is deleted so the partner may apply again; the
// application keeps the review either way.
func (s *Service) RejectApplication(ctx context.Context, ws *models.Workspace, in RejectInput) error {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return err
	}
	if in.FlagForFraud && in.ReapplicationTimeframe == "instant" {
		return apierr.New(apierr.BadRequest, "Cannot flag for fraud when allowing the partner to reapply immediately.")
	}
	if in.FlagForFraud && (in.FlagForFraudReason == nil || strings.TrimSpace(*in.FlagForFraudReason) == "") {
		return apierr.New(apierr.BadRequest, "Fraud reason is required when flagging for fraud.")
	}
	var p *models.Partner
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		e, err := tx.EnrollmentByPartner(ctx, ws.ID, prog.ID, in.PartnerID)
		if models.IsNotFound(err) {
			return apierr.New(apierr.NotFound, MsgEnrollmentNotFound)
		}
		if err != nil {
			return err
		}
		if e.Status != models.EnrollmentPending {
			return apierr.New(apierr.BadRequest, "This enrollment cannot be rejected because it is no longer pending.")
		}
		if p, err = tx.PartnerByID(ctx, ws.ID, e.PartnerID); err != nil {
			return err
		}
		now := s.now()
		if e.ApplicationID != nil {
			if err := tx.UpdateApplication(ctx, ws.ID, *e.ApplicationID, map[string]any{"reviewed_at": now, "reviewed_by": in.Reviewer,
				"rejection_reason": in.RejectionReason, "rejection_note": in.RejectionNote,
				"reapplication_timeframe": in.ReapplicationTimeframe, "updated_at": now}); err != nil {
				return err
			}
		}
		if in.ReapplicationTimeframe == "instant" {
			return tx.DeleteEnrollment(ctx, e)
		}
		set := clearedRewards()
		set["status"], set["updated_at"] = models.EnrollmentRejected, now
		return tx.UpdateEnrollment(ctx, e, set)
	})
	if err == nil && s.Applicants != nil {
		if merr := s.Applicants.ApplicationRejected(ctx, prog, p); merr != nil {
			s.Log.Error("application rejected, partner not told", "partner", p.ID, "err", merr)
		}
	}
	return err
}

// OpenApplications opens (or closes) the program's public application page.
func (s *Service) OpenApplications(ctx context.Context, prog *models.Program, open bool) error {
	now := s.now()
	openAt, closedAt := prog.ApplicationsOpenAt, prog.ApplicationsClosedAt
	switch {
	case open && openAt == nil:
		openAt, closedAt = &now, nil
	case !open && openAt != nil:
		openAt, closedAt = nil, &now // "applications are closed" from now on
	}
	err := s.DB.WithContext(ctx).Model(&models.Program{}).Where("workspace_id = ? AND id = ?", prog.WorkspaceID, prog.ID).
		Updates(map[string]any{"applications_open_at": openAt, "applications_closed_at": closedAt, "updated_at": now}).Error
	if err != nil {
		return fmt.Errorf("open applications: %w", err)
	}
	prog.ApplicationsOpenAt, prog.ApplicationsClosedAt = openAt, closedAt
	return nil
}
