package models

import (
	"context"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"gorm.io/gorm/clause"
)

// Customer is a workspace's end customer, unique by external id
// (spec/partners-and-embed.md §2.1). The first attribution stores the click, link,
// country, program and partner.
type Customer struct {
	ID                     string `gorm:"primaryKey"`
	WorkspaceID            string
	ExternalID             string
	Name                   *string
	Email                  *string
	Avatar                 *string
	StripeCustomerID       *string
	Country                *string
	ClickID                *string
	LinkID                 *string
	ClickedAt              *time.Time
	ProgramID              *string
	PartnerID              *string
	Sales                  int64
	SaleAmount             int64
	FirstSaleAt            *time.Time
	SubscriptionCanceledAt *time.Time
	CreatedAt              time.Time
	UpdatedAt              time.Time
}

// TableName pins the table.
func (Customer) TableName() string { return "customers" }

// Messages of the customer endpoints.
const (
	MsgCustomerNotFound       = "Customer not found. Make sure you're using the correct customer ID (e.g. `cus_3TagGjzRzmsFJdH8od2BNCsc`) or external ID (prefixed with `ext_`)."
	MsgDuplicateCustomerExtID = "A customer with this external ID already exists."
)

// CustomerByExternalID finds a customer by the caller's id for it.
func (db *DB) CustomerByExternalID(ctx context.Context, workspaceID, externalID string) (*Customer, error) {
	var c Customer
	err := db.WithContext(ctx).Where("workspace_id = ? AND external_id = ?", workspaceID, externalID).Take(&c).Error
	if err != nil {
		return nil, dbErr(err, "get customer by external id", MsgCustomerNotFound, "")
	}
	return &c, nil
}

// CustomerByID loads a customer of the workspace.
func (db *DB) CustomerByID(ctx context.Context, workspaceID, id string) (*Customer, error) {
	var c Customer
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&c).Error
	if err != nil {
		return nil, dbErr(err, "get customer", MsgCustomerNotFound, "")
	}
	return &c, nil
}

// CustomerByRef resolves "cus_…" or "ext_<externalId>".
func (db *DB) CustomerByRef(ctx context.Context, workspaceID, ref string) (*Customer, error) {
	if ext, ok := strings.CutPrefix(ref, "ext_"); ok {
		return db.CustomerByExternalID(ctx, workspaceID, ext)
	}
	return db.CustomerByID(ctx, workspaceID, ref)
}

// CustomersByID loads several customers of the workspace, keyed by id.
func (db *DB) CustomersByID(ctx context.Context, workspaceID string, idList []string) (map[string]*Customer, error) {
	out := map[string]*Customer{}
	if len(idList) == 0 {
		return out, nil
	}
	var cs []Customer
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, idList).Find(&cs).Error; err != nil {
		return nil, dbErr(err, "load customers", "", "")
	}
	for i := range cs {
		out[cs[i].ID] = &cs[i]
	}
	return out, nil
}

// CreateCustomer stores a new customer; a taken external id is a 409.
func (db *DB) CreateCustomer(ctx context.Context, c *Customer) error {
	err := db.WithContext(ctx).Create(c).Error
	return dbErr(err, "create customer", "", MsgDuplicateCustomerExtID)
}

// CustomerPatch is PATCH /customers/{id}'s changes; nil fields stay.
type CustomerPatch struct {
	Name, Email, Avatar, StripeCustomerID **string
	ExternalID                            *string
}

// UpdateCustomer applies a patch; a taken external id is a 409.
func (db *DB) UpdateCustomer(ctx context.Context, c *Customer, p CustomerPatch) error {
	set := map[string]any{}
	if p.Name != nil {
		set["name"], c.Name = *p.Name, *p.Name
	}
	if p.Email != nil {
		set["email"], c.Email = *p.Email, *p.Email
	}
	if p.Avatar != nil {
		set["avatar"], c.Avatar = *p.Avatar, *p.Avatar
	}
	if p.StripeCustomerID != nil {
		set["stripe_customer_id"], c.StripeCustomerID = *p.StripeCustomerID, *p.StripeCustomerID
	}
	if p.ExternalID != nil {
		set["external_id"], c.ExternalID = *p.ExternalID, *p.ExternalID
	}
	if len(set) == 0 {
		return nil
	}
	c.UpdatedAt = time.Now().UTC()
	set["updated_at"] = c.UpdatedAt
	err := db.WithContext(ctx).Model(&Customer{}).Where("workspace_id = ? AND id = ?", c.WorkspaceID, c.ID).Updates(set).Error
	return dbErr(err, "update customer", MsgCustomerNotFound, MsgDuplicateCustomerExtID)
}

