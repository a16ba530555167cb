package console

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// The partner program pages: rewards and groups, partners and enrollments,
// commissions with status changes, customers. They call the models and
// internal/conversions, as the API's partner endpoints do.

// program loads the workspace's program; nil when it has none yet.
func (h *Handlers) program(c *fiber.Ctx) (*models.Program, error) {
	p, err := h.DB.DefaultProgram(c.UserContext(), viewer(c).Workspace.ID)
	if models.IsNotFound(err) {
		return nil, nil
	}
	return p, err
}

func noProgram(v *vc.TablePage) {
	v.Note = "This workspace has no partner program yet. Create it on the Program & rewards page."
}

// Program shows the program's groups with their rewards, and the forms that
// set a group's reward and holding period.
func (h *Handlers) Program(c *fiber.Ctx) error {
	return h.programPage(c, fiber.StatusOK, nil, nil)
}

func (h *Handlers) programPage(c *fiber.Ctx, status int, errs vc.FieldErrors, typed url.Values) error {
	ctx := c.UserContext()
	var groupErrs, domainErrs, brandErrs vc.FieldErrors
	switch typed.Get("form") {
	case "group":
		errs, groupErrs = nil, errs
	case "domain":
		errs, domainErrs = nil, errs
	case "branding":
		errs, brandErrs = nil, errs
	}
	ws := viewer(c).Workspace
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "program-page", Title: "Groups and rewards",
		Headers: []string{"Group", "Holding period", "Click reward", "Lead reward", "Sale reward"}, Empty: "No groups"}
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		v.Note = "This workspace has no partner program yet."
		v.Forms = []vc.FormView{{Title: "Start a partner program", Action: route.URL(route.CreateProgram), Submit: "Create program", TestID: "program-create", Errors: errs}}
		return h.page(c, status, "Program & rewards", "program", vc.Table(v))
	}
	v.Intro = "Program “" + p.Name + "”. Partners earn the rewards of their group; a new reward applies to every partner in the group from now on."
	gs, err := h.DB.ListGroups(ctx, ws.ID, p.ID)
	if err != nil {
		return err
	}
	var rewardIDs []string
	for _, g := range gs {
		for _, id := range []*string{g.ClickRewardID, g.LeadRewardID, g.SaleRewardID} {
			if id != nil {
				rewardIDs = append(rewardIDs, *id)
			}
		}
	}
	rs, err := h.DB.RewardsByID(ctx, ws.ID, rewardIDs)
	if err != nil {
		return err
	}
	var groups []vc.Option
	for _, g := range gs {
		groups = append(groups, vc.Option{Value: g.ID, Label: g.Name, Selected: typed.Get("groupId") == g.ID})
		row := vc.TableRow{ID: g.ID, Cells: []string{g.Name, strconv.Itoa(g.HoldingPeriodDays) + " days"}}
		for _, id := range []*string{g.ClickRewardID, g.LeadRewardID, g.SaleRewardID} {
			row.Cells = append(row.Cells, rewardText(id, rs))
		}
		v.Rows = append(v.Rows, row)
	}
	opts := func(sel string, vals ...string) []vc.Option {
		out := make([]vc.Option, 0, len(vals)/2)
		for i := 0; i+1 < len(vals); i += 2 {
			out = append(out, vc.Option{Value: vals[i], Label: vals[i+1], Selected: vals[i] == sel})
		}
		return out
	}
	holding := []string{}
	for _, d := range models.HoldingPeriods {
		holding = append(holding, strconv.Itoa(d), strconv.Itoa(d)+" days")
	}
	v.Forms = []vc.FormView{
		{Title: "Set a reward", Action: route.URL(route.SetReward), Submit: "Save reward", TestID: "reward-form", Errors: errs,
			Selects: []vc.SelectProps{
				{Label: "Group", Name: "groupId", Options: groups},
				{Label: "Event", Name: "event", Options: opts(typed.Get("event"), "sale", "Sale", "lead", "Lead", "click", "Click")},
				{Label: "Type", Name: "type", Options: opts(typed.Get("type"), "percentage", "Percentage of the sale", "flat", "Flat amount")},
			},
			Fields: []vc.FieldProps{
				{Label: "Amount ($ or %)", Name: "amount", Type: "number", Value: typed.Get("amount"), Required: true, Placeholder: "10"},
				{Label: "Duration (months)", Name: "maxDuration", Type: "number", Value: typed.Get("maxDuration"), Hint: "Empty: for the customer's lifetime; 0: first sale only."},
			}},
		{Title: "Add a group", Action: route.URL(route.CreateGroup), Submit: "Add group", TestID: "group-create", Errors: groupErrs,
			Fields: []vc.FieldProps{
				{Label: "Name", Name: "name", Value: typed.Get("name"), Required: true, Placeholder: "Influencers"},
				{Label: "Slug", Name: "slug", Value: typed.Get("slug"), Required: true, Placeholder: "influencers"},
			}},
		{Title: "Holding period", Action: route.URL(route.SetHoldingPeriod), Submit: "Save", TestID: "group-form",
			Selects: []vc.SelectProps{
				{Label: "Group", Name: "groupId", Options: groups},
				{Label: "Commissions are held for", Name: "holdingPeriodDays", Options: opts(strconv.Itoa(models.DefaultHoldingPeriodDays), holding...)},
			}},
	}
	if len(gs) > 0 {
		v.Forms = append(v.Forms, brandingForm(&gs[0], groups, brandErrs, typed))
	}
	df, err := h.programDomainForm(c, p, domainErrs, typed)
	if err != nil {
		return err
	}
	v.Forms = append(v.Forms, df)
	return h.page(c, status, "Program & rewards", "program", vc.Table(v))
}

