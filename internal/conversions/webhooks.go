package conversions

import (
	"context"
	"time"

	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// The webhook events of conversions (spec/webhooks.md §3.4, §3.5, §3.9), each
// written to the outbox inside the tracking transaction.

// webhookPartner is the commission's partner with its totals (which
// include the commission), nil without a commission.
func webhookPartner(ctx context.Context, tx *models.DB, cm *models.Commission) (*wire.Partner, error) {
	if cm == nil {
		return nil, nil
	}
	ep, err := tx.EnrolledPartnerByID(ctx, cm.WorkspaceID, cm.ProgramID, cm.PartnerID)
	if err != nil {
		return nil, err
	}
	return wire.PartnerOf(ep), nil
}

// webhookLink renders link (its tags loaded in tx) in the webhook form.
func (s *Service) webhookLink(ctx context.Context, tx *models.DB, l *models.Link) (wire.Link, error) {
	if err := tx.LoadTags(ctx, []*models.Link{l}); err != nil {
		return wire.Link{}, err
	}
	return s.Links.Wire.Link(l), nil
}

// emitCommission writes commission.created.
func (s *Service) emitCommission(ctx context.Context, tx *models.DB, cm *models.Commission, c *models.Customer, l *models.Link) error {
	return s.emitCommissionEvent(ctx, tx, webhooks.CommissionCreated, cm, c, l)
}

// emitCommissionUpdated writes commission.updated (a Relink extension,
// docs/webhooks.md) with the commission's customer and link.
func (s *Service) emitCommissionUpdated(ctx context.Context, tx *models.DB, cm *models.Commission) error {
	var c *models.Customer
	var l *models.Link
	if cm.CustomerID != nil {
		got, err := tx.CustomerByID(ctx, cm.WorkspaceID, *cm.CustomerID)
		if err != nil && !models.IsNotFound(err) {
			return err
		}
		c = got
	}
	if cm.LinkID != nil {
		got, err := tx.LinkByID(ctx, cm.WorkspaceID, *cm.LinkID)
		if err != nil && !models.IsNotFound(err) {
			return err
		}
		l = got
	}
	return s.emitCommissionEvent(ctx, tx, webhooks.CommissionUpdated, cm, c, l)
}

func (s *Service) emitCommissionEvent(ctx context.Context, tx *models.DB, event string, cm *models.Commission, c *models.Customer, l *models.Link) error {
	p, err := webhookPartner(ctx, tx, cm)
	if err != nil {
		return err
	}
	return webhooks.Emit(ctx, tx, cm.WorkspaceID, event, s.Links.Wire.CommissionEvent(cm, p, c, l))
}

// leadEvent is what lead.created says.
type leadEvent struct {
	name       string
	customer   *models.Customer
	attrs      models.ClickAttrs
	clickedAt  time.Time
	link       *models.Link
	metadata   map[string]any
	commission *models.Commission // its partner; without one, the link's (lead.created)
}

// emitLead writes lead.created.
func (s *Service) emitLead(ctx context.Context, tx *models.DB, ev leadEvent) error {
	l, err := s.webhookLink(ctx, tx, ev.link)
	if err != nil {
		return err
	}
	p, err := webhookPartner(ctx, tx, ev.commission)
	if err != nil {
		return err
	}
	if p == nil && ev.link != nil && ev.link.PartnerID != nil && ev.link.ProgramID != nil {
		// A partner's link carries its partner whether or not a lead
		// reward made a commission (issue 36); a partner no longer
		// enrolled is left out.
		ep, err := tx.EnrolledPartnerByID(ctx, ev.link.WorkspaceID, *ev.link.ProgramID, *ev.link.PartnerID)
		if err != nil && !models.IsNotFound(err) {
			return err
		}
		if err == nil {
			p = wire.PartnerOf(ep)
		}
	}
	return webhooks.Emit(ctx, tx, ev.customer.WorkspaceID, webhooks.LeadCreated, wire.LeadCreatedData{
		EventName: ev.name, Customer: wire.EventCustomerOf(ev.customer, *DisplayName(ev.customer)),
		Click: wire.ClickOf(&ev.attrs, wire.Timestamp(ev.clickedAt)), Link: l, Partner: p, Metadata: ev.metadata,
	})
}

// emitSale writes sale.created: the click is the customer's attributed
// click, at the customer's clickedAt (else its creation).
func (s *Service) emitSale(ctx context.Context, tx *models.DB, ev leadEvent, sale wire.Sale) error {
	l, err := s.webhookLink(ctx, tx, ev.link)
	if err != nil {
		return err
	}
	p, err := webhookPartner(ctx, tx, ev.commission)
	if err != nil {
		return err
	}
	at := ev.customer.CreatedAt
	if ev.customer.ClickedAt != nil {
		at = *ev.customer.ClickedAt
	}
	return webhooks.Emit(ctx, tx, ev.customer.WorkspaceID, webhooks.SaleCreated, wire.SaleCreatedData{
		EventName: ev.name, Customer: wire.EventCustomerOf(ev.customer, *DisplayName(ev.customer)),
		Click: wire.ClickOf(&ev.attrs, wire.Timestamp(at)), Link: l, Sale: sale, Partner: p, Metadata: ev.metadata,
	})
}