// DeleteCustomer removes a customer of the workspace. Its events stay (the
// analytics show them as a deleted customer).
func (db *DB) DeleteCustomer(ctx context.Context, workspaceID, id string) error {
	res := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Customer{})
	if res.Error != nil {
		return dbErr(res.Error, "delete customer", "", "")
	}
	if res.RowsAffected == 0 {
		return apierr.New(apierr.NotFound, MsgCustomerNotFound)
	}
	return nil
}

// CustomerQuery filters and pages GET /customers (§2.2).
type CustomerQuery struct {
	Email, ExternalID, Search string
	Country, LinkID           string
	ProgramID, PartnerID      string // PartnerID implies ProgramID
	SortBy                    string // createdAt | saleAmount | firstSaleAt | subscriptionCanceledAt
	Desc                      bool
	StartingAfter             string
	EndingBefore              string
	Limit, Offset             int
}

var customerSortColumns = map[string]string{
	"createdAt":              "created_at",
	"saleAmount":             "sale_amount",
	"firstSaleAt":            "first_sale_at",
	"subscriptionCanceledAt": "subscription_canceled_at",
}

// ListCustomers lists customers by the query. With a cursor the rows are
// ordered by id (time-sortable) and the cursor must name a customer of the
// workspace, else 422.
func (db *DB) ListCustomers(ctx context.Context, workspaceID string, q CustomerQuery) ([]Customer, error) {
	tx := db.WithContext(ctx).Model(&Customer{}).Where("workspace_id = ?", workspaceID)
	switch {
	case q.Email != "":
		tx = tx.Where("email = ?", q.Email)
	case q.ExternalID != "":
		tx = tx.Where("external_id = ?", q.ExternalID)
	case q.Search != "":
		if strings.Contains(q.Search, "@") {
			tx = tx.Where("email = ?", q.Search)
		} else {
			like := "%" + escapeLike(strings.ToLower(q.Search)) + "%"
			tx = tx.Where(`(lower(COALESCE(email, '')) LIKE ? ESCAPE '\' OR lower(COALESCE(name, '')) LIKE ? ESCAPE '\')`, like, like)
		}
	}
	if q.Country != "" {
		tx = tx.Where("country = ?", q.Country)
	}
	if q.LinkID != "" {
		tx = tx.Where("link_id = ?", q.LinkID)
	}
	if q.ProgramID != "" {
		tx = tx.Where("program_id = ?", q.ProgramID)
	}
	if q.PartnerID != "" {
		tx = tx.Where("partner_id = ?", q.PartnerID)
	}
	dir, rev := "ASC", "DESC"
	if q.Desc {
		dir, rev = "DESC", "ASC"
	}
	var out []Customer
	if cursor := q.StartingAfter + q.EndingBefore; cursor != "" {
		var n int64
		if err := db.WithContext(ctx).Model(&Customer{}).Where("workspace_id = ? AND id = ?", workspaceID, cursor).Count(&n).Error; err != nil {
			return nil, dbErr(err, "check cursor", "", "")
		}
		if n == 0 {
			return nil, apierr.New(apierr.Unprocessable, "Invalid cursor: the provided ID does not exist.")
		}
		after := q.StartingAfter != ""
		// "After" follows the sort direction; "before" walks back from the
		// cursor in the opposite direction and flips the page.
		cmp := ">"
		if q.Desc == after {
			cmp = "<"
		}
		order := dir
		if !after {
			order = rev
		}
		err := tx.Where("id "+cmp+" ?", cursor).Order("id " + order).Limit(q.Limit).Find(&out).Error
		if err != nil {
			return nil, dbErr(err, "list customers", "", "")
		}
		if !after {
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
		}
		return out, nil
	}
	col, ok := customerSortColumns[q.SortBy]
	if !ok {
		col = "created_at"
	}
	err := tx.Order("CASE WHEN " + col + " IS NULL THEN 1 ELSE 0 END, " + col + " " + dir + ", id " + dir).
		Limit(q.Limit).Offset(q.Offset).Find(&out).Error
	return out, dbErr(err, "list customers", "", "")
}

// GetOrCreateCustomer inserts c unless the workspace already has a customer
// with its external id; it returns the stored customer and whether it was
// created. Safe under concurrency: the losing insert does nothing and reads
// the winner's row, without aborting the surrounding transaction.
func (db *DB) GetOrCreateCustomer(ctx context.Context, c *Customer) (*Customer, bool, error) {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "workspace_id"}, {Name: "external_id"}}, DoNothing: true,
	}).Create(c)
	if res.Error != nil {
		return nil, false, dbErr(res.Error, "create customer", "", MsgDuplicateCustomerExtID)
	}
	if res.RowsAffected == 1 {
		return c, true, nil
	}
	existing, err := db.CustomerByExternalID(ctx, c.WorkspaceID, c.ExternalID)
	return existing, false, err
}
