package models

import (
	"context"
	"fmt"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

// Payout statuses (spec/parity.md §4.2). Relink moves no money: an owner confirms
// pending payouts (processing), pays them outside Relink and marks them paid
// (completed), or failed.
const (
	PayoutPending    = "pending"
	PayoutProcessing = "processing"
	PayoutProcessed  = "processed"
	PayoutSent       = "sent"
	PayoutCompleted  = "completed"
	PayoutFailed     = "failed"
	PayoutCanceled   = "canceled"
)

// PayoutStatuses lists every status (the SDK's closed enum).
var PayoutStatuses = []string{PayoutPending, PayoutProcessing, PayoutProcessed, PayoutSent, PayoutCompleted, PayoutFailed, PayoutCanceled}

// MutablePayoutStatuses are the statuses whose commissions may still change.
var MutablePayoutStatuses = []string{PayoutPending, PayoutCanceled}

// PayoutModeExternal is the mode of every Relink payout: the program owner
// sends the money outside Relink.
const PayoutModeExternal = "external"

// Payout gathers a partner's processed commissions of one period (§4.1).
type Payout struct {
	ID            string `gorm:"primaryKey"`
	WorkspaceID   string
	ProgramID     string
	PartnerID     string
	InvoiceID     *string
	Amount        int64
	Currency      string
	Status        string
	Description   *string
	PeriodStart   *time.Time
	PeriodEnd     *time.Time
	Mode          *string
	Method        *string
	FailureReason *string
	UserID        *string
	InitiatedAt   *time.Time
	PaidAt        *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// TableName pins the table.
func (Payout) TableName() string { return "payouts" }

// Prefixes of payout ids and of confirmation batches (the invoiceId).
const (
	payoutPrefix      = "po_"
	payoutBatchPrefix = "pob_"
)

// PayoutQuery filters and pages GET /payouts (§4.3).
type PayoutQuery struct {
	Status    string
	PartnerID string
	InvoiceID string
	GroupID   *SetFilter
	SortBy    string // amount | initiatedAt | paidAt | createdAt
	Desc      bool
	Limit     int
	Offset    int
}

// ListPayouts lists the program's payouts; equal sort keys fall back to id.
func (db *DB) ListPayouts(ctx context.Context, workspaceID, programID string, q PayoutQuery) ([]Payout, error) {
	tx := db.WithContext(ctx).Model(&Payout{}).Where("workspace_id = ? AND program_id = ?", workspaceID, programID)
	if q.Status != "" {
		tx = tx.Where("status = ?", q.Status)
	}
	if q.PartnerID != "" {
		tx = tx.Where("partner_id = ?", q.PartnerID)
	}
	if q.InvoiceID != "" {
		tx = tx.Where("invoice_id = ?", q.InvoiceID)
	}
	if q.GroupID != nil {
		sub := db.WithContext(ctx).Model(&Enrollment{}).Select("partner_id").Where("workspace_id = ? AND program_id = ?", workspaceID, programID)
		sub = q.GroupID.apply(sub, "group_id")
		tx = tx.Where("partner_id IN (?)", sub)
	}
	col := map[string]string{"amount": "amount", "initiatedAt": "initiated_at", "paidAt": "paid_at", "createdAt": "created_at"}[q.SortBy]
	if col == "" {
		col = "amount"
	}
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	// Nulls first ascending, last descending, on both dialects (as MySQL).
	nulls := "CASE WHEN " + col + " IS NULL THEN 0 ELSE 1 END " + dir
	if q.Limit > 0 {
		tx = tx.Limit(q.Limit).Offset(q.Offset)
	}
	var out []Payout
	err := tx.Order(nulls + ", " + col + " " + dir + ", id DESC").Find(&out).Error
	return out, dbErr(err, "list payouts", "", "")
}

// PayoutByID loads one of the program's payouts.
func (db *DB) PayoutByID(ctx context.Context, workspaceID, programID, id string) (*Payout, error) {
	var p Payout
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND id = ?", workspaceID, programID, id).Take(&p).Error
	return &p, dbErr(err, "get payout", "Payout not found.", "")
}

// ReconcilePayouts recomputes the amount and period of mutable payouts from
// their commissions and deletes those left without commissions (§3).
func (db *DB) ReconcilePayouts(ctx context.Context, workspaceID string, payoutIDs []string, now time.Time) error {
	for _, id := range payoutIDs {
		var agg struct {
			N     int64
			Total int64
		}
		err := db.WithContext(ctx).Model(&Commission{}).
			Select("COUNT(*) AS n, COALESCE(SUM(earnings), 0) AS total").
			Where("workspace_id = ? AND payout_id = ?", workspaceID, id).Scan(&agg).Error
		if err != nil {
			return dbErr(err, "sum payout commissions", "", "")
		}
		q := db.WithContext(ctx).Where("workspace_id = ? AND id = ? AND status IN ?", workspaceID, id, MutablePayoutStatuses)
		if agg.N == 0 {
			if err := q.Delete(&Payout{}).Error; err != nil {
				return dbErr(err, "delete empty payout", "", "")
			}
			continue
		}
		first, last, err := db.commissionSpan(ctx, workspaceID, id)
		if err != nil {
			return err
		}
		err = q.Model(&Payout{}).Updates(map[string]any{"amount": agg.Total, "period_start": first, "period_end": last, "updated_at": now.UTC()}).Error
		if err != nil {
			return dbErr(err, "update payout amount", "", "")
		}
	}
	return nil
}

// commissionSpan is the createdAt of the first and last commission of a payout.
func (db *DB) commissionSpan(ctx context.Context, workspaceID, payoutID string) (time.Time, time.Time, error) {
	var first, last Commission
	where := "workspace_id = ? AND payout_id = ?"
	if err := db.WithContext(ctx).Where(where, workspaceID, payoutID).Order("created_at, id").Take(&first).Error; err != nil {
		return time.Time{}, time.Time{}, dbErr(err, "first payout commission", "", "")
	}
	if err := db.WithContext(ctx).Where(where, workspaceID, payoutID).Order("created_at DESC, id DESC").Take(&last).Error; err != nil {
		return time.Time{}, time.Time{}, dbErr(err, "last payout commission", "", "")
	}
	return first.CreatedAt.UTC(), last.CreatedAt.UTC(), nil
}

// ProcessDueCommissions is the aggregation job (§4.4 step 2) for every
// program: pending commissions past their group's holding period (custom
// and referral ones at once) become processed and join their partner's
// pending payout, created when missing. It returns how many moved.
func (db *DB) ProcessDueCommissions(ctx context.Context, now time.Time) (int64, error) {
	var groups []Group
	if err := db.WithContext(ctx).Order("workspace_id, id").Find(&groups).Error; err != nil {
		return 0, dbErr(err, "list groups", "", "")
	}
	var moved int64
	for i := range groups {
		n, err := db.aggregateGroup(ctx, &groups[i], "", now)
		if err != nil {
			return moved, err
		}
		moved += n
	}
	return moved, nil
}

// AggregateProgram runs the aggregation job for one program (after manual
// commissions, and before payouts are listed in the console).
func (db *DB) AggregateProgram(ctx context.Context, workspaceID, programID string, now time.Time) (int64, error) {
	gs, err := db.ListGroups(ctx, workspaceID, programID)
	if err != nil {
		return 0, err
	}
	var moved int64
	for i := range gs {
		n, err := db.aggregateGroup(ctx, &gs[i], "", now)
		if err != nil {
			return moved, err
		}
		moved += n
	}
	return moved, nil
}

// dueCommission is what aggregation needs of a commission.
type dueCommission struct {
	ID        string
	PartnerID string
}

// aggregateGroup aggregates the due commissions of one group's partners
// (only partnerID's, when set), in batches of 500.
func (db *DB) aggregateGroup(ctx context.Context, g *Group, partnerID string, now time.Time) (int64, error) {
	cutoff := now.Add(-time.Duration(g.HoldingPeriodDays) * 24 * time.Hour).UTC()
	var moved int64
	for {
		partners := db.WithContext(ctx).Model(&Enrollment{}).Select("partner_id").
			Where("workspace_id = ? AND program_id = ? AND group_id = ?", g.WorkspaceID, g.ProgramID, g.ID)
		q := db.WithContext(ctx).Model(&Commission{}).Select("id, partner_id").
			Where("workspace_id = ? AND program_id = ? AND status = ? AND partner_id IN (?)", g.WorkspaceID, g.ProgramID, CommissionPending, partners).
			Where("(type IN ? OR created_at <= ?)", []string{CommissionCustom, CommissionReferral}, cutoff)
		if partnerID != "" {
			q = q.Where("partner_id = ?", partnerID)
		}
		var due []dueCommission
		if err := q.Order("created_at, id").Limit(500).Scan(&due).Error; err != nil {
			return moved, dbErr(err, "list due commissions", "", "")
		}
		if len(due) == 0 {
			return moved, nil
		}
		byPartner := map[string][]string{}
		var order []string
		for _, c := range due {
			if byPartner[c.PartnerID] == nil {
				order = append(order, c.PartnerID)
			}
			byPartner[c.PartnerID] = append(byPartner[c.PartnerID], c.ID)
		}
		for _, pid := range order {
			n, err := db.claimIntoPayout(ctx, g.WorkspaceID, g.ProgramID, pid, byPartner[pid], now)
			if err != nil {
				return moved, err
			}
			moved += n
		}
		if len(due) < 500 {
			return moved, nil
		}
	}
}

// claimIntoPayout moves commissions (still pending) into the partner's
// pending payout, created when the partner has none, in one transaction.
func (db *DB) claimIntoPayout(ctx context.Context, workspaceID, programID, partnerID string, commissionIDs []string, now time.Time) (int64, error) {
	var moved int64
	err := db.Tx(ctx, func(tx *DB) error {
		var p Payout
		err := tx.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND status = ? AND invoice_id IS NULL",
			workspaceID, programID, partnerID, PayoutPending).Order("created_at, id").Take(&p).Error
		if err != nil && !IsNotFound(err) {
			return dbErr(err, "find pending payout", "", "")
		}
		if err != nil {
			var prog Program
			if err := tx.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, programID).Take(&prog).Error; err != nil {
				return dbErr(err, "get program", MsgProgramNotFound, "")
			}
			desc := fmt.Sprintf("Dub Partners payout (%s)", prog.Name)
			p = Payout{ID: ids.New(payoutPrefix), WorkspaceID: workspaceID, ProgramID: programID, PartnerID: partnerID,
				Currency: "USD", Status: PayoutPending, Description: &desc, CreatedAt: now.UTC(), UpdatedAt: now.UTC()}
			if err := tx.WithContext(ctx).Create(&p).Error; err != nil {
				return dbErr(err, "create payout", "", "")
			}
		}
		res := tx.WithContext(ctx).Model(&Commission{}).
			Where("workspace_id = ? AND id IN ? AND status = ?", workspaceID, commissionIDs, CommissionPending).
			Updates(map[string]any{"status": CommissionProcessed, "payout_id": p.ID, "updated_at": now.UTC()})
		if res.Error != nil {
			return dbErr(res.Error, "claim commissions", "", "")
		}
		moved = res.RowsAffected
		return tx.ReconcilePayouts(ctx, workspaceID, []string{p.ID}, now)
	})
	return moved, err
}

