package conversions

import (
	"context"
	"fmt"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// CustomerInput is the customer object of POST /commissions (spec/parity.md §10.1).
type CustomerInput struct {
	ExternalID       string
	Country          string
	Email            *string
	Name             *string
	Avatar           *string
	StripeCustomerID *string
}

// ManualCommissionInput is a validated POST /commissions body (spec/parity.md
// §2.1), with the SDK-ahead fields already folded into the deprecated ones.
type ManualCommissionInput struct {
	Type        string // custom | lead | sale
	PartnerID   string
	UserID      *string // the API key's user
	Amount      int64   // custom: cents, negative = clawback
	Description *string // custom
	Date        *time.Time

	CustomerID string
	Customer   *CustomerInput
	LinkID     string
	EventName  string // lead: the lead's name; sale: the sale's name

	ImportStripeInvoices bool
	SaleAmount           int64 // USD cents after conversion by Currency
	Currency             string
	PaymentProcessor     string
	InvoiceID            *string
	ProductID            *string
	Metadata             map[string]any
}

// Messages of POST /commissions' 202 answer.
const (
	MsgClawbackQueued    = "A clawback has been queued for the partner!"
	MsgCommissionsQueued = "Your commissions are being created and will appear shortly."
)

// CreateManualCommission runs POST /commissions (spec/parity.md §2.3) and returns
// the answer's message. Lead and sale commissions go through the same reward
// rules as tracked conversions, so an ineligible one is silently skipped.
// Every commission created is aggregated into its payout at once.
func (s *Service) CreateManualCommission(ctx context.Context, ws *models.Workspace, in ManualCommissionInput) (string, error) {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return "", err
	}
	e, err := s.DB.EnrollmentByPartner(ctx, ws.ID, prog.ID, in.PartnerID)
	if models.IsNotFound(err) {
		return "", apierr.Newf(apierr.NotFound, "Partner %s is not enrolled in program %s.", in.PartnerID, prog.ID)
	}
	if err != nil {
		return "", err
	}
	msg := MsgCommissionsQueued
	if in.Type == models.CommissionCustom {
		if err := s.customCommission(ctx, ws, e, in); err != nil {
			return "", err
		}
		if in.Amount < 0 {
			msg = MsgClawbackQueued
		}
	} else if err := s.manualConversion(ctx, ws, prog, e, in); err != nil {
		return "", err
	}
	if _, err := s.DB.AggregateProgram(ctx, ws.ID, prog.ID, s.now()); err != nil {
		// The commission is stored; the hourly job aggregates it later.
		s.Log.Error("aggregate after manual commission", "program", prog.ID, "err", err)
	}
	return msg, nil
}

// customCommission stores a custom commission or clawback (§2.4): amount 0,
// earnings = the request amount, never on hold.
func (s *Service) customCommission(ctx context.Context, ws *models.Workspace, e *models.Enrollment, in ManualCommissionInput) error {
	at := s.now()
	if in.Date != nil {
		at = in.Date.UTC()
	}
	cm := &models.Commission{
		ID: ids.New(ids.Commission), WorkspaceID: ws.ID, ProgramID: e.ProgramID, PartnerID: e.PartnerID,
		Type: models.CommissionCustom, Earnings: in.Amount, Currency: "usd", Status: models.CommissionPending, Quantity: 1,
		Description: in.Description, UserID: in.UserID, CreatedAt: at, UpdatedAt: s.now(),
	}
	return s.DB.Tx(ctx, func(tx *models.DB) error {
		if _, err := tx.InsertCommission(ctx, cm); err != nil {
			return err
		}
		if err := tx.AddTotalCommissions(ctx, ws.ID, e.ProgramID, e.PartnerID, cm.Earnings); err != nil {
			return err
		}
		if cm.Earnings == 0 {
			return nil // zero-earnings outcomes fire nothing (spec/webhooks.md §3.9)
		}
		return s.emitCommission(ctx, tx, cm, nil, nil)
	})
}

// manualTarget is what a manual lead or sale is attributed to.
type manualTarget struct {
	partner *models.Partner
	link    *models.Link
}

