package models

import (
	"context"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
)

// Commission statuses (spec/partners-and-embed.md §4.4).
const (
	CommissionPending   = "pending"
	CommissionProcessed = "processed"
	CommissionPaid      = "paid"
	CommissionRefunded  = "refunded"
	CommissionDuplicate = "duplicate"
	CommissionFraud     = "fraud"
	CommissionCanceled  = "canceled"
	CommissionHold      = "hold"
)

// Commission types.
const (
	CommissionClick    = "click"
	CommissionLead     = "lead"
	CommissionSale     = "sale"
	CommissionReferral = "referral"
	CommissionCustom   = "custom"
)

// CommissionStatuses lists every status; CommissionTypes every type.
var (
	CommissionStatuses = []string{CommissionPending, CommissionProcessed, CommissionPaid, CommissionRefunded,
		CommissionDuplicate, CommissionFraud, CommissionCanceled, CommissionHold}
	CommissionTypes = []string{CommissionClick, CommissionLead, CommissionSale, CommissionReferral, CommissionCustom}
	// CountedStatuses make up a partner's totalCommissions.
	CountedStatuses = []string{CommissionPending, CommissionProcessed, CommissionPaid}
	// SpendStatuses count against a reward's spend limit.
	SpendStatuses = []string{CommissionPending, CommissionProcessed, CommissionPaid, CommissionHold}
)

// Commission is what a partner earns for an event (§4.5).
type Commission struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string
	ProgramID   string
	PartnerID   string
	CustomerID  *string
	LinkID      *string
	EventID     *string
	RewardID    *string
	Type        string
	Amount      int64 // sale amount for sale commissions, else 0
	Earnings    int64
	Currency    string
	Status      string
	Quantity    int64
	InvoiceID   *string
	Description *string
	UserID      *string
	Metadata    Metadata
	PayoutID    *string
	PaidAt      *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TableName pins the table.
func (Commission) TableName() string { return "commissions" }

// MsgCommissionNotFound answers an unknown commission id.
const MsgCommissionNotFound = "Commission not found."