// PayoutEligible reports whether an owner may confirm a payout: pending, not
// yet in a batch, and at least the program's minimum (and more than 0).
func PayoutEligible(p *Payout, minAmount int64) bool {
	return p.Status == PayoutPending && p.InvoiceID == nil && p.Amount > 0 && p.Amount >= minAmount
}

// ConfirmPayouts takes the given pending payouts (all eligible ones when ids
// is empty) to processing in one batch: invoiceId is the batch id, userId the
// confirming user. Ineligible payouts named in ids are a 400.
func (db *DB) ConfirmPayouts(ctx context.Context, prog *Program, ids_ []string, userID *string, now time.Time) (string, []Payout, error) {
	batch := ids.New(payoutBatchPrefix)
	var out []Payout
	err := db.Tx(ctx, func(tx *DB) error {
		q := tx.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND status = ?", prog.WorkspaceID, prog.ID, PayoutPending)
		if len(ids_) > 0 {
			q = q.Where("id IN ?", ids_)
		}
		var ps []Payout
		if err := q.Order("created_at, id").Find(&ps).Error; err != nil {
			return dbErr(err, "list pending payouts", "", "")
		}
		for i := range ps {
			if !PayoutEligible(&ps[i], prog.MinPayoutAmount) {
				if len(ids_) > 0 {
					return apierr.Newf(apierr.BadRequest, "Payout %s cannot be confirmed: its amount is below the program's minimum payout amount.", ps[i].ID)
				}
				continue
			}
			out = append(out, ps[i])
		}
		if len(ids_) > 0 && len(ps) != len(ids_) {
			return apierr.New(apierr.BadRequest, "Only pending payouts can be confirmed.")
		}
		if len(out) == 0 {
			return apierr.New(apierr.BadRequest, "There are no payouts ready to be confirmed.")
		}
		partnerIDs := make([]string, len(out))
		for i := range out {
			partnerIDs[i] = out[i].PartnerID
		}
		partners, err := tx.PartnersByID(ctx, prog.WorkspaceID, partnerIDs)
		if err != nil {
			return err
		}
		mode, t := PayoutModeExternal, now.UTC()
		for i := range out {
			p := &out[i]
			p.Status, p.InvoiceID, p.UserID, p.InitiatedAt, p.Mode, p.UpdatedAt = PayoutProcessing, &batch, userID, &t, &mode, t
			if pn := partners[p.PartnerID]; pn != nil {
				p.Method = pn.DefaultPayoutMethod
			}
			err := tx.WithContext(ctx).Model(&Payout{}).Where("workspace_id = ? AND id = ? AND status = ?", p.WorkspaceID, p.ID, PayoutPending).
				Updates(map[string]any{"status": p.Status, "invoice_id": batch, "user_id": userID, "initiated_at": t, "mode": mode,
					"method": p.Method, "updated_at": t}).Error
			if err != nil {
				return dbErr(err, "confirm payout", "", "")
			}
		}
		return nil
	})
	return batch, out, err
}

