package console

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// The partner program pages: rewards and groups, partners and enrollments,
// commissions with status changes, customers. They call the models and
// internal/conversions, as the API's partner endpoints do.

// program loads the workspace's program; nil when it has none yet.
func (h *Handlers) program(c *fiber.Ctx) (*models.Program, error) {
	p, err := h.db.DefaultProgram(c.UserContext(), viewer(c).Workspace.ID)
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
	var groupErrs, domainErrs vc.FieldErrors
	switch typed.Get("form") {
	case "group":
		errs, groupErrs = nil, errs
	case "domain":
		errs, domainErrs = nil, errs
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
		v.Forms = []vc.FormView{{Title: "Start a partner program", Action: "/console/program", Submit: "Create program", TestID: "program-create", Errors: errs}}
		return h.page(c, status, "Program & rewards", "program", vc.Table(v))
	}
	v.Intro = "Program “" + p.Name + "”. Partners earn the rewards of their group; a new reward applies to every partner in the group from now on."
	gs, err := h.db.ListGroups(ctx, ws.ID, p.ID)
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
	rs, err := h.db.RewardsByID(ctx, ws.ID, rewardIDs)
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
		{Title: "Set a reward", Action: "/console/program/rewards", Submit: "Save reward", TestID: "reward-form", Errors: errs,
			Selects: []vc.SelectProps{
				{Label: "Group", Name: "groupId", Options: groups},
				{Label: "Event", Name: "event", Options: opts(typed.Get("event"), "sale", "Sale", "lead", "Lead", "click", "Click")},
				{Label: "Type", Name: "type", Options: opts(typed.Get("type"), "percentage", "Percentage of the sale", "flat", "Flat amount")},
			},
			Fields: []vc.FieldProps{
				{Label: "Amount ($ or %)", Name: "amount", Type: "number", Value: typed.Get("amount"), Required: true, Placeholder: "10"},
				{Label: "Duration (months)", Name: "maxDuration", Type: "number", Value: typed.Get("maxDuration"), Hint: "Empty: for the customer's lifetime; 0: first sale only."},
			}},
		{Title: "Add a group", Action: "/console/program/groups/new", Submit: "Add group", TestID: "group-create", Errors: groupErrs,
			Fields: []vc.FieldProps{
				{Label: "Name", Name: "name", Value: typed.Get("name"), Required: true, Placeholder: "Influencers"},
				{Label: "Slug", Name: "slug", Value: typed.Get("slug"), Required: true, Placeholder: "influencers"},
			}},
		{Title: "Holding period", Action: "/console/program/groups", Submit: "Save", TestID: "group-form",
			Selects: []vc.SelectProps{
				{Label: "Group", Name: "groupId", Options: groups},
				{Label: "Commissions are held for", Name: "holdingPeriodDays", Options: opts(strconv.Itoa(models.DefaultHoldingPeriodDays), holding...)},
			}},
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
	if _, _, err := h.conv.CreateDefaultProgram(c.UserContext(), viewer(c).Workspace); err != nil {
		return err
	}
	return redirect(c, "/console/program")
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
	g, err := h.db.GroupByID(ctx, ws.ID, typed.Get("groupId"))
	if err != nil {
		return fail(err)
	}
	// Flat amounts are typed in dollars, percentages in percent.
	r, err := conversions.RewardForm{Event: typed.Get("event"), Type: typed.Get("type"), Amount: typed.Get("amount"),
		MaxDuration: typed.Get("maxDuration")}.Reward()
	if err != nil {
		return fail(err)
	}
	if err := h.conv.SetGroupReward(ctx, g, r); err != nil {
		return fail(err)
	}
	return redirect(c, "/console/program")
}

// CreateGroup adds a partner group (models.CreateGroup).
func (h *Handlers) CreateGroup(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p, err := h.db.DefaultProgram(ctx, viewer(c).Workspace.ID)
	if err != nil {
		return err
	}
	typed := url.Values{"form": {"group"}, "name": {c.FormValue("name")}, "slug": {c.FormValue("slug")}}
	if _, err := h.conv.CreateGroup(ctx, p, typed.Get("name"), typed.Get("slug")); err != nil {
		errs, status, ok := fieldErrors(err, "slug")
		if !ok {
			return err
		}
		return h.programPage(c, status, errs, typed)
	}
	return redirect(c, "/console/program")
}

// SetHoldingPeriod changes a group's holding period (models.SaveGroup).
func (h *Handlers) SetHoldingPeriod(c *fiber.Ctx) error {
	ctx := c.UserContext()
	g, err := h.db.GroupByID(ctx, viewer(c).Workspace.ID, c.FormValue("groupId"))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.FormValue("holdingPeriodDays"))
	if err != nil {
		return apierr.Validation("invalid_type", "holdingPeriodDays", "Holding period must be a number of days.")
	}
	g.HoldingPeriodDays = n
	if err := h.conv.SaveGroup(ctx, g); err != nil {
		return err
	}
	return redirect(c, "/console/program")
}

