package conversions

import (
	"context"
	"errors"
	"fmt"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// Refund is a payment refunded in part or in full: the invoice ids its sale
// may have been recorded under (the first one with a sale commission is
// used), and the charge's amount and amount refunded so far (cumulative, in
// the charge's currency).
type Refund struct {
	InvoiceIDs []string
	Charged    int64
	Refunded   int64
}

// RefundSale adjusts the commission of a refunded sale (docs/stripe.md): a
// full refund sets it refunded (upstream's charge.refunded does so for any
// refund); a partial refund scales its sale amount and earnings by the
// share not refunded. Paid commissions stay. It answers what it did, and
// commission.updated fires in the transaction of the change.
func (s *Service) RefundSale(ctx context.Context, ws *models.Workspace, r Refund) (string, error) {
	if r.Charged <= 0 || r.Refunded <= 0 {
		return "Nothing refunded, skipping...", nil
	}
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if models.IsNotFound(err) {
		return fmt.Sprintf("Workspace %s has no program, skipping...", ws.ID), nil
	}
	if err != nil {
		return "", err
	}
	var msg string
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		c, invoice, err := refundedCommission(ctx, tx, ws.ID, prog.ID, r.InvoiceIDs)
		if err != nil || c == nil {
			msg = fmt.Sprintf("Commission not found for invoice %v, skipping...", r.InvoiceIDs)
			return err
		}
		p, skip, err := refundPatch(ctx, tx, ws.ID, c, invoice, r)
		if err != nil || skip != "" {
			msg = skip
			return err
		}
		if _, err := s.patchCommission(ctx, tx, ws, prog.ID, c, p); err != nil {
			return err
		}
		msg = fmt.Sprintf("Commission %s updated: status %q, amount %d, earnings %d", c.ID, c.Status, c.Amount, c.Earnings)
		return nil
	})
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code != apierr.InternalServerError && ae.Code != apierr.Unavailable {
		return fmt.Sprintf("Commission not updated: %s", ae.Message), nil
	}
	return msg, err
}

// refundedCommission is the first sale commission recorded under one of the
// invoice ids, and that id; nil when none.
func refundedCommission(ctx context.Context, tx *models.DB, workspaceID, programID string, invoices []string) (*models.Commission, string, error) {
	for _, inv := range invoices {
		if inv == "" {
			continue
		}
		c, err := tx.SaleCommissionByInvoice(ctx, workspaceID, programID, inv)
		if err == nil {
			return c, inv, nil
		}
		if !models.IsNotFound(err) {
			return nil, "", err
		}
	}
	return nil, "", nil
}

// refundPatch is the change a refund makes to c, or why it makes none.
func refundPatch(ctx context.Context, tx *models.DB, workspaceID string, c *models.Commission, invoice string, r Refund) (CommissionPatch, string, error) {
	switch c.Status {
	case models.CommissionPaid:
		return CommissionPatch{}, fmt.Sprintf("Commission %s is already paid, skipping...", c.ID), nil
	case models.CommissionRefunded, models.CommissionCanceled, models.CommissionFraud, models.CommissionDuplicate:
		return CommissionPatch{}, fmt.Sprintf("Commission %s is already %s, skipping...", c.ID, c.Status), nil
	}
	if r.Refunded >= r.Charged {
		st := models.CommissionRefunded
		return CommissionPatch{Status: &st}, "", nil
	}
	// The sale as recorded (USD cents) scaled by the share still paid;
	// earnings scale with it from what they are now.
	sale, err := tx.SaleByInvoice(ctx, workspaceID, invoice)
	if err != nil && !models.IsNotFound(err) {
		return CommissionPatch{}, "", err
	}
	original := c.Amount
	if err == nil {
		original = sale.Amount
	}
	amount := original * (r.Charged - r.Refunded) / r.Charged
	if amount == c.Amount || c.Amount <= 0 {
		return CommissionPatch{}, fmt.Sprintf("Commission %s already reflects this refund, skipping...", c.ID), nil
	}
	earnings := c.Earnings * amount / c.Amount
	return CommissionPatch{SaleAmount: &amount, Earnings: &earnings, Currency: "usd"}, "", nil
}
