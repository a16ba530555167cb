package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// Stripe endpoint modes: the slot an endpoint's secret is kept in.
const (
	StripeLive = "live"
	StripeTest = "test"
)

// StripeEndpoint is one Stripe webhook endpoint of a workspace: its signing
// secret, kept raw (verification needs it) as webhook secrets are.
type StripeEndpoint struct {
	WorkspaceID string `gorm:"primaryKey"`
	Mode        string `gorm:"primaryKey"`
	Secret      string
	LastEventAt *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TableName pins the table.
func (StripeEndpoint) TableName() string { return "stripe_endpoints" }

// StripeEvent is a verified Stripe event, stored once per id.
type StripeEvent struct {
	WorkspaceID string `gorm:"primaryKey"`
	EventID     string `gorm:"primaryKey"`
	Type        string
	Livemode    bool
	Result      string
	ReceivedAt  time.Time
}

// TableName pins the table.
func (StripeEvent) TableName() string { return "stripe_events" }

// StripeEndpoints lists a workspace's Stripe endpoints, live first.
func (db *DB) StripeEndpoints(ctx context.Context, workspaceID string) ([]StripeEndpoint, error) {
	var out []StripeEndpoint
	err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Order("mode").Find(&out).Error
	return out, dbErr(err, "list stripe endpoints", "", "")
}

// SetStripeEndpoint stores (or replaces) the secret of a mode's endpoint.
func (db *DB) SetStripeEndpoint(ctx context.Context, workspaceID, mode, secret string, now time.Time) error {
	e := StripeEndpoint{WorkspaceID: workspaceID, Mode: mode, Secret: secret, CreatedAt: now, UpdatedAt: now}
	err := db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "workspace_id"}, {Name: "mode"}},
		DoUpdates: clause.Assignments(map[string]any{"secret": secret, "updated_at": now}),
	}).Create(&e).Error
	return dbErr(err, "set stripe endpoint", "", "")
}

// DeleteStripeEndpoint removes a mode's endpoint; false when there was none.
func (db *DB) DeleteStripeEndpoint(ctx context.Context, workspaceID, mode string) (bool, error) {
	res := db.WithContext(ctx).Where("workspace_id = ? AND mode = ?", workspaceID, mode).Delete(&StripeEndpoint{})
	return res.RowsAffected > 0, dbErr(res.Error, "delete stripe endpoint", "", "")
}

// TouchStripeEndpoint notes when an endpoint last received a verified event.
func (db *DB) TouchStripeEndpoint(ctx context.Context, workspaceID, mode string, at time.Time) error {
	err := db.WithContext(ctx).Model(&StripeEndpoint{}).Where("workspace_id = ? AND mode = ?", workspaceID, mode).
		Update("last_event_at", at).Error
	return dbErr(err, "touch stripe endpoint", "", "")
}

// ClaimStripeEvent stores an event id; false when it was already stored (a
// retried delivery).
func (db *DB) ClaimStripeEvent(ctx context.Context, e *StripeEvent) (bool, error) {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(e)
	return res.RowsAffected > 0, dbErr(res.Error, "claim stripe event", "", "")
}

// ReleaseStripeEvent forgets an event whose handling failed, so Stripe's
// retry handles it again.
func (db *DB) ReleaseStripeEvent(ctx context.Context, workspaceID, eventID string) error {
	err := db.WithContext(ctx).Where("workspace_id = ? AND event_id = ?", workspaceID, eventID).Delete(&StripeEvent{}).Error
	return dbErr(err, "release stripe event", "", "")
}

// SetStripeEventResult stores what the endpoint answered for an event.
func (db *DB) SetStripeEventResult(ctx context.Context, workspaceID, eventID, result string) error {
	err := db.WithContext(ctx).Model(&StripeEvent{}).Where("workspace_id = ? AND event_id = ?", workspaceID, eventID).
		Update("result", result).Error
	return dbErr(err, "set stripe event result", "", "")
}

// RecentStripeEvents lists a workspace's latest Stripe events, newest first.
func (db *DB) RecentStripeEvents(ctx context.Context, workspaceID string, limit int) ([]StripeEvent, error) {
	var out []StripeEvent
	err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Order("received_at DESC, event_id").Limit(limit).Find(&out).Error
	return out, dbErr(err, "list stripe events", "", "")
}

// StripePayment maps a payment intent to the invoice it paid.
type StripePayment struct {
	WorkspaceID     string `gorm:"primaryKey"`
	PaymentIntentID string `gorm:"primaryKey"`
	InvoiceID       string
}

// TableName pins the table.
func (StripePayment) TableName() string { return "stripe_payments" }