// CompletePayouts marks processing payouts paid (completed, paidAt set) and
// their commissions paid. Payouts that are not processing are a 400.
func (db *DB) CompletePayouts(ctx context.Context, workspaceID, programID string, payoutIDs []string, now time.Time) ([]Payout, error) {
	return db.finishPayouts(ctx, workspaceID, programID, payoutIDs, PayoutCompleted, nil, now)
}

// FailPayouts marks processing payouts failed with a reason; their
// commissions stay processed.
func (db *DB) FailPayouts(ctx context.Context, workspaceID, programID string, payoutIDs []string, reason string, now time.Time) ([]Payout, error) {
	return db.finishPayouts(ctx, workspaceID, programID, payoutIDs, PayoutFailed, &reason, now)
}

func (db *DB) finishPayouts(ctx context.Context, workspaceID, programID string, payoutIDs []string, status string, reason *string, now time.Time) ([]Payout, error) {
	var out []Payout
	err := db.Tx(ctx, func(tx *DB) error {
		if err := tx.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND id IN ?", workspaceID, programID, payoutIDs).
			Order("created_at, id").Find(&out).Error; err != nil {
			return dbErr(err, "load payouts", "", "")
		}
		if len(out) != len(payoutIDs) {
			return apierr.New(apierr.NotFound, "Payout not found.")
		}
		t := now.UTC()
		for i := range out {
			p := &out[i]
			if p.Status != PayoutProcessing {
				return apierr.Newf(apierr.BadRequest, "Payout %s is %s: only confirmed (processing) payouts can be marked paid or failed.", p.ID, p.Status)
			}
			upd := map[string]any{"status": status, "updated_at": t}
			if status == PayoutCompleted {
				upd["paid_at"] = t
				p.PaidAt = &t
			} else {
				upd["failure_reason"] = reason
				p.FailureReason = reason
			}
			p.Status, p.UpdatedAt = status, t
			if err := tx.WithContext(ctx).Model(&Payout{}).Where("workspace_id = ? AND id = ?", workspaceID, p.ID).Updates(upd).Error; err != nil {
				return dbErr(err, "finish payout", "", "")
			}
			if status != PayoutCompleted {
				continue
			}
			err := tx.WithContext(ctx).Model(&Commission{}).Where("workspace_id = ? AND payout_id = ? AND status = ?", workspaceID, p.ID, CommissionProcessed).
				Updates(map[string]any{"status": CommissionPaid, "paid_at": t, "updated_at": t}).Error
			if err != nil {
				return dbErr(err, "mark commissions paid", "", "")
			}
		}
		return nil
	})
	return out, err
}

