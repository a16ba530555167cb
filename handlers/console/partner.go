package console

import (
	"context"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// One partner's page (/console/partners/{id}) and the enrollment status
// changes, from that page and from the partner list. Every change goes
// through the service the API's partner endpoints use (internal/conversions).

// partnerLinksShown bounds the links table of the partner page.
const partnerLinksShown = 100

// partnerLatest is how many commissions and payouts the page shows.
const partnerLatest = 10

// Partner shows one partner of the program.
func (h *Handlers) Partner(c *fiber.Ctx) error {
	if to, ok := withoutEmptyParams(c); ok {
		return c.Redirect(to, fiber.StatusFound)
	}
	ctx, ws := c.UserContext(), viewer(c).Workspace
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		return apierr.New(apierr.NotFound, "This workspace has no partner program yet.")
	}
	ep, err := h.DB.EnrolledPartnerByID(ctx, ws.ID, p.ID, c.Params("id"))
	if err != nil {
		return err
	}
	v := vc.PartnerView{CSRF: session(c).CSRF, ID: ep.Partner.ID, Name: ep.Partner.Name, Email: ep.Partner.Email,
		Status: ep.Enrollment.Status, Joined: date(ep.Enrollment.CreatedAt), Country: deref(ep.Partner.Country), TenantID: deref(ep.Enrollment.TenantID)}
	if ep.Enrollment.GroupID != nil {
		if g, err := h.DB.GroupByID(ctx, ws.ID, *ep.Enrollment.GroupID); err == nil {
			v.Group = g.Name
		} else if !models.IsNotFound(err) {
			return err
		}
	}
	if ep.Enrollment.Status == models.EnrollmentBanned && ep.Enrollment.BannedAt != nil {
		v.StatusNote = "Banned on " + date(*ep.Enrollment.BannedAt)
		if r := deref(ep.Enrollment.BannedReason); r != "" {
			v.StatusNote += ": " + labelOr(conversions.BanReasonLabels, r)
		}
		v.StatusNote += ". Their links are disabled and their unpaid commissions canceled."
	}
	if ep.Enrollment.Status == models.EnrollmentDeactivated {
		v.StatusNote = "Deactivated: their links have expired and they earn no new commissions."
	}
	st := ep.Stats
	v.Totals = []vc.PartnerTotal{
		{Label: "Clicks", Value: thousands(st.Clicks), TestID: "partner-clicks"},
		{Label: "Leads", Value: thousands(st.Leads), TestID: "partner-leads"},
		{Label: "Sales", Value: thousands(st.Sales), TestID: "partner-sales"},
		{Label: "Revenue", Value: money(st.SaleAmount), TestID: "partner-revenue"},
		{Label: "Earnings", Value: money(ep.Enrollment.TotalCommissions), TestID: "partner-earnings"},
		{Label: "Links", Value: thousands(int64(len(ep.Links))), TestID: "partner-link-count"},
	}
	v.Actions = partnerActions(ep.Enrollment.Status)
	if v.Analytics, err = h.partnerAnalyticsView(c, route.URL(route.Partner, ep.Partner.ID), request.QueryValues(c), ep.Partner.ID); err != nil {
		return err
	}
	v.Links = h.partnerLinks(ep)
	if v.Commissions, err = h.partnerCommissions(ctx, ws, p, ep); err != nil {
		return err
	}
	if v.Payouts, err = h.partnerPayouts(ctx, ws, p, ep); err != nil {
		return err
	}
	return h.page(c, fiber.StatusOK, ep.Partner.Name, "partners", vc.Partner(v))
}

func labelOr(labels map[string]string, k string) string {
	if l, ok := labels[k]; ok {
		return l
	}
	return k
}

