package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// What makes the demo look like a real program: people's names, tags and
// folders a team would make, and a partner program with rewards so that
// partners' leads and sales earn commissions.

var (
	firstNames = []string{"Maya", "Liam", "Sofia", "Noah", "Aisha", "Lucas", "Elena", "Mateo", "Hana", "Oliver",
		"Priya", "Ethan", "Chloe", "Daniel", "Yuki", "Amara", "Leo", "Isabel", "Samuel", "Zara",
		"Jonas", "Fatima", "Diego", "Emma", "Kofi", "Nora", "Ravi", "Lena", "Omar", "Grace"}
	lastNames = []string{"Patel", "Nguyen", "García", "Müller", "Okafor", "Rossi", "Kim", "Johnson", "Silva", "Tanaka",
		"Novak", "Haddad", "Larsen", "Dubois", "Mensah", "Kowalski", "Reyes", "Schmidt", "Cohen", "Brooks",
		"Ivanova", "Costa", "Andersson", "Moreau", "Yilmaz", "Fischer", "Ortiz", "Walsh", "Sato", "Bauer"}
	mailDomains = []string{"gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "fastmail.com"}
	// demoTags are a marketing team's tags, one colour each.
	demoTags = []struct{ name, color string }{
		{"Newsletter", "blue"}, {"Social", "purple"}, {"Paid ads", "red"}, {"Partners", "green"}, {"Product launch", "yellow"},
	}
	demoFolders = []string{"Marketing", "Partners", "Product"}
)

// personName is the i-th of len(firstNames)×len(lastNames) distinct names,
// shuffled by offset so that runs with other seeds meet other people.
func personName(i, offset int) (first, last string) {
	n := len(firstNames) * len(lastNames)
	k := (i*7 + offset) % n // 7 is coprime with 900: distinct for i < n
	f := k % len(firstNames)
	// The surname also moves with the first name, so neighbours differ in
	// both; for a given first name this is still a bijection.
	return firstNames[f], lastNames[(k/len(firstNames)+11*f)%len(lastNames)]
}

// asciiLower keeps a name's letters for an e-mail address (García → garcia).
func asciiLower(s string) string {
	r := strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ü", "u", "ñ", "n", "ç", "c", "ø", "o", "å", "a", "ä", "a", "ö", "o")
	return strings.ToLower(r.Replace(s))
}

// customerIdentity is a customer's name and e-mail address.
func customerIdentity(rng *rand.Rand, i int) (name, email string) {
	first, last := personName(i, rng.IntN(900))
	email = fmt.Sprintf("%s.%s%d@%s", asciiLower(first), asciiLower(last), i%97, mailDomains[rng.IntN(len(mailDomains))])
	return first + " " + last, email
}

// tagsAndFolders finds or creates the demo's tags and folders by name, so a
// second run on the same workspace reuses them.
func (g *gen) tagsAndFolders(ctx context.Context, now time.Time) error {
	for _, dt := range demoTags {
		var t models.Tag
		err := g.db.WithContext(ctx).Where("workspace_id = ? AND lower(name) = lower(?)", g.ws.ID, dt.name).Take(&t).Error
		if models.IsNotFound(err) {
			t = models.Tag{ID: ids.New(ids.Tag), WorkspaceID: g.ws.ID, Name: dt.name, Color: dt.color, CreatedAt: now, UpdatedAt: now}
			err = g.db.WithContext(ctx).Create(&t).Error
		}
		if err != nil {
			return fmt.Errorf("demo: tag %s: %w", dt.name, err)
		}
		g.tags = append(g.tags, t.ID)
	}
	for _, name := range demoFolders {
		var f models.Folder
		err := g.db.WithContext(ctx).Where("workspace_id = ? AND name = ?", g.ws.ID, name).Take(&f).Error
		if models.IsNotFound(err) {
			f = models.Folder{ID: ids.New(ids.Folder), WorkspaceID: g.ws.ID, Name: name, Type: "default", CreatedAt: now, UpdatedAt: now}
			err = g.db.WithContext(ctx).Create(&f).Error
		}
		if err != nil {
			return fmt.Errorf("demo: folder %s: %w", name, err)
		}
		g.folders = append(g.folders, f.ID)
	}
	return nil
}

// Demo rewards: 20% of every sale for the customer's lifetime and $5 a lead.
const (
	demoSaleRewardBP    = 2000
	demoLeadRewardCents = 500
)

// programSetup gives the program what a partner program needs before
// partners join: a short domain and destination, destinations partners may
// link to, and rewards (kept when the owner set them already).
func (g *gen) programSetup(ctx context.Context, domain string) error {
	prog, err := g.db.DefaultProgram(ctx, g.ws.ID)
	if err != nil {
		return fmt.Errorf("demo: program: %w", err)
	}
	if prog.Domain == nil || prog.URL == nil {
		dest := "https://shop.example/"
		prog.Domain, prog.URL = &domain, &dest
		if err := g.db.SaveProgram(ctx, prog); err != nil {
			return fmt.Errorf("demo: program domain: %w", err)
		}
	}
	if prog.DefaultGroupID == nil {
		return nil
	}
	grp, err := g.db.GroupByID(ctx, g.ws.ID, *prog.DefaultGroupID)
	if err != nil {
		return fmt.Errorf("demo: default group: %w", err)
	}
	if !grp.AdditionalLinks.Valid || !grp.DefaultLinks.Valid {
		if !grp.AdditionalLinks.Valid {
			grp.AdditionalLinks = models.Some([]models.AdditionalLink{{Domain: "shop.example", ValidationMode: "domain"}})
		}
		if !grp.DefaultLinks.Valid {
			// The demo makes its partners' links itself (the same on the
			// bulk and per-batch paths); no default link on enrollment.
			grp.DefaultLinks = models.Some([]models.DefaultLink{})
		}
		if err := g.db.SaveGroup(ctx, grp); err != nil {
			return fmt.Errorf("demo: group links: %w", err)
		}
	}
	if grp.SaleRewardID == nil {
		bp := int64(demoSaleRewardBP)
		if err := g.db.SetGroupReward(ctx, grp, &models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: &bp}); err != nil {
			return fmt.Errorf("demo: sale reward: %w", err)
		}
	}
	if grp.LeadRewardID == nil {
		c := int64(demoLeadRewardCents)
		if err := g.db.SetGroupReward(ctx, grp, &models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: &c}); err != nil {
			return fmt.Errorf("demo: lead reward: %w", err)
		}
	}
	return nil
}

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
