package conversions

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// commissionEvent is a tracked lead or sale that may earn a commission.
type commissionEvent struct {
	Workspace *models.Workspace
	Link      *models.Link
	Customer  *models.Customer
	Type      string // lead | sale
	Quantity  int64
	Amount    int64 // sale amount, USD cents
	InvoiceID *string
	EventID   string
	Metadata  map[string]any
	At        time.Time
	SignupAt  time.Time // the customer's creation (sales)
	UserID    *string   // who created a manual commission (POST /commissions)
}

// eventCommission creates the commission a lead or sale on a partner link
// earns, inside the tracking transaction (§4.3). Most events earn nothing:
// no partner link, an ineligible enrollment, no reward, a repeated lead, a
// sale past maxDuration, zero earnings, or a spent limit.
func (s *Service) eventCommission(ctx context.Context, tx *models.DB, ev commissionEvent) (*models.Commission, error) {
	cm, err := s.eventCommissionRow(ctx, tx, ev)
	if err != nil || cm == nil {
		return nil, err
	}
	return cm, s.emitCommission(ctx, tx, cm, ev.Customer, ev.Link)
}

// eventCommissionRow writes the commission of a lead or sale event, if
// any, and returns it.
func (s *Service) eventCommissionRow(ctx context.Context, tx *models.DB, ev commissionEvent) (*models.Commission, error) {
	l := ev.Link
	if l.ProgramID == nil || l.PartnerID == nil {
		return nil, nil
	}
	ws := ev.Workspace
	e, err := tx.EnrollmentByPartner(ctx, ws.ID, *l.ProgramID, *l.PartnerID)
	if models.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !e.CommissionEligible() {
		return nil, nil
	}
	rewardID := e.RewardIDFor(ev.Type)
	if rewardID == nil {
		return nil, nil
	}
	stored, err := tx.RewardByID(ctx, ws.ID, *rewardID)
	if models.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	first, err := tx.FirstCommission(ctx, ws.ID, e.ProgramID, e.PartnerID, ev.Customer.ID, ev.Type)
	if err != nil && !models.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		first = nil
	}
	rctx := eventRewardContext(ev, first)
	if needsPartner(stored) {
		pc, err := partnerContext(ctx, tx, ws.ID, e)
		if err != nil {
			return nil, err
		}
		rctx["partner"] = pc
	}
	r := Resolve(stored, rctx)
	if r.IsZero() {
		return nil, nil
	}
	if first != nil {
		if first.Status == models.CommissionFraud || first.Status == models.CommissionCanceled {
			return nil, nil
		}
		if ev.Type == models.CommissionLead {
			return nil, nil // one lead commission per (partner, customer), ever
		}
		different := first.RewardID == nil || *first.RewardID != r.ID
		var firstMax *int
		if different && first.RewardID != nil {
			if fr, err := tx.RewardByID(ctx, ws.ID, *first.RewardID); err == nil {
				firstMax = fr.MaxDuration
			} else if !models.IsNotFound(err) {
				return nil, err
			}
		}
		if !SaleAllowed(r, different, firstMax, first.CreatedAt, ev.At) {
			return nil, nil
		}
	}
	earnings, err := spendLimited(ctx, tx, ev, e, stored, Earnings(r, ev.Quantity, ev.Amount))
	if err != nil {
		return nil, err
	}
	if earnings <= 0 {
		return nil, nil
	}
	amount := int64(0)
	if ev.Type == models.CommissionSale {
		amount = ev.Amount
	}
	cust, link, rid, evID := ev.Customer.ID, l.ID, r.ID, ev.EventID
	cm := &models.Commission{
		ID: ids.New(ids.Commission), WorkspaceID: ws.ID, ProgramID: e.ProgramID, PartnerID: e.PartnerID,
		CustomerID: &cust, LinkID: &link, EventID: &evID, RewardID: &rid, Type: ev.Type,
		Amount: amount, Earnings: earnings, Currency: "usd", Status: models.CommissionPending, Quantity: ev.Quantity,
		InvoiceID: ev.InvoiceID, Metadata: ev.Metadata, UserID: ev.UserID, CreatedAt: ev.At, UpdatedAt: ev.At,
	}
	created, err := tx.InsertCommission(ctx, cm)
	if err != nil || !created {
		return nil, err
	}
	return cm, tx.AddTotalCommissions(ctx, ws.ID, e.ProgramID, e.PartnerID, earnings)
}

