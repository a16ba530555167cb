package console

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// partnerActions are the status changes an enrollment's status allows
// (the services refuse the others).
func partnerActions(status string) []vc.PartnerAction {
	approve := vc.PartnerAction{Status: models.EnrollmentApproved, Label: "Approve", TestID: "partner-approve"}
	deactivate := vc.PartnerAction{Status: models.EnrollmentDeactivated, Label: "Deactivate", TestID: "partner-deactivate",
		Confirm: "Deactivate this partner? Their links expire now and they earn no new commissions; what they earned stays."}
	ban := vc.PartnerAction{Status: models.EnrollmentBanned, Label: "Ban", TestID: "partner-ban", Danger: true,
		Confirm: "Ban this partner? Their links are disabled and their pending commissions and payouts canceled."}
	for _, r := range conversions.BanReasons {
		ban.Reasons = append(ban.Reasons, vc.Option{Value: r, Label: conversions.BanReasonLabels[r]})
	}
	switch status {
	case models.EnrollmentPending:
		return []vc.PartnerAction{approve, {Status: models.EnrollmentRejected, Label: "Reject", TestID: "partner-reject", Danger: true}}
	case models.EnrollmentRejected:
		return []vc.PartnerAction{approve}
	case models.EnrollmentApproved:
		return []vc.PartnerAction{{Status: models.EnrollmentArchived, Label: "Archive", TestID: "partner-archive"}, deactivate, ban}
	case models.EnrollmentArchived:
		return []vc.PartnerAction{{Status: models.EnrollmentApproved, Label: "Unarchive", TestID: "partner-unarchive"}, deactivate, ban}
	case models.EnrollmentDeactivated:
		return []vc.PartnerAction{{Status: models.EnrollmentApproved, Label: "Reactivate", TestID: "partner-reactivate"}, ban}
	case models.EnrollmentBanned:
		return []vc.PartnerAction{{Status: models.EnrollmentApproved, Label: "Unban", TestID: "partner-unban",
			Confirm: "Unban this partner? Their links work again and their canceled commissions and payouts are pending again."}}
	}
	return nil
}

// enrollmentActions are the statuses an owner sets from the partner list.
var enrollmentActions = []string{models.EnrollmentApproved, models.EnrollmentDeactivated, models.EnrollmentBanned, models.EnrollmentArchived}

// SetPartnerStatus changes an enrollment's status through the service that
// makes that change with its effects (the API's ban, deactivate and
// application approval, and reactivate, unban and archive as Dub's
// dashboard has them). Asking for the status the enrollment has changes
// nothing. With next=partner it returns to the partner's page.
func (h *Handlers) SetPartnerStatus(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws, user := viewer(c).Workspace, viewer(c).User.ID
	to := c.FormValue("status")
	p, err := h.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return err
	}
	e, err := h.DB.EnrollmentByPartner(ctx, ws.ID, p.ID, c.Params("id"))
	if err != nil {
		return err
	}
	sel := conversions.PartnerSelector{PartnerID: e.PartnerID}
	switch {
	case to == e.Status:
	case to == models.EnrollmentBanned:
		reason := c.FormValue("reason")
		if reason == "" {
			reason = "tos_violation"
		}
		if labelOr(conversions.BanReasonLabels, reason) == reason {
			return apierr.Validation("invalid_value", "reason", "Choose one of the ban reasons.")
		}
		_, err = h.Conversions.BanPartner(ctx, ws, sel, reason)
	case to == models.EnrollmentDeactivated:
		_, err = h.Conversions.DeactivatePartner(ctx, ws, sel)
	case to == models.EnrollmentArchived:
		err = h.Conversions.ArchivePartner(ctx, ws, sel, true)
	case to == models.EnrollmentRejected && e.Status == models.EnrollmentPending:
		err = h.Conversions.RejectApplication(ctx, ws, conversions.RejectInput{PartnerID: e.PartnerID, ReapplicationTimeframe: "standard", Reviewer: &user})
	case to != models.EnrollmentApproved:
		return apierr.Validation("invalid_value", "status", "Choose approved, deactivated, banned or archived.")
	case e.Status == models.EnrollmentPending || e.Status == models.EnrollmentRejected:
		err = h.Conversions.ApproveApplication(ctx, ws, e.PartnerID, "", &user)
	case e.Status == models.EnrollmentDeactivated:
		_, err = h.Conversions.ReactivatePartner(ctx, ws, sel)
	case e.Status == models.EnrollmentBanned:
		_, err = h.Conversions.UnbanPartner(ctx, ws, sel)
	case e.Status == models.EnrollmentArchived:
		err = h.Conversions.ArchivePartner(ctx, ws, sel, false)
	default:
		err = apierr.Newf(apierr.BadRequest, "A partner whose status is %q cannot be approved here.", e.Status)
	}
	if err != nil {
		return err
	}
	if c.FormValue("next") == "partner" {
		return redirect(c, route.URL(route.Partner, e.PartnerID))
	}
	return redirect(c, route.URL(route.Partners))
}
