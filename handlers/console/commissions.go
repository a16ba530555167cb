package console

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

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
	page := route.URL(route.Commissions)
	statusFilters(c, &v, page, st, models.CommissionStatuses...)
	sort := sortLinks(c, &v, page, c.Query("sort"), [2]string{"createdAt", "Newest"}, [2]string{"amount", "Sale amount"})
	lp := pageOf(c, listPageSize)
	q := models.CommissionQuery{Status: st, SortBy: sort, Desc: true, Limit: lp.Size, Offset: lp.Offset()}
	if pid := c.Query("partnerId"); pid != "" {
		q.PartnerID = &models.SetFilter{Values: []string{pid}}
		if err := h.onePartner(c, &v, page, pid); err != nil {
			return err
		}
	}
	cs, err := h.DB.ListCommissions(ctx, ws.ID, p.ID, q)
	if err != nil {
		return err
	}
	total, err := h.DB.CountCommissions(ctx, ws.ID, p.ID, q)
	if err != nil {
		return err
	}
	v.Pager = pagerFor(c, page, lp, len(cs), total)
	var pids []string
	for _, cm := range cs {
		pids = append(pids, cm.PartnerID)
	}
	partners, err := h.DB.PartnersByID(ctx, ws.ID, pids)
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
			act := &vc.RowAction{Action: route.URL(route.SetCommissionStatus, cm.ID), Name: "status", Submit: "Set"}
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
	if _, err := h.Conversions.UpdateCommission(c.UserContext(), viewer(c).Workspace, c.Params("id"), conversions.CommissionPatch{Status: &st}); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Commissions))
}

// Customers lists the workspace's customers, newest first.
func (h *Handlers) Customers(c *fiber.Ctx) error {
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "customers-page", Title: "Customers",
		Headers: []string{"Customer", "External ID", "Country", "Sales", "Revenue", "First sale", "Created"}, Empty: "No customers yet"}
	ctx, ws := c.UserContext(), viewer(c).Workspace
	page := route.URL(route.Customers)
	sort := sortLinks(c, &v, page, c.Query("sort"), [2]string{"createdAt", "Newest"}, [2]string{"saleAmount", "Revenue"}, [2]string{"firstSaleAt", "First sale"})
	lp := pageOf(c, listPageSize)
	q := models.CustomerQuery{Search: strings.TrimSpace(c.Query("search")), SortBy: sort, Desc: true, Limit: lp.Size, Offset: lp.Offset()}
	cs, err := h.DB.ListCustomers(ctx, ws.ID, q)
	if err != nil {
		return err
	}
	total, err := h.DB.CountCustomers(ctx, ws.ID, q)
	if err != nil {
		return err
	}
	v.Pager = pagerFor(c, page, lp, len(cs), total)
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
