package conversions

import (
	"context"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// CreateCustomer stores a customer made by POST /customers: a new id and
// timestamps, and the display name Dub gives a customer without one
// (DisplayName).
func (s *Service) CreateCustomer(ctx context.Context, ws *models.Workspace, c *models.Customer) error {
	now := s.now()
	c.ID, c.WorkspaceID, c.CreatedAt, c.UpdatedAt = ids.New(ids.Customer), ws.ID, now, now
	c.Name = DisplayName(c)
	return s.DB.CreateCustomer(ctx, c)
}

// UpdateCustomer applies a PATCH /customers/{id} body.
func (s *Service) UpdateCustomer(ctx context.Context, c *models.Customer, p models.CustomerPatch) error {
	return s.DB.UpdateCustomer(ctx, c, p)
}

// DeleteCustomer deletes one of the workspace's customers.
func (s *Service) DeleteCustomer(ctx context.Context, ws *models.Workspace, id string) error {
	return s.DB.DeleteCustomer(ctx, ws.ID, id)
}

// MarkCommissionsPaid marks the program's pending commissions paid (one
// partner's when partnerID is set): relink program commissions pay.
func (s *Service) MarkCommissionsPaid(ctx context.Context, p *models.Program, partnerID string) (int64, error) {
	return s.DB.MarkCommissionsPaid(ctx, p.WorkspaceID, p.ID, partnerID, s.now())
}
