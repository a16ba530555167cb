package conversions

import (
	"context"
	"fmt"

	"github.com/relinkhq/relink/models"
)

// Default links added to a group after partners joined it: Dub's
// create-default-links job gives every approved partner of the group a link
// from the new default link. SyncDefaultLinks is that job, run by whatever
// changes a group's default links (`relink program group set
// --default-link`), and for one partner by the embed when an active partner
// opens the dashboard without any link.

// syncPage is how many enrollments SyncDefaultLinks loads at a time.
const syncPage = 200

// SyncDefaultLinks gives every approved partner of group g a link from each
// of g's default links the partner has no link from yet, and returns how
// many links it created. Keys follow enrollment's rules (username, name or
// e-mail, a random suffix when taken).
func (s *Service) SyncDefaultLinks(ctx context.Context, ws *models.Workspace, g *models.Group) (int, error) {
	if !g.DefaultLinks.Valid || len(g.DefaultLinks.V) == 0 {
		return 0, nil
	}
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return 0, err
	}
	created, after := 0, ""
	for {
		es, err := s.DB.ApprovedEnrollmentsInGroup(ctx, ws.ID, g.ID, after, syncPage)
		if err != nil {
			return created, err
		}
		for i := range es {
			n, err := s.syncPartnerDefaultLinks(ctx, ws, prog, &es[i], g)
			created += n
			if err != nil {
				return created, err
			}
		}
		if len(es) < syncPage {
			return created, nil
		}
		after = es[len(es)-1].ID
	}
}

// EnsureDefaultLinks gives the partner of enrollment e its group's default
// links when it has no link at all in the program (an approved partner
// enrolled by a path that made none, or before the group had any). It
// returns how many links it created.
func (s *Service) EnsureDefaultLinks(ctx context.Context, ws *models.Workspace, prog *models.Program, e *models.Enrollment, g *models.Group) (int, error) {
	if g == nil || !g.DefaultLinks.Valid || len(g.DefaultLinks.V) == 0 || e.Status != models.EnrollmentApproved {
		return 0, nil
	}
	have, err := s.DB.PartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID)
	if err != nil || len(have) > 0 {
		return 0, err
	}
	return s.syncPartnerDefaultLinks(ctx, ws, prog, e, g)
}

// syncPartnerDefaultLinks creates the partner's missing default links.
func (s *Service) syncPartnerDefaultLinks(ctx context.Context, ws *models.Workspace, prog *models.Program, e *models.Enrollment, g *models.Group) (int, error) {
	have, err := s.DB.PartnerLinks(ctx, ws.ID, prog.ID, e.PartnerID)
	if err != nil {
		return 0, err
	}
	got := map[string]bool{}
	for _, l := range have {
		if l.PartnerGroupDefaultLinkID != nil {
			got[*l.PartnerGroupDefaultLinkID] = true
		}
	}
	var missing []models.DefaultLink
	for _, dl := range g.DefaultLinks.V {
		if dl.ID != "" && !got[dl.ID] {
			missing = append(missing, dl)
		}
	}
	if len(missing) == 0 {
		return 0, nil
	}
	p, err := s.DB.PartnerByID(ctx, ws.ID, e.PartnerID)
	if err != nil {
		return 0, err
	}
	in := EnrollInput{Email: p.Email, Name: &p.Name, Username: p.Username}
	if err := s.createDefaultLinksFor(ctx, ws, prog, e, g, missing, in); err != nil {
		return 0, fmt.Errorf("default links of partner %s: %w", p.ID, err)
	}
	return len(missing), nil
}
