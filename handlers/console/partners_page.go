package console

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

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
	gs, err := h.DB.ListGroups(ctx, ws.ID, p.ID)
	if err != nil {
		return err
	}
	var groups []vc.Option
	for _, g := range gs {
		groups = append(groups, vc.Option{Value: g.ID, Label: g.Name, Selected: typed.Get("groupId") == g.ID})
	}
	v.Forms = []vc.FormView{{Title: "Enroll a partner", Action: route.URL(route.Enroll), Submit: "Enroll", TestID: "enroll-form", Errors: errs, FieldsFirst: true,
		Fields: []vc.FieldProps{
			{Label: "Name", Name: "name", Value: typed.Get("name"), Required: true},
			{Label: "Email", Name: "email", Type: "email", Value: typed.Get("email"), Required: true},
		},
		Selects: []vc.SelectProps{{Label: "Group", Name: "groupId", Options: groups}}}}
	statusFilter := c.Query("status")
	page := route.URL(route.Partners)
	statusFilters(c, &v, page, statusFilter, models.EnrollmentApproved, models.EnrollmentPending, models.EnrollmentDeactivated, models.EnrollmentBanned, models.EnrollmentArchived)
	sort := sortLinks(c, &v, page, c.Query("sort"), [2]string{"totalCommissions", "Earnings"}, [2]string{"totalClicks", "Clicks"},
		[2]string{"totalSaleAmount", "Revenue"}, [2]string{"createdAt", "Newest"})
	lp := pageOf(c, listPageSize)
	pq := models.PartnerQuery{Status: statusFilter, Search: strings.TrimSpace(c.Query("search")), SortBy: sort, Desc: true, Limit: lp.Size, Offset: lp.Offset()}
	ps, err := h.DB.ListEnrolledPartners(ctx, ws.ID, p.ID, pq)
	if err != nil {
		return err
	}
	total, err := h.DB.CountEnrolledPartners(ctx, ws.ID, p.ID, pq)
	if err != nil {
		return err
	}
	v.Pager = pagerFor(c, page, lp, len(ps), total)
	for _, ep := range ps {
		row := vc.TableRow{ID: ep.Partner.ID, Href: route.URL(route.Partner, ep.Partner.ID), Cells: []string{ep.Partner.Name, ep.Partner.Email, ep.Enrollment.Status,
			thousands(ep.Stats.Clicks), thousands(ep.Stats.Leads), thousands(ep.Stats.Sales), money(ep.Stats.SaleAmount), money(ep.Enrollment.TotalCommissions)}}
		act := &vc.RowAction{Action: route.URL(route.SetPartnerStatus, ep.Partner.ID), Name: "status", Submit: "Set"}
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
	_, err := h.Conversions.EnrollPartner(c.UserContext(), viewer(c).Workspace, conversions.EnrollInput{
		Email: strings.TrimSpace(typed.Get("email")), Name: &name, GroupID: typed.Get("groupId")})
	if err != nil {
		errs, status, ok := fieldErrors(err, "email")
		if !ok {
			return err
		}
		return h.partnersPage(c, status, errs, typed)
	}
	return redirect(c, route.URL(route.Partners))
}

// onePartner notes on a list filtered to one partner (?partnerId, from the
// partner's page) whose list it is, with links to the partner and to the
// whole list.
func (h *Handlers) onePartner(c *fiber.Ctx, v *vc.TablePage, path, partnerID string) error {
	pt, err := h.DB.PartnerByID(c.UserContext(), viewer(c).Workspace.ID, partnerID)
	if err != nil {
		return err
	}
	v.Title += " of " + pt.Name
	v.Related = append(v.Related, vc.FilterLink{Label: "← " + pt.Name, Href: route.URL(route.Partner, pt.ID)},
		vc.FilterLink{Label: "Every partner's", Href: withParam(c, path, "partnerId", "")})
	return nil
}