// MarkCommissionsPaid pays everything due in one step (the CLI's
// `commissions pay`): the program's commissions are aggregated, the eligible
// pending payouts (of one partner, when partnerID is set) confirmed and
// completed. It returns how many commissions became paid.
func (db *DB) MarkCommissionsPaid(ctx context.Context, workspaceID, programID, partnerID string, now time.Time) (int64, error) {
	prog, err := db.DefaultProgram(ctx, workspaceID)
	if err != nil {
		return 0, err
	}
	if prog.ID != programID {
		return 0, apierr.New(apierr.NotFound, MsgProgramNotFound)
	}
	q := db.WithContext(ctx).Model(&Payout{}).Where("workspace_id = ? AND program_id = ? AND status = ? AND invoice_id IS NULL", workspaceID, programID, PayoutPending)
	if partnerID != "" {
		q = q.Where("partner_id = ?", partnerID)
	}
	var ps []Payout
	if err := q.Find(&ps).Error; err != nil {
		return 0, dbErr(err, "list pending payouts", "", "")
	}
	var idList []string
	for i := range ps {
		if PayoutEligible(&ps[i], prog.MinPayoutAmount) {
			idList = append(idList, ps[i].ID)
		}
	}
	if len(idList) == 0 {
		return 0, nil
	}
	if _, _, err := db.ConfirmPayouts(ctx, prog, idList, nil, now); err != nil {
		return 0, err
	}
	if _, err := db.CompletePayouts(ctx, workspaceID, programID, idList, now); err != nil {
		return 0, err
	}
	var n int64
	err = db.WithContext(ctx).Model(&Commission{}).Where("workspace_id = ? AND payout_id IN ? AND status = ?", workspaceID, idList, CommissionPaid).Count(&n).Error
	return n, dbErr(err, "count paid commissions", "", "")
}
