package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// makeCommissions pays the partners for the leads and sales on their links
// with their enrollment's rewards, as tracking would: one lead commission
// per lead (each is a new customer), one sale commission per sale. They are
// pending: the commissions job processes those past the holding period into
// payouts when the server runs. The enrollments' totals are recomputed.
func (g *gen) makeCommissions(ctx context.Context) error {
	if len(g.partners) == 0 || (len(g.leadEvs) == 0 && len(g.saleEvs) == 0) {
		return nil
	}
	ens, err := g.db.EnrollmentsByPartner(ctx, g.ws.ID, g.program, g.partners)
	if err != nil {
		return fmt.Errorf("demo: enrollments: %w", err)
	}
	var rewardIDs []string
	for _, e := range ens {
		for _, id := range []*string{e.LeadRewardID, e.SaleRewardID} {
			if id != nil {
				rewardIDs = append(rewardIDs, *id)
			}
		}
	}
	rewards, err := g.db.RewardsByID(ctx, g.ws.ID, rewardIDs)
	if err != nil {
		return fmt.Errorf("demo: rewards: %w", err)
	}
	partnerOf := map[string]string{}
	for i := range g.links {
		if l := &g.links[i]; l.PartnerID != nil {
			partnerOf[l.ID] = *l.PartnerID
		}
	}
	var cms []models.Commission
	add := func(typ, partner, customer, link, event string, amount int64, at time.Time) {
		e := ens[partner]
		if e == nil || !e.CommissionEligible() {
			return
		}
		rid := e.LeadRewardID
		if typ == models.EventSale {
			rid = e.SaleRewardID
		}
		if rid == nil || rewards[*rid] == nil {
			return
		}
		r := rewards[*rid]
		earn := int64(0)
		switch {
		case r.Type == models.RewardFlat && r.AmountInCents != nil:
			earn = *r.AmountInCents
		case r.Type == models.RewardPercentage && r.AmountInPercentageBP != nil:
			earn = amount * *r.AmountInPercentageBP / 10000
		}
		if earn <= 0 {
			return
		}
		cms = append(cms, models.Commission{ID: ids.New(ids.Commission), WorkspaceID: g.ws.ID, ProgramID: g.program, PartnerID: partner,
			CustomerID: &customer, LinkID: &link, EventID: &event, RewardID: rid, Type: typ, Amount: amount, Earnings: earn,
			Currency: "usd", Status: models.CommissionPending, Quantity: 1, CreatedAt: at, UpdatedAt: at})
	}
	for i := range g.leadEvs {
		ev := &g.leadEvs[i]
		if p, ok := partnerOf[ev.LinkID]; ok {
			add(models.EventLead, p, ev.CustomerID, ev.LinkID, ev.EventID, 0, ev.Timestamp)
		}
	}
	for i := range g.saleEvs {
		ev := &g.saleEvs[i]
		if p, ok := partnerOf[ev.LinkID]; ok {
			add(models.EventSale, p, ev.CustomerID, ev.LinkID, ev.EventID, ev.Amount, ev.Timestamp)
		}
	}
	if len(cms) > 0 {
		if err := g.db.WithContext(ctx).CreateInBatches(cms, 500).Error; err != nil {
			return fmt.Errorf("demo: commissions: %w", err)
		}
	}
	for _, p := range g.partners {
		if err := g.db.RecomputeTotalCommissions(ctx, g.ws.ID, g.program, p); err != nil {
			return fmt.Errorf("demo: partner totals: %w", err)
		}
	}
	g.stats.Commissions = len(cms)
	return nil
}
