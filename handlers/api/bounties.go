package api

import (
	"bytes"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// ListBountySubmissions answers GET /bounties/{bountyId}/submissions (§7.4).
func (h *Handlers) ListBountySubmissions(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := request.Workspace(c)
	prog, err := h.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return err
	}
	b, err := h.DB.BountyByID(ctx, ws.ID, prog.ID, c.Params("bountyId"))
	if err != nil {
		return err
	}
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100, SortBy: []string{"completedAt", "performanceCount", "socialMetricCount"}, DefaultOrder: "asc"})
	if err != nil {
		return err
	}
	q := models.SubmissionQuery{GroupID: Query(c, "groupId"), PartnerID: Query(c, "partnerId"), SortBy: p.SortBy, Desc: p.Desc(),
		Limit: p.PageSize, Offset: p.Offset()}
	if s := Query(c, "status"); s != "" {
		if !contains(models.SubmissionStatuses, s) {
			return apierr.Validation("invalid_value", "status", "Invalid option: expected one of "+request.Options(models.SubmissionStatuses))
		}
		q.Status = s
	}
	list, err := h.DB.ListSubmissions(ctx, ws.ID, b.ID, q)
	if err != nil {
		return err
	}
	out := make([]wire.Submission, len(list))
	for i := range list {
		out[i] = wire.SubmissionOf(&list[i])
	}
	return c.JSON(out)
}

// lenientObject parses an optional body: empty or invalid JSON counts as {}
// (the bounty review endpoints, spec/parity.md §0.2).
func lenientObject(body []byte) *input.Object {
	if !json.Valid(bytes.TrimSpace(body)) {
		body = nil
	}
	o, err := input.DecodeNullish(body)
	if err != nil {
		o, _ = input.DecodeNullish(nil)
	}
	return o
}

// ApproveBountySubmission answers POST …/submissions/{id}/approve (§7.5).
func (h *Handlers) ApproveBountySubmission(c *fiber.Ctx) error {
	o := lenientObject(c.Body())
	var reward *int64
	if r, ok := o.Present("rewardAmount"); ok {
		var f float64
		if err := json.Unmarshal(r, &f); err != nil {
			return apierr.Validation("invalid_type", "rewardAmount", "Invalid input: expected number, received "+input.Kind(r))
		}
		v := int64(f)
		reward = &v
	}
	sub, err := h.Conversions.ApproveSubmission(c.UserContext(), request.Workspace(c), c.Params("bountyId"), c.Params("submissionId"), reward, keyUser(c))
	if err != nil {
		return err
	}
	return c.JSON(wire.SubmissionOf(sub))
}

// RejectBountySubmission answers POST …/submissions/{id}/reject (§7.6).
func (h *Handlers) RejectBountySubmission(c *fiber.Ctx) error {
	o := lenientObject(c.Body())
	reason := o.Enum("rejectionReason", models.SubmissionRejectionReasons, "other")
	note := o.Str("rejectionNote", input.Str{Trim: true, Max: 5000}).Ptr()
	if o.Err() != nil {
		return o.Err()
	}
	if note != nil && *note == "" {
		note = nil
	}
	sub, err := h.Conversions.RejectSubmission(c.UserContext(), request.Workspace(c), c.Params("bountyId"), c.Params("submissionId"), reason, note, keyUser(c))
	if err != nil {
		return err
	}
	return c.JSON(wire.SubmissionOf(sub))
}