// partnerLinks is the partner's links, most clicked first.
func (h *Handlers) partnerLinks(ep *models.EnrolledPartner) vc.TablePage {
	v := vc.TablePage{TestID: "partner-links", Title: "Links", Empty: "No links yet",
		Headers: []string{"Short link", "Destination", "Clicks", "Leads", "Sales", "Revenue"}}
	ls := append([]models.Link(nil), ep.Links...)
	sortLinksByClicks(ls)
	if len(ls) > partnerLinksShown {
		v.Note = "The " + strconv.Itoa(partnerLinksShown) + " most clicked of " + thousands(int64(len(ls))) + " links."
		ls = ls[:partnerLinksShown]
	}
	for i := range ls {
		l := &ls[i]
		r := h.linkRow(l, nil)
		v.Rows = append(v.Rows, vc.TableRow{ID: l.ID, Href: route.URL(route.Link, l.ID),
			Cells: []string{r.Display, l.URL, thousands(l.Clicks), thousands(l.Leads), thousands(l.Sales), money(l.SaleAmount)}})
	}
	return v
}

// sortLinksByClicks orders links by clicks, most first (then oldest first).
func sortLinksByClicks(ls []models.Link) {
	for i := 1; i < len(ls); i++ { // insertion sort: stable, and lists are short
		for j := i; j > 0 && ls[j].Clicks > ls[j-1].Clicks; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}

// partnerCommissions is the partner's latest commissions, with a link to
// all of them on the Commissions page.
func (h *Handlers) partnerCommissions(ctx context.Context, ws *models.Workspace, p *models.Program, ep *models.EnrolledPartner) (vc.TablePage, error) {
	v := vc.TablePage{TestID: "partner-commissions", Title: "Latest commissions", Empty: "No commissions yet",
		Headers: []string{"Date", "Type", "Sale", "Earnings", "Status"}}
	q := models.CommissionQuery{PartnerID: &models.SetFilter{Values: []string{ep.Partner.ID}}, SortBy: "createdAt", Desc: true, Limit: partnerLatest}
	cs, err := h.DB.ListCommissions(ctx, ws.ID, p.ID, q)
	if err != nil {
		return v, err
	}
	total, err := h.DB.CountCommissions(ctx, ws.ID, p.ID, q)
	if err != nil {
		return v, err
	}
	for _, cm := range cs {
		v.Rows = append(v.Rows, vc.TableRow{ID: cm.ID, Cells: []string{date(cm.CreatedAt), cm.Type, money(cm.Amount), money(cm.Earnings), cm.Status}})
	}
	if total > 0 {
		v.Related = []vc.FilterLink{{Label: "All " + thousands(total) + " commissions of " + ep.Partner.Name + " →", Href: route.URL(route.Commissions) + "?partnerId=" + ep.Partner.ID}}
	}
	return v, nil
}

// partnerPayouts is the partner's latest payouts, with a link to all of
// them on the Payouts page.
func (h *Handlers) partnerPayouts(ctx context.Context, ws *models.Workspace, p *models.Program, ep *models.EnrolledPartner) (vc.TablePage, error) {
	v := vc.TablePage{TestID: "partner-payouts", Title: "Latest payouts", Empty: "No payouts yet",
		Headers: []string{"Period", "Amount", "Status", "Paid"}}
	q := models.PayoutQuery{PartnerID: ep.Partner.ID, SortBy: "createdAt", Desc: true, Limit: partnerLatest}
	ps, err := h.DB.ListPayouts(ctx, ws.ID, p.ID, q)
	if err != nil {
		return v, err
	}
	total, err := h.DB.CountPayouts(ctx, ws.ID, p.ID, q)
	if err != nil {
		return v, err
	}
	for _, po := range ps {
		v.Rows = append(v.Rows, vc.TableRow{ID: po.ID, Cells: []string{period(&po), money(po.Amount), payoutStatus(&po, p.MinPayoutAmount), optDate(po)}})
	}
	if total > 0 {
		v.Related = []vc.FilterLink{{Label: "All " + thousands(total) + " payouts of " + ep.Partner.Name + " →", Href: route.URL(route.Payouts) + "?partnerId=" + ep.Partner.ID}}
	}
	return v, nil
}
