package console

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// Bounties lists the program's bounties and the submissions waiting for
// review, with approve and reject actions (the same service calls as the
// API's approve and reject). Approving pays the bounty's reward as a custom
// commission; a bounty without an amount takes the amount typed here.
func (h *Handlers) Bounties(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "bounties-page", Title: "Submissions",
		Headers: []string{"Submitted", "Bounty", "Partner", "Proof", "Status", ""}, Empty: "No submissions"}
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		noProgram(&v)
		return h.page(c, fiber.StatusOK, "Bounties", "bounties", vc.Table(v))
	}
	var bs []models.Bounty
	if err := h.db.WithContext(ctx).Where("workspace_id = ? AND program_id = ?", ws.ID, p.ID).Order("created_at DESC, id").Find(&bs).Error; err != nil {
		return err
	}
	st := c.Query("status", models.SubmissionSubmitted)
	for _, s := range models.SubmissionStatuses {
		v.Filters = append(v.Filters, vc.FilterLink{Label: s, Href: "/console/bounties?status=" + s, Current: st == s})
	}
	names := map[string]string{}
	var lines []string
	for _, b := range bs {
		names[b.ID] = b.Name
		reward := money(b.RewardAmount)
		if b.RewardAmount == 0 {
			reward = "amount set on approval"
		}
		lines = append(lines, b.Name+" ("+b.Type+", "+reward+")")
	}
	v.Intro = "Bounties (create them with `relink program bounty add`): " + strings.Join(lines, "; ") + "."
	if len(bs) == 0 {
		v.Intro = "No bounties yet. Create one with `relink program bounty add --type submission|performance`."
	}
	var subs []models.BountySubmission
	if err := h.db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND status = ?", ws.ID, p.ID, st).
		Order("completed_at, id").Limit(200).Find(&subs).Error; err != nil {
		return err
	}
	pids := make([]string, len(subs))
	for i := range subs {
		pids[i] = subs[i].PartnerID
	}
	partners, err := h.db.PartnersByID(ctx, ws.ID, pids)
	if err != nil {
		return err
	}
	for _, s := range subs {
		name := s.PartnerID
		if pn := partners[s.PartnerID]; pn != nil {
			name = pn.Name
		}
		proof := deref(s.Description)
		if s.URLs.Valid && len(s.URLs.V) > 0 {
			proof = strings.TrimSpace(strings.Join(s.URLs.V, " ") + " " + proof)
		}
		if s.PerformanceCount != nil {
			proof = "Goal reached: " + money(*s.PerformanceCount) + " in sale commissions"
		}
		submitted := "—"
		if s.CompletedAt != nil {
			submitted = date(*s.CompletedAt)
		}
		row := vc.TableRow{ID: s.ID, Cells: []string{submitted, names[s.BountyID], name, proof, s.Status}}
		if s.Status == models.SubmissionSubmitted || s.Status == models.SubmissionRejected {
			row.Action = &vc.RowAction{Action: "/console/bounties/" + s.BountyID + "/submissions/" + s.ID, Name: "decision", Submit: "Review",
				Options: []vc.Option{{Value: "approve", Label: "Approve"}, {Value: "reject", Label: "Reject"}}}
			if s.Status == models.SubmissionRejected {
				row.Action.Options = row.Action.Options[:1]
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return h.page(c, fiber.StatusOK, "Bounties", "bounties", vc.Table(v))
}

// ReviewSubmission approves or rejects a bounty submission.
func (h *Handlers) ReviewSubmission(c *fiber.Ctx) error {
	ws, user := viewer(c).Workspace, viewer(c).User.ID
	var err error
	switch c.FormValue("decision") {
	case "approve":
		var reward *int64
		if a := strings.TrimSpace(c.FormValue("amount")); a != "" {
			f, perr := strconv.ParseFloat(a, 64)
			if perr != nil || f <= 0 {
				return apierr.Validation("invalid_type", "amount", "Enter the reward in dollars, e.g. 50.")
			}
			cents := int64(f*100 + 0.5)
			reward = &cents
		}
		_, err = h.conv.ApproveSubmission(c.UserContext(), ws, c.Params("bounty"), c.Params("id"), reward, &user)
	case "reject":
		_, err = h.conv.RejectSubmission(c.UserContext(), ws, c.Params("bounty"), c.Params("id"), "other", nil, &user)
	default:
		err = apierr.Validation("invalid_value", "decision", "Choose approve or reject.")
	}
	if err != nil {
		return err
	}
	return redirect(c, "/console/bounties")
}