// LinkStripePayment notes that a payment intent paid an invoice (the first
// note wins).
func (db *DB) LinkStripePayment(ctx context.Context, workspaceID, paymentIntentID, invoiceID string) error {
	if paymentIntentID == "" || invoiceID == "" {
		return nil
	}
	p := StripePayment{WorkspaceID: workspaceID, PaymentIntentID: paymentIntentID, InvoiceID: invoiceID}
	err := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&p).Error
	return dbErr(err, "link stripe payment", "", "")
}

// StripePaymentInvoice is the invoice a payment intent paid, "" when unknown.
func (db *DB) StripePaymentInvoice(ctx context.Context, workspaceID, paymentIntentID string) (string, error) {
	var p StripePayment
	err := db.WithContext(ctx).Where("workspace_id = ? AND payment_intent_id = ?", workspaceID, paymentIntentID).Limit(1).Find(&p).Error
	return p.InvoiceID, dbErr(err, "get stripe payment", "", "")
}

// CustomerByStripeID finds a workspace's customer by its Stripe customer id.
func (db *DB) CustomerByStripeID(ctx context.Context, workspaceID, stripeCustomerID string) (*Customer, error) {
	var c Customer
	err := db.WithContext(ctx).Where("workspace_id = ? AND stripe_customer_id = ?", workspaceID, stripeCustomerID).
		Order("created_at").Take(&c).Error
	if err != nil {
		return nil, dbErr(err, "get customer by stripe id", MsgCustomerNotFound, "")
	}
	return &c, nil
}

// CancelCustomerSubscription records a customer's subscription cancellation
// (subscriptionCanceledAt), as upstream's Stripe integration does.
func (db *DB) CancelCustomerSubscription(ctx context.Context, c *Customer, at time.Time) error {
	c.SubscriptionCanceledAt, c.UpdatedAt = &at, at
	err := db.WithContext(ctx).Model(&Customer{}).Where("workspace_id = ? AND id = ?", c.WorkspaceID, c.ID).
		Updates(map[string]any{"subscription_canceled_at": at, "updated_at": at}).Error
	return dbErr(err, "cancel customer subscription", MsgCustomerNotFound, "")
}

// SaleByInvoice is the sale event a workspace recorded for an invoice id.
func (db *DB) SaleByInvoice(ctx context.Context, workspaceID, invoiceID string) (*SaleEvent, error) {
	var ev SaleEvent
	err := db.WithContext(ctx).Where("workspace_id = ? AND invoice_id = ?", workspaceID, invoiceID).Order("timestamp").Take(&ev).Error
	if err != nil {
		return nil, dbErr(err, "get sale by invoice", "Sale not found for invoice "+invoiceID, "")
	}
	return &ev, nil
}

// SaleCommissionByInvoice is a program's sale commission for an invoice id.
func (db *DB) SaleCommissionByInvoice(ctx context.Context, workspaceID, programID, invoiceID string) (*Commission, error) {
	var c Commission
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND invoice_id = ? AND type = ?",
		workspaceID, programID, invoiceID, CommissionSale).Take(&c).Error
	if err != nil {
		return nil, dbErr(err, "get commission by invoice", MsgCommissionNotFound, "")
	}
	return &c, nil
}

// CustomerByEmail finds a workspace's first customer with an email.
func (db *DB) CustomerByEmail(ctx context.Context, workspaceID, email string) (*Customer, error) {
	var c Customer
	err := db.WithContext(ctx).Where("workspace_id = ? AND email = ?", workspaceID, email).Order("created_at").Take(&c).Error
	if err != nil {
		return nil, dbErr(err, "get customer by email", MsgCustomerNotFound, "")
	}
	return &c, nil
}

// StripeSettings are a workspace's Stripe app settings (Dub's integration
// settings): FreeTrials records a "Started Trial" lead when a subscription
// starts in trial, TrialQuantity one lead per seat. Both off without a row.
type StripeSettings struct {
	WorkspaceID   string `gorm:"primaryKey"`
	FreeTrials    bool
	TrialQuantity bool
	UpdatedAt     time.Time
}

// TableName pins the table.
func (StripeSettings) TableName() string { return "stripe_settings" }

// StripeSettingsOf reads a workspace's Stripe settings (the defaults when it
// has none).
func (db *DB) StripeSettingsOf(ctx context.Context, workspaceID string) (StripeSettings, error) {
	var out []StripeSettings
	err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Limit(1).Find(&out).Error
	if err != nil || len(out) == 0 {
		return StripeSettings{WorkspaceID: workspaceID}, dbErr(err, "read stripe settings", "", "")
	}
	return out[0], nil
}

// SetStripeSettings stores a workspace's Stripe settings.
func (db *DB) SetStripeSettings(ctx context.Context, s StripeSettings) error {
	err := db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "workspace_id"}},
		DoUpdates: clause.Assignments(map[string]any{"free_trials": s.FreeTrials, "trial_quantity": s.TrialQuantity, "updated_at": s.UpdatedAt}),
	}).Create(&s).Error
	return dbErr(err, "set stripe settings", "", "")
}