// InsertCommission stores a commission. A commission for an event or
// (program, invoiceId) that already has one is dropped: it reports false.
func (db *DB) InsertCommission(ctx context.Context, c *Commission) (bool, error) {
	res := db.WithContext(ctx).Exec(`INSERT INTO commissions (id, workspace_id, program_id, partner_id, customer_id, link_id,
		event_id, reward_id, type, amount, earnings, currency, status, quantity, invoice_id, description, user_id, metadata,
		payout_id, paid_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		c.ID, c.WorkspaceID, c.ProgramID, c.PartnerID, c.CustomerID, c.LinkID, c.EventID, c.RewardID, c.Type,
		c.Amount, c.Earnings, c.Currency, c.Status, c.Quantity, c.InvoiceID, c.Description, c.UserID, c.Metadata,
		c.PayoutID, c.PaidAt, c.CreatedAt.UTC(), c.UpdatedAt.UTC())
	if res.Error != nil {
		return false, dbErr(res.Error, "insert commission", "", "")
	}
	return res.RowsAffected == 1, nil
}

// FirstCommission is the earliest commission of a type for (partner,
// customer) in the program.
func (db *DB) FirstCommission(ctx context.Context, workspaceID, programID, partnerID, customerID, typ string) (*Commission, error) {
	var c Commission
	err := db.WithContext(ctx).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND customer_id = ? AND type = ?", workspaceID, programID, partnerID, customerID, typ).
		Order("created_at, id").Take(&c).Error
	if err != nil {
		return nil, dbErr(err, "get first commission", MsgCommissionNotFound, "")
	}
	return &c, nil
}

// EarnedSince sums the earnings counted against a spend limit: commissions
// of the reward's event type for the partner (and customer, when given)
// created at or after since, in the spend statuses.
func (db *DB) EarnedSince(ctx context.Context, workspaceID, programID, partnerID, customerID, typ string, since time.Time) (int64, error) {
	var total int64
	q := db.WithContext(ctx).Model(&Commission{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND type = ? AND status IN ? AND created_at >= ?",
			workspaceID, programID, partnerID, typ, SpendStatuses, since.UTC())
	if customerID != "" {
		q = q.Where("customer_id = ?", customerID)
	}
	err := q.Select("COALESCE(SUM(earnings), 0)").Scan(&total).Error
	return total, dbErr(err, "sum earnings", "", "")
}

// CommissionByID loads a commission of the workspace's program.
func (db *DB) CommissionByID(ctx context.Context, workspaceID, programID, id string) (*Commission, error) {
	var c Commission
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND id = ?", workspaceID, programID, id).Take(&c).Error
	if err != nil {
		return nil, dbErr(err, "get commission", MsgCommissionNotFound, "")
	}
	return &c, nil
}

// SaveCommission writes a commission's mutable fields.
func (db *DB) SaveCommission(ctx context.Context, c *Commission) error {
	err := db.WithContext(ctx).Model(c).Where("workspace_id = ?", c.WorkspaceID).
		Select("amount", "earnings", "currency", "status", "payout_id", "paid_at", "updated_at").Updates(c).Error
	return dbErr(err, "update commission", MsgCommissionNotFound, "")
}

// CommissionQuery filters and pages GET /commissions (§4.5).
type CommissionQuery struct {
	InvoiceID     string // when set, every other filter is ignored
	Type          *SetFilter
	Status        string
	DefaultStatus bool // exclude duplicate, fraud and canceled
	PartnerID     *SetFilter
	GroupID       *SetFilter
	CustomerID    string
	PayoutID      string
	Start, End    *time.Time
	SortBy        string // createdAt | amount
	Desc          bool
	StartingAfter string
	EndingBefore  string
	Limit, Offset int
}

// ListCommissions lists the program's commissions with earnings ≠ 0.
func (db *DB) ListCommissions(ctx context.Context, workspaceID, programID string, q CommissionQuery) ([]Commission, error) {
	tx := db.WithContext(ctx).Model(&Commission{}).Where("workspace_id = ? AND program_id = ? AND earnings <> 0", workspaceID, programID)
	if q.InvoiceID != "" {
		tx = tx.Where("invoice_id = ?", q.InvoiceID)
	} else {
		tx = q.Type.apply(tx, "type")
		tx = q.PartnerID.apply(tx, "partner_id")
		if q.GroupID != nil {
			sub := db.WithContext(ctx).Model(&Enrollment{}).Select("partner_id").Where("workspace_id = ? AND program_id = ?", workspaceID, programID)
			sub = q.GroupID.apply(sub, "group_id")
			tx = tx.Where("partner_id IN (?)", sub)
		}
		if q.CustomerID != "" {
			tx = tx.Where("customer_id = ?", q.CustomerID)
		}
		if q.PayoutID != "" {
			tx = tx.Where("payout_id = ?", q.PayoutID)
		}
		switch {
		case q.Status != "":
			tx = tx.Where("status = ?", q.Status)
		case q.DefaultStatus:
			tx = tx.Where("status NOT IN ?", []string{CommissionDuplicate, CommissionFraud, CommissionCanceled})
		}
		if q.Start != nil {
			tx = tx.Where("created_at >= ?", q.Start.UTC())
		}
		if q.End != nil {
			tx = tx.Where("created_at < ?", q.End.UTC())
		}
	}
	dir, rev := "ASC", "DESC"
	if q.Desc {
		dir, rev = "DESC", "ASC"
	}
	var out []Commission
	if cursor := q.StartingAfter + q.EndingBefore; cursor != "" {
		var n int64
		if err := db.WithContext(ctx).Model(&Commission{}).Where("workspace_id = ? AND program_id = ? AND id = ?", workspaceID, programID, cursor).Count(&n).Error; err != nil {
			return nil, dbErr(err, "check cursor", "", "")
		}
		if n == 0 {
			return nil, apierr.New(apierr.Unprocessable, "Invalid cursor: the provided ID does not exist.")
		}
		after := q.StartingAfter != ""
		cmp := ">"
		if q.Desc == after {
			cmp = "<"
		}
		order := dir
		if !after {
			order = rev
		}
		if err := tx.Where("id "+cmp+" ?", cursor).Order("id " + order).Limit(q.Limit).Find(&out).Error; err != nil {
			return nil, dbErr(err, "list commissions", "", "")
		}
		if !after {
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
		}
		return out, nil
	}
	col := "created_at"
	if q.SortBy == "amount" {
		col = "amount"
	}
	err := tx.Order(col + " " + dir + ", id " + dir).Limit(q.Limit).Offset(q.Offset).Find(&out).Error
	return out, dbErr(err, "list commissions", "", "")
}

// PartnersByID loads several partners of the workspace, keyed by id.
func (db *DB) PartnersByID(ctx context.Context, workspaceID string, idList []string) (map[string]*Partner, error) {
	out := map[string]*Partner{}
	if len(idList) == 0 {
		return out, nil
	}
	var ps []Partner
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, idList).Find(&ps).Error; err != nil {
		return nil, dbErr(err, "load partners", "", "")
	}
	for i := range ps {
		out[ps[i].ID] = &ps[i]
	}
	return out, nil
}

// EnrollmentsByPartner loads the program's enrollments of several partners,
// keyed by partner id.
func (db *DB) EnrollmentsByPartner(ctx context.Context, workspaceID, programID string, partnerIDs []string) (map[string]*Enrollment, error) {
	out := map[string]*Enrollment{}
	if len(partnerIDs) == 0 {
		return out, nil
	}
	var es []Enrollment
	if err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id IN ?", workspaceID, programID, partnerIDs).Find(&es).Error; err != nil {
		return nil, dbErr(err, "load enrollments", "", "")
	}
	for i := range es {
		out[es[i].PartnerID] = &es[i]
	}
	return out, nil
}