// manualChecks runs §2.3 steps 3-7 (those that need no write), so that a
// rejected request changes nothing.
func (s *Service) manualChecks(ctx context.Context, ws *models.Workspace, prog *models.Program, e *models.Enrollment, in ManualCommissionInput) (*manualTarget, *models.Customer, error) {
	p, err := s.DB.PartnerByID(ctx, ws.ID, e.PartnerID)
	if err != nil {
		return nil, nil, err
	}
	ls, err := s.DB.PartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID)
	if err != nil {
		return nil, nil, err
	}
	if len(ls) == 0 {
		return nil, nil, apierr.Newf(apierr.BadRequest, "Partner %s (%s) has no links.", p.Email, p.ID)
	}
	switch {
	case in.CustomerID == "" && in.Customer == nil:
		return nil, nil, apierr.New(apierr.BadRequest, "Either customerId or customer must be provided.")
	case in.CustomerID != "" && in.Customer != nil:
		return nil, nil, apierr.New(apierr.BadRequest, "Either customerId or customer must be provided, not both.")
	}
	t := &manualTarget{partner: p, link: &ls[0]}
	if in.LinkID != "" {
		t.link = nil
		for i := range ls {
			if ls[i].ID == in.LinkID {
				t.link = &ls[i]
			}
		}
		if t.link == nil {
			return nil, nil, apierr.Newf(apierr.NotFound, "Link %s does not belong to partner %s (%s).", in.LinkID, p.Email, p.ID)
		}
	} else {
		for i := range ls { // the most revenue; ties: the earliest
			if ls[i].SaleAmount > t.link.SaleAmount {
				t.link = &ls[i]
			}
		}
	}
	var cust *models.Customer
	if in.CustomerID != "" {
		var c models.Customer
		if err := s.DB.WithContext(ctx).Where("id = ?", in.CustomerID).Take(&c).Error; err != nil {
			if models.IsNotFound(err) {
				return nil, nil, apierr.Newf(apierr.NotFound, "Customer %s not found.", in.CustomerID)
			}
			return nil, nil, fmt.Errorf("get customer %s: %w", in.CustomerID, err)
		}
		if c.WorkspaceID != ws.ID {
			return nil, nil, apierr.Newf(apierr.BadRequest, "Customer %s does not belong to the workspace.", in.CustomerID)
		}
		cust = &c
	}
	if in.Type != models.CommissionSale {
		return t, cust, nil
	}
	if in.ImportStripeInvoices {
		return nil, nil, apierr.New(apierr.BadRequest, "Your workspace isn't connected to Stripe yet. Relink has no Stripe integration: send `saleAmount` (or `sale.amount`) with `importStripeInvoices: false` instead.")
	}
	if in.InvoiceID != nil {
		var n int64
		if err := s.DB.WithContext(ctx).Model(&models.Commission{}).Where("workspace_id = ? AND program_id = ? AND invoice_id = ?", ws.ID, prog.ID, *in.InvoiceID).
			Count(&n).Error; err != nil {
			return nil, nil, fmt.Errorf("check invoice %s: %w", *in.InvoiceID, err)
		}
		if n > 0 {
			return nil, nil, apierr.Newf(apierr.Conflict, "There is already a commission for the invoice %s.", *in.InvoiceID)
		}
	}
	return t, cust, nil
}

// manualConversion records a manual lead or sale (§2.3 steps 6-10): the
// customer upsert, a synthetic click on the target link, the lead event
// (always), the sale event (sales), counters and the commission, all in one
// transaction.
func (s *Service) manualConversion(ctx context.Context, ws *models.Workspace, prog *models.Program, e *models.Enrollment, in ManualCommissionInput) error {
	t, cust, err := s.manualChecks(ctx, ws, prog, e, in)
	if err != nil {
		return err
	}
	at := s.now()
	if in.Date != nil {
		at = in.Date.UTC()
	}
	l := t.link
	click := models.Click{
		ClickID: ids.Nano(16), Timestamp: at.Add(-5 * time.Minute), WorkspaceID: ws.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key,
		URL: l.URL, IP: "127.0.0.1", Continent: "Unknown", Country: "Unknown", Region: "Unknown", City: "Unknown",
		Device: "Desktop", Browser: "Unknown", OS: "Unknown", Trigger: "link",
	}
	return s.DB.Tx(ctx, func(tx *models.DB) error {
		c, err := s.manualCustomer(ctx, tx, ws, cust, in.Customer, &click, l)
		if err != nil {
			return err
		}
		if c.Country != nil && len(*c.Country) == 2 {
			click.Country = *c.Country
		}
		click.IdentityHash = c.ExternalID
		if err := tx.InsertSyntheticClick(ctx, click); err != nil {
			return err
		}
		leadName := in.EventName
		if in.Type == models.CommissionSale || leadName == "" {
			leadName = "Sign up"
		}
		lead := models.LeadEvent{EventID: ids.Nano(16), Timestamp: at, WorkspaceID: ws.ID, EventName: leadName, CustomerID: c.ID,
			ClickAttrs: models.AttrsOf(&click)}
		if in.Type == models.CommissionLead {
			lead.Metadata = in.Metadata
		}
		if err := tx.InsertLeadEvents(ctx, []models.LeadEvent{lead}); err != nil {
			return err
		}
		if err := tx.BumpLinkCounters(ctx, ws.ID, l.ID, models.LinkCounters{Leads: 1}); err != nil {
			return err
		}
		if err := s.Aggregator.AddLeads(ctx, tx, []models.LeadEvent{lead}); err != nil {
			return fmt.Errorf("aggregate manual lead: %w", err)
		}
		if in.Type == models.CommissionLead {
			_, err := s.eventCommission(ctx, tx, commissionEvent{Workspace: ws, Link: l, Customer: c, Type: models.CommissionLead,
				Quantity: 1, EventID: lead.EventID, Metadata: in.Metadata, At: at, UserID: in.UserID})
			return err
		}
		return s.manualSale(ctx, tx, ws, c, l, &lead, in, at)
	})
}