// eventRewardContext is what a lead's or sale's reward conditions see
// (§4.3): the customer, and the lead's metadata or the sale's amount, type
// (new, or recurring after the first commission) and subscription dates.
func eventRewardContext(ev commissionEvent, first *models.Commission) RewardContext {
	rctx := RewardContext{
		"customer": {"source": "tracked"},
	}
	if ev.Customer.Country != nil {
		rctx["customer"]["country"] = *ev.Customer.Country
	}
	switch ev.Type {
	case models.CommissionLead:
		rctx["lead"] = map[string]any{}
		if ev.Metadata != nil {
			rctx["lead"]["metadata"] = ev.Metadata
		}
	case models.CommissionSale:
		start, saleType := ev.At, "new"
		if first != nil {
			start, saleType = first.CreatedAt, "recurring"
		}
		rctx["customer"]["signupDate"] = float64(ev.SignupAt.UnixMilli())
		rctx["customer"]["subscriptionStartDate"] = float64(start.UnixMilli())
		rctx["customer"]["subscriptionDurationMonths"] = float64(MonthsBetween(start, ev.At))
		rctx["sale"] = map[string]any{"amount": float64(ev.Amount), "type": saleType}
		if ev.Metadata != nil {
			rctx["sale"]["metadata"] = ev.Metadata
			if pid, ok := ev.Metadata["productId"]; ok {
				rctx["sale"]["productId"] = pid
			}
		}
	}
	return rctx
}

// spendLimited caps earnings by what the reward's spend limit leaves in its
// window (for sales, per customer).
func spendLimited(ctx context.Context, tx *models.DB, ev commissionEvent, e *models.Enrollment, stored *models.Reward, earnings int64) (int64, error) {
	if stored.SpendLimitAmount == nil {
		return earnings, nil
	}
	interval := "allTime"
	if stored.SpendLimitInterval != nil {
		interval = *stored.SpendLimitInterval
	}
	customerID := ""
	if ev.Type == models.CommissionSale {
		customerID = ev.Customer.ID
	}
	spent, err := tx.EarnedSince(ctx, ev.Workspace.ID, e.ProgramID, e.PartnerID, customerID, ev.Type, SpendWindowStart(interval, ev.At))
	if err != nil {
		return 0, err
	}
	return max(0, min(earnings, *stored.SpendLimitAmount-spent)), nil
}

// needsPartner reports whether any modifier looks at the partner.
func needsPartner(r *models.Reward) bool {
	if !r.Modifiers.Valid {
		return false
	}
	for _, m := range r.Modifiers.V {
		for _, c := range m.Conditions {
			if c.Entity == "partner" {
				return true
			}
		}
	}
	return false
}

func partnerContext(ctx context.Context, tx *models.DB, workspaceID string, e *models.Enrollment) (map[string]any, error) {
	ep, err := tx.EnrolledPartnerByID(ctx, workspaceID, e.ProgramID, e.PartnerID)
	if err != nil {
		return nil, err
	}
	pc := map[string]any{
		"totalClicks": float64(ep.Stats.Clicks), "totalLeads": float64(ep.Stats.Leads),
		"totalConversions": float64(ep.Stats.Conversions), "totalSales": float64(ep.Stats.Sales),
		"totalSaleAmount": float64(ep.Stats.SaleAmount), "totalCommissions": float64(ep.Stats.Commissions),
	}
	if ep.Partner.Country != nil {
		pc["country"] = *ep.Partner.Country
	}
	return pc, nil
}

// ClickCommissions creates the click commissions of one UTC day for every
// program (§4.3 "Click commissions"): per link of a commission-eligible
// enrollment with a click reward, the day's clicks by country, each country
// rewarded with the modifiers resolved for it. The invoice id
// "<linkId>-<YYYY-MM-DD>" makes reruns harmless. It returns how many
// commissions were created.
func (s *Service) ClickCommissions(ctx context.Context, day time.Time) (int, error) {
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	end := start.Add(24 * time.Hour)
	var ens []models.Enrollment
	err := s.DB.WithContext(ctx).Where("click_reward_id IS NOT NULL AND status IN ?",
		[]string{models.EnrollmentApproved, models.EnrollmentArchived, models.EnrollmentInvited}).Find(&ens).Error
	if err != nil {
		return 0, fmt.Errorf("list click-rewarded enrollments: %w", err)
	}
	created := 0
	for i := range ens {
		e := &ens[i]
		n, err := s.enrollmentClickCommissions(ctx, e, start, end)
		if err != nil {
			return created, err
		}
		created += n
	}
	return created, nil
}

