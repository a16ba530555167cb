package conversions

import (
	"context"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// BanReasons are POST /partners/ban's reasons (spec/parity.md §6.1).
var BanReasons = []string{"tos_violation", "inappropriate_content", "fake_traffic", "fraud", "spam", "brand_abuse"}

// BanReasonLabels name the reasons in the console.
var BanReasonLabels = map[string]string{
	"tos_violation": "Terms of Service Violation", "inappropriate_content": "Inappropriate or Offensive Content",
	"fake_traffic": "Artificial Traffic Generation", "fraud": "Fraudulent Activity", "spam": "Spam or Misleading Content",
	"brand_abuse": "Brand Abuse or Trademark Violations",
}

// MsgBannedSubmission is the note on bounty submissions rejected by a ban.
const MsgBannedSubmission = "Rejected automatically because the partner was banned."

// programEnrollment resolves the partner selector of ban and deactivate
// (§6.1 checks 2-5) with their messages.
func (s *Service) programEnrollment(ctx context.Context, db *models.DB, ws *models.Workspace, sel PartnerSelector) (*models.Program, *models.Enrollment, error) {
	if sel.PartnerID == "" && sel.TenantID == "" {
		return nil, nil, apierr.New(apierr.BadRequest, "Either `partnerId` or `tenantId` must be provided.")
	}
	prog, err := db.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return nil, nil, err
	}
	partnerID := sel.PartnerID
	if partnerID == "" {
		e, err := db.EnrollmentByTenant(ctx, ws.ID, prog.ID, sel.TenantID)
		if models.IsNotFound(err) {
			return nil, nil, apierr.Newf(apierr.NotFound, "Partner with tenantId %s not found in program.", sel.TenantID)
		}
		if err != nil {
			return nil, nil, err
		}
		partnerID = e.PartnerID
	}
	e, err := db.EnrollmentByPartner(ctx, ws.ID, prog.ID, partnerID)
	if models.IsNotFound(err) {
		return nil, nil, apierr.Newf(apierr.NotFound, "Partner %s is not enrolled in program %s.", partnerID, prog.ID)
	}
	return prog, e, err
}

// BanPartner bans a partner from the program (§6.1) in one transaction:
// the enrollment, its links (disabled and expired), bounty submissions not
// approved (rejected), pending payouts (canceled), pending, held or unpaid
// commissions (canceled) and discount codes (detached and disabled, with
// discount_code.deleted). It returns the partner id.
func (s *Service) BanPartner(ctx context.Context, ws *models.Workspace, sel PartnerSelector, reason string) (string, error) {
	var ls []models.Link
	var partnerID string
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		prog, e, err := s.programEnrollment(ctx, tx, ws, sel)
		if err != nil {
			return err
		}
		switch e.Status {
		case models.EnrollmentPending:
			return apierr.New(apierr.BadRequest, "This partner is not approved yet to be banned.")
		case models.EnrollmentBanned:
			return apierr.New(apierr.BadRequest, "This partner is already banned from your program.")
		}
		partnerID = e.PartnerID
		now := s.now()
		set := clearedRewards()
		set["status"], set["banned_at"], set["banned_reason"], set["updated_at"] = models.EnrollmentBanned, now, reason, now
		if err := tx.UpdateEnrollment(ctx, e, set); err != nil {
			return err
		}
		if ls, err = tx.PartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID); err != nil {
			return err
		}
		if err := tx.ExpirePartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID, true, now); err != nil {
			return err
		}
		if err := tx.RejectOpenSubmissions(ctx, ws.ID, prog.ID, e.PartnerID, MsgBannedSubmission, now); err != nil {
			return err
		}
		if err := tx.CancelPartnerEarnings(ctx, ws.ID, prog.ID, e.PartnerID, now); err != nil {
			return err
		}
		if err := disablePartnerCodes(ctx, tx, ws, prog.ID, e.PartnerID, true, now); err != nil {
			return err
		}
		return tx.RecomputeTotalCommissions(ctx, ws.ID, prog.ID, e.PartnerID)
	})
	if err != nil {
		return "", err
	}
	s.flushLinks(ls)
	return partnerID, nil
}

// DeactivatePartner deactivates an approved or archived partner (§6.2):
// rewards cleared, links without an expiry expired now and discount codes
// disabled (discount_code.deleted); commissions and payouts stay as they
// are. It returns the partner id.
func (s *Service) DeactivatePartner(ctx context.Context, ws *models.Workspace, sel PartnerSelector) (string, error) {
	var ls []models.Link
	var partnerID string
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		prog, e, err := s.programEnrollment(ctx, tx, ws, sel)
		if err != nil {
			return err
		}
		if e.Status != models.EnrollmentApproved && e.Status != models.EnrollmentArchived {
			return apierr.Newf(apierr.BadRequest, `Only partners with an "approved" or "archived" status can be deactivated. The partner's status in this program is "%s".`, e.Status)
		}
		partnerID = e.PartnerID
		now := s.now()
		set := clearedRewards()
		set["status"], set["updated_at"] = models.EnrollmentDeactivated, now
		if err := tx.UpdateEnrollment(ctx, e, set); err != nil {
			return err
		}
		if ls, err = tx.PartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID); err != nil {
			return err
		}
		if err := tx.ExpirePartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID, false, now); err != nil {
			return err
		}
		return disablePartnerCodes(ctx, tx, ws, prog.ID, e.PartnerID, false, now)
	})
	if err != nil {
		return "", err
	}
	s.flushLinks(ls)
	return partnerID, nil
}