// rewardText describes a reward: "$5.00 flat", "10% for 12 months".
func rewardText(id *string, rs map[string]*models.Reward) string {
	if id == nil || rs[*id] == nil {
		return "—"
	}
	r := rs[*id]
	var s string
	switch r.Type {
	case models.RewardPercentage:
		if r.AmountInPercentageBP != nil {
			s = strconv.FormatFloat(float64(*r.AmountInPercentageBP)/100, 'f', -1, 64) + "%"
		}
	default:
		if r.AmountInCents != nil {
			s = money(*r.AmountInCents)
		}
	}
	switch {
	case r.Event == models.EventClick || r.Event == models.EventLead:
		return s + " per " + r.Event
	case r.MaxDuration == nil:
		return s + " for the customer's lifetime"
	case *r.MaxDuration == 0:
		return s + " on the first sale"
	}
	return s + " for " + strconv.Itoa(*r.MaxDuration) + " months"
}

// CreateProgram starts the workspace's partner program (owners).
func (h *Handlers) CreateProgram(c *fiber.Ctx) error {
	if _, _, err := h.Conversions.CreateDefaultProgram(c.UserContext(), viewer(c).Workspace); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Program))
}

// SetReward stores a group's reward for an event (models.SetGroupReward).
func (h *Handlers) SetReward(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	typed := url.Values{}
	for _, k := range []string{"groupId", "event", "type", "amount", "maxDuration"} {
		typed.Set(k, strings.TrimSpace(c.FormValue(k)))
	}
	fail := func(err error) error {
		errs, status, ok := fieldErrors(err, "")
		if !ok {
			return err
		}
		// The model's paths name API fields; show them on the form's fields.
		for api, field := range map[string]string{"amountInCents": "amount", "amountInPercentage": "amount"} {
			if m, ok := errs[api]; ok {
				errs[field] = m
			}
		}
		return h.programPage(c, status, errs, typed)
	}
	g, err := h.DB.GroupByID(ctx, ws.ID, typed.Get("groupId"))
	if err != nil {
		return fail(err)
	}
	// Flat amounts are typed in dollars, percentages in percent.
	r, err := conversions.RewardForm{Event: typed.Get("event"), Type: typed.Get("type"), Amount: typed.Get("amount"),
		MaxDuration: typed.Get("maxDuration")}.Reward()
	if err != nil {
		return fail(err)
	}
	if err := h.Conversions.SetGroupReward(ctx, g, r); err != nil {
		return fail(err)
	}
	return redirect(c, route.URL(route.Program))
}
