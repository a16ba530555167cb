package console

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"gorm.io/gorm"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// Bounties lists the program's bounties and the submissions waiting for
// review, with approve and reject actions (the same service calls as the
// API's approve and reject), and forms to create and edit bounties (each
// emits bounty.created or bounty.updated). Approving pays the bounty's
// reward as a custom commission; a bounty without an amount takes the
// amount typed here.
func (h *Handlers) Bounties(c *fiber.Ctx) error {
	return h.bountiesPage(c, fiber.StatusOK, nil, url.Values{})
}

func (h *Handlers) bountiesPage(c *fiber.Ctx, status int, errs vc.FieldErrors, typed url.Values) error {
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
		return h.page(c, status, "Bounties", "bounties", vc.Table(v))
	}
	var bs []models.Bounty
	if err := h.DB.WithContext(ctx).Where("workspace_id = ? AND program_id = ?", ws.ID, p.ID).Order("created_at DESC, id").Find(&bs).Error; err != nil {
		return err
	}
	gs, err := h.DB.ListGroups(ctx, ws.ID, p.ID)
	if err != nil {
		return err
	}
	st := c.Query("status", models.SubmissionSubmitted)
	for _, s := range models.SubmissionStatuses {
		v.Filters = append(v.Filters, vc.FilterLink{Label: s, Href: withParam(c, route.URL(route.Bounties), "status", s), Current: st == s})
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
	v.Intro = "Bounties: " + strings.Join(lines, "; ") + "."
	if len(bs) == 0 {
		v.Intro = "No bounties yet: create one below (or with `relink program bounty add`)."
	}
	v.Forms = bountyForms(bs, gs, errs, typed)
	if err := h.submissionRows(c, &v, ws.ID, p.ID, st, names); err != nil {
		return err
	}
	return h.page(c, status, "Bounties", "bounties", vc.Table(v))
}

// submissionRows fills the table with the program's submissions of status
// st, with a review action where one applies.
func (h *Handlers) submissionRows(c *fiber.Ctx, v *vc.TablePage, wsID, progID, st string, names map[string]string) error {
	ctx := c.UserContext()
	var subs []models.BountySubmission
	var total int64
	lp := pageOf(c, listPageSize)
	scope := func() *gorm.DB {
		return h.DB.WithContext(ctx).Model(&models.BountySubmission{}).Where("workspace_id = ? AND program_id = ? AND status = ?", wsID, progID, st)
	}
	if err := scope().Count(&total).Error; err != nil {
		return err
	}
	if err := scope().Order("completed_at, id").Limit(lp.Size).Offset(lp.Offset()).Find(&subs).Error; err != nil {
		return err
	}
	v.Pager = pagerFor(c, route.URL(route.Bounties), lp, len(subs), total)
	pids := make([]string, len(subs))
	for i := range subs {
		pids[i] = subs[i].PartnerID
	}
	partners, err := h.DB.PartnersByID(ctx, wsID, pids)
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
			row.Action = &vc.RowAction{Action: route.URL(route.ReviewSubmission, s.BountyID, s.ID), Name: "decision", Submit: "Review",
				Options: []vc.Option{{Value: "approve", Label: "Approve"}, {Value: "reject", Label: "Reject"}}}
			if s.Status == models.SubmissionRejected {
				row.Action.Options = row.Action.Options[:1]
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return nil
}

// CreateBounty creates a bounty from the console form (bounty.created).
func (h *Handlers) CreateBounty(c *fiber.Ctx) error {
	typed := bountyFields(c, "create")
	fail := func(err error) error {
		errs, status, ok := fieldErrors(err, "")
		if !ok {
			return err
		}
		return h.bountiesPage(c, status, errs, typed)
	}
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		return fail(apierr.New(apierr.NotFound, "Start a partner program first."))
	}
	b := &models.Bounty{WorkspaceID: viewer(c).Workspace.ID, ProgramID: p.ID, Name: typed.Get("name"), Type: typed.Get("type"),
		StartsAt: h.Now().UTC()}
	if b.RewardAmount, err = dollars(typed, "rewardAmount"); err != nil {
		return fail(err)
	}
	if b.GoalEarnings, err = dollars(typed, "goalEarnings"); err != nil {
		return fail(err)
	}
	if d := typed.Get("description"); d != "" {
		b.Description = &d
	}
	if g := typed.Get("groupId"); g != "" {
		if _, err := h.DB.GroupByID(c.UserContext(), b.WorkspaceID, g); err != nil {
			return fail(err)
		}
		b.GroupID = &g
	}
	if b.EndsAt, err = endOfDay(typed, "endsAt"); err != nil {
		return fail(err)
	}
	if err := h.Conversions.CreateBounty(c.UserContext(), b); err != nil {
		return fail(err)
	}
	return redirect(c, route.URL(route.Bounties))
}

// EditBounty changes a bounty's name, reward, description or end from the
// console form (bounty.updated); empty fields stay as they are.
func (h *Handlers) EditBounty(c *fiber.Ctx) error {
	typed := bountyFields(c, "edit")
	fail := func(err error) error {
		errs, status, ok := fieldErrors(err, "")
		if !ok {
			return err
		}
		return h.bountiesPage(c, status, errs, typed)
	}
	reward, err := dollars(typed, "rewardAmount")
	if err != nil {
		return fail(err)
	}
	ends, err := endOfDay(typed, "endsAt")
	if err != nil {
		return fail(err)
	}
	_, err = h.Conversions.UpdateBounty(c.UserContext(), viewer(c).Workspace.ID, typed.Get("bountyId"), func(b *models.Bounty) error {
		if n := typed.Get("name"); n != "" {
			b.Name = n
		}
		if typed.Get("rewardAmount") != "" {
			b.RewardAmount = reward
		}
		if d := typed.Get("description"); d != "" {
			b.Description = &d
		}
		if ends != nil {
			b.EndsAt = ends
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return redirect(c, route.URL(route.Bounties))
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
		_, err = h.Conversions.ApproveSubmission(c.UserContext(), ws, c.Params("bounty"), c.Params("id"), reward, &user)
	case "reject":
		_, err = h.Conversions.RejectSubmission(c.UserContext(), ws, c.Params("bounty"), c.Params("id"), "other", nil, &user)
	default:
		err = apierr.Validation("invalid_value", "decision", "Choose approve or reject.")
	}
	if err != nil {
		return err
	}
	return redirect(c, route.URL(route.Bounties))
}