// manualSale records the sale event of a manual sale commission.
func (s *Service) manualSale(ctx context.Context, tx *models.DB, ws *models.Workspace, c *models.Customer, l *models.Link, lead *models.LeadEvent, in ManualCommissionInput, at time.Time) error {
	meta := in.Metadata
	if in.ProductID != nil {
		if meta == nil {
			meta = map[string]any{}
		}
		if _, ok := meta["productId"]; !ok {
			meta["productId"] = *in.ProductID
		}
	}
	invoice := ""
	if in.InvoiceID != nil {
		invoice = *in.InvoiceID
	}
	name := in.EventName
	if name == "" {
		name = "Purchase"
	}
	processor := in.PaymentProcessor
	if processor == "" {
		processor = "custom"
	}
	ev := &models.SaleEvent{
		EventID: ids.Nano(16), Timestamp: at, WorkspaceID: ws.ID, EventName: name, CustomerID: c.ID, Metadata: meta,
		LeadEventID: &lead.EventID, Amount: in.SaleAmount, Currency: "usd", PaymentProcessor: processor, InvoiceID: invoice,
		ClickAttrs: lead.ClickAttrs,
	}
	if err := tx.InsertSaleEvent(ctx, ev); err != nil {
		return err
	}
	d := models.LinkCounters{Sales: 1, SaleAmount: in.SaleAmount}
	if c.Sales == 0 || c.LinkID == nil || *c.LinkID != l.ID {
		d.Conversions = 1
	}
	if err := tx.BumpLinkCounters(ctx, ws.ID, l.ID, d); err != nil {
		return err
	}
	signup := c.CreatedAt
	if err := tx.AddCustomerSale(ctx, c, in.SaleAmount, at, l.ProgramID, l.PartnerID); err != nil {
		return err
	}
	if _, err := s.eventCommission(ctx, tx, commissionEvent{Workspace: ws, Link: l, Customer: c, Type: models.CommissionSale,
		Quantity: 1, Amount: in.SaleAmount, InvoiceID: in.InvoiceID, EventID: ev.EventID, Metadata: meta, At: at, SignupAt: signup,
		UserID: in.UserID}); err != nil {
		return err
	}
	if err := s.Aggregator.AddSale(ctx, tx, ev); err != nil {
		return fmt.Errorf("aggregate manual sale: %w", err)
	}
	return nil
}

// manualCustomer is the customer of a manual conversion: the one named by
// customerId, or the customer object upserted by externalId. Either way it
// is attributed to the synthetic click on the target link.
func (s *Service) manualCustomer(ctx context.Context, tx *models.DB, ws *models.Workspace, known *models.Customer, in *CustomerInput, click *models.Click, l *models.Link) (*models.Customer, error) {
	now := s.now()
	c := known
	if c == nil {
		country := in.Country
		fresh := &models.Customer{
			ID: ids.New(ids.Customer), WorkspaceID: ws.ID, ExternalID: in.ExternalID, Name: nonEmpty(in.Name), Email: nonEmpty(in.Email),
			Avatar: nonEmpty(in.Avatar), StripeCustomerID: nonEmpty(in.StripeCustomerID), Country: &country, CreatedAt: now, UpdatedAt: now,
		}
		if fresh.Name == nil {
			fresh.Name = fresh.Email
		}
		if fresh.Name == nil {
			fresh.Name = strPtr(RandomName())
		}
		got, created, err := tx.GetOrCreateCustomer(ctx, fresh)
		if err != nil {
			return nil, err
		}
		c = got
		if !created {
			name := fresh.Name
			if err := tx.UpdateCustomer(ctx, c, models.CustomerPatch{Name: &name, Email: &fresh.Email, Avatar: &fresh.Avatar,
				StripeCustomerID: &fresh.StripeCustomerID}); err != nil {
				return nil, err
			}
		}
	}
	at := click.Timestamp.UTC()
	cid, lid := click.ClickID, l.ID
	err := tx.WithContext(ctx).Model(&models.Customer{}).Where("workspace_id = ? AND id = ?", ws.ID, c.ID).
		Updates(map[string]any{"click_id": cid, "link_id": lid, "clicked_at": at, "program_id": l.ProgramID, "partner_id": l.PartnerID,
			"updated_at": now}).Error
	if err != nil {
		return nil, fmt.Errorf("attribute customer %s: %w", c.ID, err)
	}
	// c.LinkID keeps the previous link: a sale on a different link is a first conversion.
	c.ClickID, c.ClickedAt, c.ProgramID, c.PartnerID = &cid, &at, l.ProgramID, l.PartnerID
	return c, nil
}