// Partners lists enrolled partners with their totals, and enrolls new ones.
func (h *Handlers) Partners(c *fiber.Ctx) error { return h.partnersPage(c, fiber.StatusOK, nil, nil) }

func (h *Handlers) partnersPage(c *fiber.Ctx, status int, errs vc.FieldErrors, typed url.Values) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "partners-page", Title: "Partners",
		Headers: []string{"Partner", "Email", "Status", "Clicks", "Leads", "Sales", "Revenue", "Commissions", ""}, Empty: "No partners yet"}
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		noProgram(&v)
		return h.page(c, status, "Partners", "partners", vc.Table(v))
	}
	gs, err := h.db.ListGroups(ctx, ws.ID, p.ID)
	if err != nil {
		return err
	}
	var groups []vc.Option
	for _, g := range gs {
		groups = append(groups, vc.Option{Value: g.ID, Label: g.Name, Selected: typed.Get("groupId") == g.ID})
	}
	v.Forms = []vc.FormView{{Title: "Enroll a partner", Action: "/console/partners", Submit: "Enroll", TestID: "enroll-form", Errors: errs, FieldsFirst: true,
		Fields: []vc.FieldProps{
			{Label: "Name", Name: "name", Value: typed.Get("name"), Required: true},
			{Label: "Email", Name: "email", Type: "email", Value: typed.Get("email"), Required: true},
		},
		Selects: []vc.SelectProps{{Label: "Group", Name: "groupId", Options: groups}}}}
	statusFilter := c.Query("status")
	statusFilters(c, &v, "/console/partners", statusFilter, models.EnrollmentApproved, models.EnrollmentPending, models.EnrollmentDeactivated, models.EnrollmentBanned, models.EnrollmentArchived)
	sort := sortLinks(c, &v, "/console/partners", c.Query("sort"), [2]string{"totalCommissions", "Earnings"}, [2]string{"totalClicks", "Clicks"},
		[2]string{"totalSaleAmount", "Revenue"}, [2]string{"createdAt", "Newest"})
	lp := pageOf(c, listPageSize)
	pq := models.PartnerQuery{Status: statusFilter, Search: strings.TrimSpace(c.Query("search")), SortBy: sort, Desc: true, Limit: lp.Size, Offset: lp.Offset()}
	ps, err := h.db.ListEnrolledPartners(ctx, ws.ID, p.ID, pq)
	if err != nil {
		return err
	}
	total, err := h.db.CountEnrolledPartners(ctx, ws.ID, p.ID, pq)
	if err != nil {
		return err
	}
	v.Pager = pagerFor(c, "/console/partners", lp, len(ps), total)
	for _, ep := range ps {
		row := vc.TableRow{ID: ep.Partner.ID, Href: "/console/partners/" + ep.Partner.ID, Cells: []string{ep.Partner.Name, ep.Partner.Email, ep.Enrollment.Status,
			thousands(ep.Stats.Clicks), thousands(ep.Stats.Leads), thousands(ep.Stats.Sales), money(ep.Stats.SaleAmount), money(ep.Enrollment.TotalCommissions)}}
		act := &vc.RowAction{Action: "/console/partners/" + ep.Partner.ID + "/status", Name: "status", Submit: "Set"}
		for _, s := range enrollmentActions {
			act.Options = append(act.Options, vc.Option{Value: s, Label: s, Selected: s == ep.Enrollment.Status})
		}
		row.Action = act
		v.Rows = append(v.Rows, row)
	}
	return h.page(c, status, "Partners", "partners", vc.Table(v))
}

// Enroll enrolls a partner (conversions.EnrollPartner, as POST /partners).
func (h *Handlers) Enroll(c *fiber.Ctx) error {
	typed := url.Values{"name": {strings.TrimSpace(c.FormValue("name"))}, "email": {strings.TrimSpace(c.FormValue("email"))}, "groupId": {c.FormValue("groupId")}}
	name := typed.Get("name")
	_, err := h.conv.EnrollPartner(c.UserContext(), viewer(c).Workspace, conversions.EnrollInput{
		Email: strings.TrimSpace(typed.Get("email")), Name: &name, GroupID: typed.Get("groupId")})
	if err != nil {
		errs, status, ok := fieldErrors(err, "email")
		if !ok {
			return err
		}
		return h.partnersPage(c, status, errs, typed)
	}
	return redirect(c, "/console/partners")
}