func (s *Service) enrollmentClickCommissions(ctx context.Context, e *models.Enrollment, start, end time.Time) (int, error) {
	stored, err := s.DB.RewardByID(ctx, e.WorkspaceID, *e.ClickRewardID)
	if models.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var rows []struct {
		LinkID  string
		Country string
		Clicks  int64
	}
	// The day's clicks are in clicks, or, with the ClickHouse event store,
	// in the attribution table (its key leads with the workspace and the
	// UTC day); a click is in one of the two (models.RecordAttributionClicks).
	err = s.DB.WithContext(ctx).Raw(`SELECT c.link_id AS link_id, c.country AS country, COUNT(*) AS clicks FROM (
			SELECT link_id, country FROM clicks WHERE workspace_id = ? AND timestamp >= ? AND timestamp < ?
			UNION ALL
			SELECT link_id, country FROM `+models.AttributionTable+` WHERE workspace_id = ? AND day = ? AND timestamp >= ? AND timestamp < ?
		) c JOIN links l ON l.id = c.link_id
		WHERE l.workspace_id = ? AND l.program_id = ? AND l.partner_id = ?
		GROUP BY c.link_id, c.country ORDER BY c.link_id`,
		e.WorkspaceID, start, end, e.WorkspaceID, models.ClickDay(start), start, end, e.WorkspaceID, e.ProgramID, e.PartnerID).Scan(&rows).Error
	if err != nil {
		return 0, fmt.Errorf("count clicks: %w", err)
	}
	type total struct{ clicks, earnings int64 }
	perLink := map[string]*total{}
	var order []string
	for _, r := range rows {
		t := perLink[r.LinkID]
		if t == nil {
			t = &total{}
			perLink[r.LinkID] = t
			order = append(order, r.LinkID)
		}
		rw := Resolve(stored, RewardContext{"customer": {"country": r.Country}})
		t.clicks += r.Clicks
		t.earnings += Earnings(rw, r.Clicks, 0)
	}
	created := 0
	at := end.Add(-time.Millisecond)
	for _, linkID := range order {
		t := perLink[linkID]
		err := s.DB.Tx(ctx, func(tx *models.DB) error {
			earnings := t.earnings
			if stored.SpendLimitAmount != nil {
				interval := "allTime"
				if stored.SpendLimitInterval != nil {
					interval = *stored.SpendLimitInterval
				}
				spent, err := tx.EarnedSince(ctx, e.WorkspaceID, e.ProgramID, e.PartnerID, "", models.CommissionClick, SpendWindowStart(interval, at))
				if err != nil {
					return err
				}
				earnings = max(0, min(earnings, *stored.SpendLimitAmount-spent))
			}
			if earnings <= 0 {
				return nil
			}
			inv, lid, rid := linkID+"-"+start.Format("2006-01-02"), linkID, stored.ID
			ok, err := tx.InsertCommission(ctx, &models.Commission{
				ID: ids.New(ids.Commission), WorkspaceID: e.WorkspaceID, ProgramID: e.ProgramID, PartnerID: e.PartnerID,
				LinkID: &lid, RewardID: &rid, Type: models.CommissionClick, Earnings: earnings, Currency: "usd",
				Status: models.CommissionPending, Quantity: t.clicks, InvoiceID: &inv, CreatedAt: at, UpdatedAt: at,
			})
			if err != nil || !ok {
				return err
			}
			created++
			return tx.AddTotalCommissions(ctx, e.WorkspaceID, e.ProgramID, e.PartnerID, earnings)
		})
		if err != nil {
			return created, err
		}
	}
	return created, nil
}

// CommissionPatch is a validated PATCH /commissions/{id} body.
type CommissionPatch struct {
	Earnings         *int64
	SaleAmount       *int64 // converted to USD cents by the caller's currency
	ModifySaleAmount *int64
	Currency         string
	Status           *string
}

// EditableStatuses are the statuses PATCH may set.
var EditableStatuses = []string{models.CommissionPending, models.CommissionRefunded, models.CommissionDuplicate,
	models.CommissionCanceled, models.CommissionFraud}

// UpdateCommission applies PATCH /commissions/{id} (§4.5).
func (s *Service) UpdateCommission(ctx context.Context, ws *models.Workspace, id string, p CommissionPatch) (*models.Commission, error) {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	var out *models.Commission
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		c, err := tx.CommissionByID(ctx, ws.ID, prog.ID, id)
		if err != nil {
			return err
		}
		out, err = s.patchCommission(ctx, tx, ws, prog.ID, c, p)
		return err
	})
	return out, err
}