// CommissionStatusChange is one row of PATCH /commissions/bulk's answer.
type CommissionStatusChange struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// BulkUpdateCommissions runs PATCH /commissions/bulk (spec/parity.md §3): all
// commissions get the status and leave their payouts, whose amounts are
// recomputed (empty ones deleted), or nothing changes.
func (s *Service) BulkUpdateCommissions(ctx context.Context, ws *models.Workspace, commissionIDs []string, status string) ([]CommissionStatusChange, error) {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	var out []CommissionStatusChange
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		var cs []models.Commission
		if err := tx.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND id IN ?", ws.ID, prog.ID, commissionIDs).
			Order("id").Find(&cs).Error; err != nil {
			return fmt.Errorf("load commissions: %w", err)
		}
		if len(cs) != len(commissionIDs) {
			return apierr.New(apierr.NotFound, "Cannot update commissions: One or more commissions were not found in this program or the IDs are invalid.")
		}
		if err := checkBulkStatus(ctx, tx, ws.ID, cs, status); err != nil {
			return err
		}
		now := s.now()
		payouts, partners := map[string]bool{}, map[string]bool{}
		var payoutIDs, partnerIDs []string
		for _, c := range cs {
			if c.PayoutID != nil && !payouts[*c.PayoutID] {
				payouts[*c.PayoutID] = true
				payoutIDs = append(payoutIDs, *c.PayoutID)
			}
			if !partners[c.PartnerID] {
				partners[c.PartnerID] = true
				partnerIDs = append(partnerIDs, c.PartnerID)
			}
			out = append(out, CommissionStatusChange{ID: c.ID, Status: status})
		}
		if err := tx.WithContext(ctx).Model(&models.Commission{}).Where("workspace_id = ? AND id IN ?", ws.ID, commissionIDs).
			Updates(map[string]any{"status": status, "payout_id": nil, "updated_at": now}).Error; err != nil {
			return fmt.Errorf("update commissions: %w", err)
		}
		if err := tx.ReconcilePayouts(ctx, ws.ID, payoutIDs, now); err != nil {
			return err
		}
		for _, pid := range partnerIDs {
			if err := tx.RecomputeTotalCommissions(ctx, ws.ID, prog.ID, pid); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// checkBulkStatus applies §3's checks 2-4 in order.
func checkBulkStatus(ctx context.Context, tx *models.DB, workspaceID string, cs []models.Commission, status string) error {
	var paid, same, payoutIDs []string
	for _, c := range cs {
		if c.Status == models.CommissionPaid {
			paid = append(paid, c.ID)
		}
		if c.Status == status {
			same = append(same, c.ID)
		}
		if c.PayoutID != nil {
			payoutIDs = append(payoutIDs, *c.PayoutID)
		}
	}
	if len(paid) > 0 {
		return apierr.New(apierr.BadRequest, "Cannot update commissions: The following commission(s) have already been paid: "+joinIDs(paid))
	}
	if len(payoutIDs) > 0 {
		var ps []models.Payout
		if err := tx.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, payoutIDs).Find(&ps).Error; err != nil {
			return fmt.Errorf("load payouts: %w", err)
		}
		locked := map[string]string{}
		for _, p := range ps {
			if p.Status != models.PayoutPending && p.Status != models.PayoutCanceled {
				locked[p.ID] = p.Status
			}
		}
		var bad []string
		for _, c := range cs {
			if c.PayoutID != nil && locked[*c.PayoutID] != "" {
				bad = append(bad, fmt.Sprintf("%s (its payout is already %s)", c.ID, locked[*c.PayoutID]))
			}
		}
		if len(bad) > 0 {
			return apierr.New(apierr.BadRequest, "Cannot update commissions: "+joinIDs(bad))
		}
	}
	if len(same) > 0 {
		return apierr.Newf(apierr.BadRequest, "The following commission(s) are already in the %s status: %s", status, joinIDs(same))
	}
	return nil
}

func joinIDs(v []string) string {
	out := ""
	for i, s := range v {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}