// Commissions lists commissions by status, with status changes.
func (h *Handlers) Commissions(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "commissions-page", Title: "Commissions",
		Headers: []string{"Date", "Partner", "Type", "Sale", "Earnings", "Status", ""}, Empty: "No commissions"}
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		noProgram(&v)
		return h.page(c, fiber.StatusOK, "Commissions", "commissions", vc.Table(v))
	}
	st := c.Query("status")
	statusFilters(c, &v, "/console/commissions", st, models.CommissionStatuses...)
	sort := sortLinks(c, &v, "/console/commissions", c.Query("sort"), [2]string{"createdAt", "Newest"}, [2]string{"amount", "Sale amount"})
	lp := pageOf(c, listPageSize)
	q := models.CommissionQuery{Status: st, SortBy: sort, Desc: true, Limit: lp.Size, Offset: lp.Offset()}
	if pid := c.Query("partnerId"); pid != "" {
		q.PartnerID = &models.SetFilter{Values: []string{pid}}
		if err := h.onePartner(c, &v, "/console/commissions", pid); err != nil {
			return err
		}
	}
	cs, err := h.db.ListCommissions(ctx, ws.ID, p.ID, q)
	if err != nil {
		return err
	}
	total, err := h.db.CountCommissions(ctx, ws.ID, p.ID, q)
	if err != nil {
		return err
	}
	v.Pager = pagerFor(c, "/console/commissions", lp, len(cs), total)
	var pids []string
	for _, cm := range cs {
		pids = append(pids, cm.PartnerID)
	}
	partners, err := h.db.PartnersByID(ctx, ws.ID, pids)
	if err != nil {
		return err
	}
	for _, cm := range cs {
		name := cm.PartnerID
		if pt := partners[cm.PartnerID]; pt != nil {
			name = pt.Name
		}
		row := vc.TableRow{ID: cm.ID, Cells: []string{date(cm.CreatedAt), name, cm.Type, money(cm.Amount), money(cm.Earnings), cm.Status}}
		if cm.Status != models.CommissionPaid {
			act := &vc.RowAction{Action: "/console/commissions/" + cm.ID + "/status", Name: "status", Submit: "Set"}
			for _, s := range conversions.EditableStatuses {
				act.Options = append(act.Options, vc.Option{Value: s, Label: s, Selected: s == cm.Status})
			}
			row.Action = act
		}
		v.Rows = append(v.Rows, row)
	}
	return h.page(c, fiber.StatusOK, "Commissions", "commissions", vc.Table(v))
}

// SetCommissionStatus changes a commission's status (conversions.UpdateCommission,
// as PATCH /commissions/{id}).
func (h *Handlers) SetCommissionStatus(c *fiber.Ctx) error {
	st := c.FormValue("status")
	if _, err := h.conv.UpdateCommission(c.UserContext(), viewer(c).Workspace, c.Params("id"), conversions.CommissionPatch{Status: &st}); err != nil {
		return err
	}
	return redirect(c, "/console/commissions")
}

// Customers lists the workspace's customers, newest first.
func (h *Handlers) Customers(c *fiber.Ctx) error {
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "customers-page", Title: "Customers",
		Headers: []string{"Customer", "External ID", "Country", "Sales", "Revenue", "First sale", "Created"}, Empty: "No customers yet"}
	ctx, ws := c.UserContext(), viewer(c).Workspace
	sort := sortLinks(c, &v, "/console/customers", c.Query("sort"), [2]string{"createdAt", "Newest"}, [2]string{"saleAmount", "Revenue"}, [2]string{"firstSaleAt", "First sale"})
	lp := pageOf(c, listPageSize)
	q := models.CustomerQuery{Search: strings.TrimSpace(c.Query("search")), SortBy: sort, Desc: true, Limit: lp.Size, Offset: lp.Offset()}
	cs, err := h.db.ListCustomers(ctx, ws.ID, q)
	if err != nil {
		return err
	}
	total, err := h.db.CountCustomers(ctx, ws.ID, q)
	if err != nil {
		return err
	}
	v.Pager = pagerFor(c, "/console/customers", lp, len(cs), total)
	for _, cu := range cs {
		name := cu.ExternalID
		switch {
		case cu.Name != nil && *cu.Name != "":
			name = *cu.Name
		case cu.Email != nil && *cu.Email != "":
			name = *cu.Email
		}
		first := "—"
		if cu.FirstSaleAt != nil {
			first = date(*cu.FirstSaleAt)
		}
		country := ""
		if cu.Country != nil {
			country = *cu.Country
		}
		v.Rows = append(v.Rows, vc.TableRow{ID: cu.ID, Cells: []string{name, cu.ExternalID, country, thousands(cu.Sales), money(cu.SaleAmount), first, date(cu.CreatedAt)}})
	}
	return h.page(c, fiber.StatusOK, "Customers", "customers", vc.Table(v))
}

// onePartner notes on a list filtered to one partner (?partnerId, from the
// partner's page) whose list it is, with links to the partner and to the
// whole list.
func (h *Handlers) onePartner(c *fiber.Ctx, v *vc.TablePage, path, partnerID string) error {
	pt, err := h.db.PartnerByID(c.UserContext(), viewer(c).Workspace.ID, partnerID)
	if err != nil {
		return err
	}
	v.Title += " of " + pt.Name
	v.Related = append(v.Related, vc.FilterLink{Label: "← " + pt.Name, Href: "/console/partners/" + pt.ID},
		vc.FilterLink{Label: "Every partner's", Href: withParam(c, path, "partnerId", "")})
	return nil
}
