package console

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// The Payouts page: processed commissions gather into one pending payout per
// partner; the owner confirms them (processing), pays them outside Relink
// using the CSV, and marks each paid (completed) or failed. Relink moves no
// money.

// Payouts lists the program's payouts by status.
func (h *Handlers) Payouts(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "payouts-page", Title: "Payouts",
		Headers: []string{"Partner", "Period", "Amount", "Status", "Batch", "Paid", ""}, Empty: "No payouts"}
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		noProgram(&v)
		return h.page(c, fiber.StatusOK, "Payouts", "payouts", vc.Table(v))
	}
	// Due commissions join their payouts before the owner looks.
	if _, err := h.DB.AggregateProgram(ctx, ws.ID, p.ID, h.Now()); err != nil {
		return err
	}
	min := "no minimum"
	if p.MinPayoutAmount > 0 {
		min = "a minimum of " + money(p.MinPayoutAmount)
	}
	v.Intro = "Relink moves no money. Confirm the pending payouts (" + min + "), pay them with your own bank or PayPal using the CSV, then mark each one paid: its commissions become paid."
	v.Forms = append(v.Forms, vc.FormView{Title: "Confirm payouts", Action: route.URL(route.ConfirmPayouts), Submit: "Confirm all eligible payouts", TestID: "payouts-confirm"})
	v.Downloads = append(v.Downloads, vc.FilterLink{Label: "Download CSV of confirmed payouts to pay", Href: route.URL(route.PayoutsCSV) + "?status=processing"})
	st := c.Query("status")
	page := route.URL(route.Payouts)
	statusFilters(c, &v, page, st, models.PayoutStatuses...)
	sort := sortLinks(c, &v, page, c.Query("sort"), [2]string{"createdAt", "Newest"}, [2]string{"amount", "Amount"})
	lp := pageOf(c, listPageSize)
	q := models.PayoutQuery{Status: st, SortBy: sort, Desc: true, Limit: lp.Size, Offset: lp.Offset()}
	if pid := c.Query("partnerId"); pid != "" {
		q.PartnerID = pid
		if err := h.onePartner(c, &v, page, pid); err != nil {
			return err
		}
	}
	ps, err := h.DB.ListPayouts(ctx, ws.ID, p.ID, q)
	if err != nil {
		return err
	}
	total, err := h.DB.CountPayouts(ctx, ws.ID, p.ID, q)
	if err != nil {
		return err
	}
	v.Pager = pagerFor(c, page, lp, len(ps), total)
	partners, err := h.DB.PartnersByID(ctx, ws.ID, payoutPartnerIDs(ps))
	if err != nil {
		return err
	}
	for _, po := range ps {
		name := po.PartnerID
		if pn := partners[po.PartnerID]; pn != nil {
			name = pn.Name
		}
		row := vc.TableRow{ID: po.ID, Cells: []string{name, period(&po), money(po.Amount), payoutStatus(&po, p.MinPayoutAmount), deref(po.InvoiceID), optDate(po)}}
		if po.Status == models.PayoutProcessing {
			row.Action = &vc.RowAction{Action: route.URL(route.SetPayoutStatus, po.ID), Name: "status", Submit: "Set",
				Options: []vc.Option{{Value: "completed", Label: "Mark paid"}, {Value: "failed", Label: "Mark failed"}}}
		}
		v.Rows = append(v.Rows, row)
	}
	return h.page(c, fiber.StatusOK, "Payouts", "payouts", vc.Table(v))
}

func payoutPartnerIDs(ps []models.Payout) []string {
	out := make([]string, len(ps))
	for i := range ps {
		out[i] = ps[i].PartnerID
	}
	return out
}

func period(p *models.Payout) string {
	if p.PeriodStart == nil || p.PeriodEnd == nil {
		return "—"
	}
	return date(*p.PeriodStart) + " – " + date(*p.PeriodEnd)
}

func optDate(p models.Payout) string {
	if p.PaidAt == nil {
		return "—"
	}
	return date(*p.PaidAt)
}

// payoutStatus adds why a pending payout cannot be confirmed yet.
func payoutStatus(p *models.Payout, minAmount int64) string {
	if p.Status == models.PayoutPending && !models.PayoutEligible(p, minAmount) {
		return "pending (below minimum)"
	}
	if p.Status == models.PayoutFailed && p.FailureReason != nil {
		return "failed: " + *p.FailureReason
	}
	return p.Status
}

// ConfirmPayouts confirms every eligible pending payout in one batch.
func (h *Handlers) ConfirmPayouts(c *fiber.Ctx) error {
	p, err := h.DB.DefaultProgram(c.UserContext(), viewer(c).Workspace.ID)
	if err != nil {
		return err
	}
	user := viewer(c).User.ID
	batch, ps, err := h.Conversions.ConfirmPayouts(c.UserContext(), p, nil, &user)
	if err != nil {
		return err
	}
	h.Logger.Info("payouts confirmed", "program", p.ID, "batch", batch, "count", len(ps))
	return redirect(c, route.URL(route.Payouts)+"?status=processing")
}

// SetPayoutStatus marks a confirmed payout paid or failed.
func (h *Handlers) SetPayoutStatus(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	p, err := h.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return err
	}
	ids := []string{c.Params("id")}
	switch c.FormValue("status") {
	case models.PayoutCompleted:
		_, err = h.Conversions.CompletePayouts(ctx, p, ids)
	case models.PayoutFailed:
		reason := strings.TrimSpace(c.FormValue("reason"))
		if reason == "" {
			reason = "Marked failed in the console."
		}
		_, err = h.Conversions.FailPayouts(ctx, p, ids, reason)
	default:
		err = apierr.Validation("invalid_value", "status", "Choose completed or failed.")
	}
	if err != nil {
		return err
	}
	return redirect(c, route.URL(route.Payouts))
}

// PayoutsCSV exports payouts (default: confirmed ones, what to pay now) as
// CSV: one row per payout with the partner's payout details.
func (h *Handlers) PayoutsCSV(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	p, err := h.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return err
	}
	st := c.Query("status", models.PayoutProcessing)
	ps, err := h.DB.ListPayouts(ctx, ws.ID, p.ID, models.PayoutQuery{Status: st, SortBy: "createdAt"})
	if err != nil {
		return err
	}
	partners, err := h.DB.PartnersByID(ctx, ws.ID, payoutPartnerIDs(ps))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"payout_id", "batch", "partner_id", "partner_name", "partner_email", "payout_method", "paypal_email",
		"amount", "currency", "period_start", "period_end", "status"})
	for _, po := range ps {
		row := []string{po.ID, deref(po.InvoiceID), po.PartnerID, "", "", "", "", fmt.Sprintf("%d.%02d", po.Amount/100, abs(po.Amount%100)),
			po.Currency, isoDate(po.PeriodStart), isoDate(po.PeriodEnd), po.Status}
		if po.Amount < 0 && po.Amount > -100 {
			row[7] = "-" + row[7]
		}
		if pn := partners[po.PartnerID]; pn != nil {
			row[3], row[4], row[5], row[6] = csvSafe(pn.Name), pn.Email, deref(pn.DefaultPayoutMethod), deref(pn.PaypalEmail)
		}
		_ = w.Write(row)
	}
	w.Flush()
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="payouts-`+st+`.csv"`)
	return c.Send(b.Bytes())
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func isoDate(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}