// patchCommission applies a patch to c in the transaction: the checks,
// the new amount and earnings, the payouts it leaves or joins, the
// partner's totals and commission.updated.
func (s *Service) patchCommission(ctx context.Context, tx *models.DB, ws *models.Workspace, programID string, c *models.Commission, p CommissionPatch) (*models.Commission, error) {
	if err := commissionEditable(ctx, tx, ws.ID, c, p.Status); err != nil {
		return nil, err
	}
	changedAmount := p.ModifySaleAmount != nil || p.SaleAmount != nil
	if changedAmount {
		if err := s.repriceCommission(ctx, tx, ws, programID, c, p); err != nil {
			return nil, err
		}
	}
	if p.Earnings != nil {
		c.Earnings = *p.Earnings
	}
	var oldPayout *string
	if p.Status != nil {
		c.Status = *p.Status
		oldPayout, c.PayoutID = c.PayoutID, nil // any status change detaches the payout
	}
	if (changedAmount || p.Earnings != nil) && (c.Earnings == 0 || (c.Type == models.CommissionSale && c.Amount == 0)) {
		c.Status = models.CommissionRefunded
	}
	c.UpdatedAt = s.now()
	if err := tx.SaveCommission(ctx, c); err != nil {
		return nil, err
	}
	if oldPayout != nil {
		if err := tx.ReconcilePayouts(ctx, ws.ID, []string{*oldPayout}, c.UpdatedAt); err != nil {
			return nil, err
		}
	} else if c.PayoutID != nil {
		if err := tx.ReconcilePayouts(ctx, ws.ID, []string{*c.PayoutID}, c.UpdatedAt); err != nil {
			return nil, err
		}
	}
	if err := tx.RecomputeTotalCommissions(ctx, ws.ID, programID, c.PartnerID); err != nil {
		return nil, err
	}
	return c, s.emitCommissionUpdated(ctx, tx, c)
}

// repriceCommission sets a sale commission's new sale amount and the
// earnings the partner's sale reward gives for it.
func (s *Service) repriceCommission(ctx context.Context, tx *models.DB, ws *models.Workspace, programID string, c *models.Commission, p CommissionPatch) error {
	convert := func(v int64) int64 {
		if usd, ok := s.FX.ToUSDCents(v, p.Currency); ok {
			return usd
		}
		return v
	}
	var saleAmount int64
	if p.ModifySaleAmount != nil {
		saleAmount = max(0, c.Amount+convert(*p.ModifySaleAmount))
	} else {
		saleAmount = convert(*p.SaleAmount)
	}
	if c.Type != models.CommissionSale {
		return apierr.Newf(apierr.BadRequest, "Cannot update sale amount: Commission %s is not a sale commission.", c.ID)
	}
	e, err := tx.EnrollmentByPartner(ctx, ws.ID, programID, c.PartnerID)
	if err != nil {
		return err
	}
	if e.SaleRewardID == nil {
		return apierr.New(apierr.NotFound, "No sale reward found for this partner.")
	}
	stored, err := tx.RewardByID(ctx, ws.ID, *e.SaleRewardID)
	if err != nil {
		return err
	}
	c.Amount = saleAmount
	c.Earnings = Earnings(Resolve(stored, RewardContext{}), c.Quantity, saleAmount)
	return nil
}

// Tick is one round of the commission schedule (internal/app runs it every
// hour as the "commissions" job): commissions past their holding period
// become processed, and the previous UTC day's click commissions are created
// (idempotent). Failures are logged; the next round retries.
func (s *Service) Tick(ctx context.Context) {
	now := s.now()
	if n, err := s.DB.ProcessDueCommissions(ctx, now); err != nil {
		s.Log.Error("process commissions", "err", err)
	} else if n > 0 {
		s.Log.Info("commissions processed", "count", n)
	}
	if n, err := s.ClickCommissions(ctx, now.Add(-24*time.Hour)); err != nil {
		s.Log.Error("click commissions", "err", err)
	} else if n > 0 {
		s.Log.Info("click commissions created", "count", n)
	}
}

// commissionEditable applies upstream's checks before a single commission
// changes (update-partner-commission.ts), in its order and wording: paid
// commissions and commissions in a payout past pending/canceled are frozen,
// and a status change must change the status.
func commissionEditable(ctx context.Context, tx *models.DB, workspaceID string, c *models.Commission, status *string) error {
	if c.Status == models.CommissionPaid {
		return apierr.Newf(apierr.BadRequest, "Cannot update commission: Commission %s has already been paid.", c.ID)
	}
	if c.PayoutID != nil {
		var p models.Payout
		err := tx.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, *c.PayoutID).Limit(1).Find(&p).Error
		if err != nil {
			return fmt.Errorf("load payout of commission %s: %w", c.ID, err)
		}
		if p.ID != "" && !slices.Contains(models.MutablePayoutStatuses, p.Status) {
			return apierr.Newf(apierr.BadRequest, "Cannot update commission: Its payout is already %s.", p.Status)
		}
	}
	if status != nil && *status == c.Status {
		return apierr.Newf(apierr.BadRequest, "This commission is already in the %s status.", *status)
	}
	return nil
}
