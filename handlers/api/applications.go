package api

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// ListApplications answers GET /partners/applications (spec/parity.md §5.4).
func (h *Handlers) ListApplications(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100})
	if err != nil {
		return err
	}
	prog, err := h.DB.DefaultProgram(c.UserContext(), ws.ID)
	if err != nil {
		return err
	}
	list, err := h.DB.ListPendingApplications(c.UserContext(), ws.ID, prog.ID, models.ApplicationQuery{
		Country: Query(c, "country"), GroupID: Query(c, "groupId"), Limit: p.PageSize, Offset: p.Offset()})
	if err != nil {
		return err
	}
	out := make([]wire.ApplicationSubmittedData, len(list))
	for i := range list {
		out[i] = wire.PendingApplicationOf(&list[i])
	}
	return c.JSON(out)
}

func keyUser(c *fiber.Ctx) *string {
	if p := request.PrincipalOf(c); p != nil && p.Key != nil {
		return p.Key.UserID
	}
	return nil
}

// ApproveApplication answers POST /partners/applications/approve (§5.5).
func (h *Handlers) ApproveApplication(c *fiber.Ctx) error {
	o, err := input.DecodeNullish(c.Body())
	if err != nil {
		return err
	}
	partnerID := o.Str("partnerId", input.Str{Required: true}).Ptr()
	group := o.Str("groupId", input.Str{Trim: true}).Ptr()
	if o.Err() != nil {
		return o.Err()
	}
	sel := ""
	if group != nil {
		sel = *group
	}
	if err := h.Conversions.ApproveApplication(c.UserContext(), request.Workspace(c), *partnerID, sel, keyUser(c)); err != nil {
		return err
	}
	return c.JSON(partnerIDJSON{PartnerID: *partnerID})
}

var (
	applicationRejectionReasons = []string{"needsMoreDetail", "doesNotMeetRequirements", "notTheRightFit", "other"}
	reapplicationTimeframes     = []string{"instant", "standard", "never"}
)

// RejectApplication answers POST /partners/applications/reject (§5.6).
func (h *Handlers) RejectApplication(c *fiber.Ctx) error {
	o, err := input.DecodeNullish(c.Body())
	if err != nil {
		return err
	}
	var in conversions.RejectInput
	if v := o.Str("partnerId", input.Str{Required: true}).Ptr(); v != nil {
		in.PartnerID = *v
	}
	if r := o.Enum("rejectionReason", applicationRejectionReasons, ""); r != "" {
		in.RejectionReason = &r
	}
	if v := o.Str("rejectionNote", input.Str{Trim: true, Max: 500}).Ptr(); v != nil && *v != "" {
		in.RejectionNote = v
	}
	in.ReapplicationTimeframe = o.Enum("reapplicationTimeframe", reapplicationTimeframes, "standard")
	if r, ok := o.Present("flagForFraud"); ok {
		if err := json.Unmarshal(r, &in.FlagForFraud); err != nil {
			o.Fail("invalid_type", "flagForFraud", "Invalid input: expected boolean, received "+input.Kind(r))
		}
	}
	in.FlagForFraudReason = o.Str("flagForFraudReason", input.Str{Trim: true, Max: 2000}).Ptr()
	if o.Err() != nil {
		return o.Err()
	}
	in.Reviewer = keyUser(c)
	if err := h.Conversions.RejectApplication(c.UserContext(), request.Workspace(c), in); err != nil {
		return err
	}
	return c.JSON(partnerIDJSON{PartnerID: in.PartnerID})
}