func clearedRewards() map[string]any {
	return map[string]any{"click_reward_id": nil, "lead_reward_id": nil, "sale_reward_id": nil, "referral_reward_id": nil, "discount_id": nil}
}

// flushLinks drops changed links from the redirect's cache.
func (s *Service) flushLinks(ls []models.Link) {
	if s.Links == nil || s.Links.Cache == nil {
		return
	}
	for _, l := range ls {
		s.Links.Cache.Invalidate(l.Domain, l.Key)
	}
}

// ReactivatePartner approves a deactivated partner again (Dub's
// reactivatePartnerAction, the console's partner page): approved with its
// group's rewards (deactivation cleared them), and its links in the program
// without an expiry again. Discount codes deactivation deleted stay deleted.
// It returns the partner id.
func (s *Service) ReactivatePartner(ctx context.Context, ws *models.Workspace, sel PartnerSelector) (string, error) {
	return s.reapprove(ctx, ws, sel, models.EnrollmentDeactivated, "This partner is not deactivated.", nil,
		func(tx *models.DB, prog *models.Program, e *models.Enrollment, now time.Time) error {
			return tx.UnexpirePartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID, now)
		})
}

// reapprove moves an enrollment in status from back to approved with its
// group's rewards (and the extra columns set), then runs after in the same
// transaction; another status is a 400 with notMsg. The partner's links are
// flushed from the link cache afterwards. It returns the partner id.
func (s *Service) reapprove(ctx context.Context, ws *models.Workspace, sel PartnerSelector, from, notMsg string, extra map[string]any,
	after func(tx *models.DB, prog *models.Program, e *models.Enrollment, now time.Time) error) (string, error) {
	var ls []models.Link
	var partnerID string
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		prog, e, err := s.programEnrollment(ctx, tx, ws, sel)
		if err != nil {
			return err
		}
		if e.Status != from {
			return apierr.New(apierr.BadRequest, notMsg)
		}
		partnerID = e.PartnerID
		g, err := enrollmentGroup(ctx, tx, ws, prog, e)
		if err != nil {
			return err
		}
		now := s.now()
		set := map[string]any{"status": models.EnrollmentApproved, "updated_at": now}
		for k, v := range extra {
			set[k] = v
		}
		if g != nil {
			set["click_reward_id"], set["lead_reward_id"], set["sale_reward_id"] = g.ClickRewardID, g.LeadRewardID, g.SaleRewardID
			set["referral_reward_id"], set["discount_id"] = g.ReferralRewardID, g.DiscountID
		}
		if err := tx.UpdateEnrollment(ctx, e, set); err != nil {
			return err
		}
		if ls, err = tx.PartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID); err != nil {
			return err
		}
		return after(tx, prog, e, now)
	})
	if err != nil {
		return "", err
	}
	s.flushLinks(ls)
	return partnerID, nil
}

// enrollmentGroup is the enrollment's group, or the program's default; nil
// when it has neither.
func enrollmentGroup(ctx context.Context, tx *models.DB, ws *models.Workspace, prog *models.Program, e *models.Enrollment) (*models.Group, error) {
	for _, id := range []*string{e.GroupID, prog.DefaultGroupID} {
		if id != nil && *id != "" {
			return tx.GroupByIDOrSlug(ctx, ws.ID, prog.ID, *id)
		}
	}
	return nil, nil
}

// ArchivePartner archives an approved partner, or approves an archived one
// again (Dub's archivePartnerAction toggles the same two statuses): an
// archived partner keeps its links, rewards and earnings, and leaves the
// default views of the partner list.
func (s *Service) ArchivePartner(ctx context.Context, ws *models.Workspace, sel PartnerSelector, archived bool) error {
	return s.DB.Tx(ctx, func(tx *models.DB) error {
		_, e, err := s.programEnrollment(ctx, tx, ws, sel)
		if err != nil {
			return err
		}
		from, to := models.EnrollmentApproved, models.EnrollmentArchived
		if !archived {
			from, to = to, from
		}
		if e.Status != from {
			return apierr.Newf(apierr.BadRequest, `Only partners with an "%s" status can be set to "%s". The partner's status in this program is "%s".`, from, to, e.Status)
		}
		return tx.UpdateEnrollment(ctx, e, map[string]any{"status": to, "updated_at": s.now()})
	})
}

// UnbanPartner approves a banned partner again (Dub's unbanPartnerAction):
// approved with its group's rewards, its links enabled and without expiry,
// its canceled commissions pending again and its canceled payouts pending,
// and the bounty submissions the ban rejected submitted again. Discount
// codes the ban deleted stay deleted. It returns the partner id.
func (s *Service) UnbanPartner(ctx context.Context, ws *models.Workspace, sel PartnerSelector) (string, error) {
	return s.reapprove(ctx, ws, sel, models.EnrollmentBanned, "This partner is not banned.", map[string]any{"banned_at": nil, "banned_reason": nil},
		func(tx *models.DB, prog *models.Program, e *models.Enrollment, now time.Time) error {
			if err := tx.EnablePartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID, now); err != nil {
				return err
			}
			if err := tx.RestorePartnerEarnings(ctx, ws.ID, prog.ID, e.PartnerID, now); err != nil {
				return err
			}
			if err := tx.ReopenSubmissions(ctx, ws.ID, prog.ID, e.PartnerID, MsgBannedSubmission, now); err != nil {
				return err
			}
			return tx.RecomputeTotalCommissions(ctx, ws.ID, prog.ID, e.PartnerID)
		})
}
