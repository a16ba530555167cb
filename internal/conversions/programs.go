package conversions

import (
	"context"

	"github.com/relinkhq/relink/models"
)

// The program's settings, groups, rewards, discounts, enrollment statuses
// and payouts: the console, the CLI and the demo's per-batch path change
// them here, so each rule has one owner (docs/architecture.md "Who
// decides"). Most are the model's write today; a rule added later (an
// event, a cache to invalidate) is added once.

// CreateDefaultProgram gives the workspace its program and default group.
func (s *Service) CreateDefaultProgram(ctx context.Context, ws *models.Workspace) (*models.Program, *models.Group, error) {
	return s.DB.CreateDefaultProgram(ctx, ws)
}

// SaveProgram writes the program's settings (name, domain, URL, terms…).
// Callers check a changed domain with links.Service.CheckProgramDomain.
func (s *Service) SaveProgram(ctx context.Context, p *models.Program) error {
	p.UpdatedAt = s.now()
	return s.DB.SaveProgram(ctx, p)
}

// CreateGroup adds a partner group to the program.
func (s *Service) CreateGroup(ctx context.Context, p *models.Program, name, slug string) (*models.Group, error) {
	return s.DB.CreateGroup(ctx, p, name, slug)
}

// SaveGroup writes a group's settings (holding period, default links…).
func (s *Service) SaveGroup(ctx context.Context, g *models.Group) error {
	g.UpdatedAt = s.now()
	return s.DB.SaveGroup(ctx, g)
}

// SetGroupReward sets (or replaces) the group's reward for r.Event.
func (s *Service) SetGroupReward(ctx context.Context, g *models.Group, r *models.Reward) error {
	return s.DB.SetGroupReward(ctx, g, r)
}

// SetGroupDiscount sets (or replaces) the group's discount.
func (s *Service) SetGroupDiscount(ctx context.Context, g *models.Group, d *models.Discount) error {
	return s.DB.SetGroupDiscount(ctx, g, d)
}

// SetEnrollmentStatus moves an enrollment to a status without effects on
// links or money (approved, archived…); banning and deactivating have
// their own methods (BanPartner, DeactivatePartner).
func (s *Service) SetEnrollmentStatus(ctx context.Context, e *models.Enrollment, status string) error {
	return s.DB.SetEnrollmentStatus(ctx, e, status)
}

// ConfirmPayouts confirms the program's pending payouts (ids, or every
// eligible one when ids is empty) in one batch.
func (s *Service) ConfirmPayouts(ctx context.Context, p *models.Program, ids []string, userID *string) (string, []models.Payout, error) {
	return s.DB.ConfirmPayouts(ctx, p, ids, userID, s.now())
}

// CompletePayouts marks processing payouts paid.
func (s *Service) CompletePayouts(ctx context.Context, p *models.Program, ids []string) ([]models.Payout, error) {
	return s.DB.CompletePayouts(ctx, p.WorkspaceID, p.ID, ids, s.now())
}

// FailPayouts marks processing payouts failed with reason.
func (s *Service) FailPayouts(ctx context.Context, p *models.Program, ids []string, reason string) ([]models.Payout, error) {
	return s.DB.FailPayouts(ctx, p.WorkspaceID, p.ID, ids, reason, s.now())
}
