package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// The demo's setup: its tags and folders, its short domain, the program's
// settings and rewards, and the partners' enrollments. These are the
// changes a team makes one at a time in the console or the API, so they go
// through the same service methods (internal/links, internal/conversions),
// with their rules, events and cache invalidation; only the per-link,
// per-click and per-event rows after them are written in bulk
// (TestServicesAreTheWriters walks this file).

func (g *gen) entities(ctx context.Context) error {
	if err := g.backdateWorkspace(ctx); err != nil {
		return err
	}
	if err := g.tagsAndFolders(ctx); err != nil {
		return err
	}
	g.domain = g.o.Domain
	if g.domain == "" {
		g.domain = g.ws.Slug + ".link"
		if err := g.registerDomain(ctx, g.domain); err != nil {
			return err
		}
	}
	if err := g.programSetup(ctx, g.domain); err != nil {
		return err
	}
	svc := g.o.Conversions
	offset := g.rng.IntN(900)
	for i := range g.o.Partners {
		first, last := personName(i, offset)
		name := first + " " + last
		email := fmt.Sprintf("%s.%s@%s", asciiLower(first), asciiLower(last), mailDomains[i%len(mailDomains)])
		ep, err := svc.EnrollPartner(ctx, g.ws, conversions.EnrollInput{Email: email, Name: &name})
		if err != nil {
			return fmt.Errorf("demo: enroll partner: %w", err)
		}
		g.partners = append(g.partners, ep.Partner.ID)
		g.partnerNames = append(g.partnerNames, ep.Partner.Name)
		g.program = ep.Enrollment.ProgramID
	}
	return nil
}

// registerDomain makes the demo's short domain one of the workspace's
// domains (its primary one, when it has none; no root link: every link on
// it is the demo's), so the console's link form and domain filter,
// the program and the embed treat its links as theirs and a server serves
// them by Host. A second run keeps the row.
func (g *gen) registerDomain(ctx context.Context, slug string) error {
	switch d, err := g.db.DomainByName(ctx, slug); {
	case err == nil && d.WorkspaceID != g.ws.ID:
		return fmt.Errorf("demo: domain %s belongs to another workspace", slug)
	case err == nil:
		return nil
	case !models.IsNotFound(err):
		return fmt.Errorf("demo: domain: %w", err)
	}
	if _, err := g.o.LinkService.AddDomain(ctx, g.ws, slug); err != nil {
		return fmt.Errorf("demo: register domain %s: %w", slug, err)
	}
	return nil
}

// tagsAndFolders finds the demo's tags and folders by name, or creates them
// as POST /tags and POST /folders do, so a second run on the same workspace
// reuses them.
func (g *gen) tagsAndFolders(ctx context.Context) error {
	for _, dt := range demoTags {
		var t models.Tag
		err := g.db.WithContext(ctx).Where("workspace_id = ? AND lower(name) = lower(?)", g.ws.ID, dt.name).Take(&t).Error
		if models.IsNotFound(err) {
			var nt *models.Tag
			if nt, err = g.o.LinkService.CreateTag(ctx, g.ws, &links.TagInput{Name: dt.name, Color: input.Value(dt.color)}); err == nil {
				t = *nt
			}
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
			var nf *models.Folder
			if nf, err = g.o.LinkService.CreateFolder(ctx, links.Actor{Workspace: g.ws}, &links.FolderInput{Name: input.Value(name)}); err == nil {
				f = *nf
			}
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
// partners join: a short domain (checked as the console checks it) and
// destination, destinations partners may link to, and rewards (kept when
// the owner set them already).
func (g *gen) programSetup(ctx context.Context, domain string) error {
	svc := g.o.Conversions
	prog, err := g.db.DefaultProgram(ctx, g.ws.ID)
	if err != nil {
		return fmt.Errorf("demo: program: %w", err)
	}
	if prog.Domain == nil || prog.URL == nil {
		if err := g.o.LinkService.CheckProgramDomain(ctx, g.ws, domain); err != nil {
			return fmt.Errorf("demo: program domain: %w", err)
		}
		dest := "https://shop.example/"
		prog.Domain, prog.URL = &domain, &dest
		if err := svc.SaveProgram(ctx, prog); err != nil {
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
		if err := svc.SaveGroup(ctx, grp); err != nil {
			return fmt.Errorf("demo: group links: %w", err)
		}
	}
	if grp.SaleRewardID == nil {
		bp := int64(demoSaleRewardBP)
		if err := svc.SetGroupReward(ctx, grp, &models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: &bp}); err != nil {
			return fmt.Errorf("demo: sale reward: %w", err)
		}
	}
	if grp.LeadRewardID == nil {
		c := int64(demoLeadRewardCents)
		if err := svc.SetGroupReward(ctx, grp, &models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: &c}); err != nil {
			return fmt.Errorf("demo: lead reward: %w", err)
		}
	}
	return nil
}

// backdateWorkspace moves the workspace's creation back to the demo's first
// day (the links' creation, a day before the first click) when it is later:
// a workspace holds no events from before it existed, and interval=all's
// timeseries starts at the workspace's creation (Dub's rule,
// internal/analytics Resolve), so a workspace created today would chart
// only today's hours of a 90-day history.
func (g *gen) backdateWorkspace(ctx context.Context) error {
	first := g.o.Now.AddDate(0, 0, -g.o.Days-1).UTC()
	if err := g.o.Workspaces.Backdate(ctx, g.ws, first); err != nil {
		return fmt.Errorf("demo: backdate the workspace to %s: %w", first.Format(time.DateOnly), err)
	}
	return nil
}
