// Package workspaces owns the changes to a workspace's settings, members,
// invites and API keys: the API, the console and the CLI make them here, so
// each rule (and each effect, such as the click pipeline learning that
// privacy changed) has one owner.
package workspaces

import (
	"context"
	"time"

	"github.com/relinkhq/relink/models"
)

// Service changes workspaces.
type Service struct {
	DB  *models.DB
	Now func() time.Time
	// PrivacyChanged tells the click pipeline that a workspace's privacy
	// settings changed (the keep-IP set's Invalidate); nil: nothing to tell.
	PrivacyChanged func(workspaceID string)
}

func (s *Service) now() time.Time { return s.Now().UTC() }

// Create makes a workspace with its owner's API key (relink workspace
// create, the demo).
func (s *Service) Create(ctx context.Context, in models.NewWorkspace) (*models.Created, error) {
	return s.DB.CreateWorkspaceWithKey(ctx, in)
}

// Update writes the workspace's name, slug and settings.
func (s *Service) Update(ctx context.Context, w *models.Workspace) error {
	return s.DB.UpdateWorkspace(ctx, w)
}

// Backdate moves the workspace's creation back to at when it is later
// (relink demo, whose history starts before a workspace it created today:
// interval=all's timeseries starts at the creation). w is updated.
func (s *Service) Backdate(ctx context.Context, w *models.Workspace, at time.Time) error {
	changed, err := s.DB.BackdateWorkspace(ctx, w.ID, at)
	if err != nil {
		return err
	}
	if changed {
		w.CreatedAt = at.UTC()
	}
	return nil
}

// SetPrivacy sets whether clicks keep IP addresses and the raw-event
// retention, and tells the click pipeline.
func (s *Service) SetPrivacy(ctx context.Context, workspaceID string, keepIPs bool, retentionDays int) error {
	if err := s.DB.SetPrivacy(ctx, workspaceID, keepIPs, retentionDays); err != nil {
		return err
	}
	if s.PrivacyChanged != nil {
		s.PrivacyChanged(workspaceID)
	}
	return nil
}

// RotatePublishableKey replaces the workspace's publishable key.
func (s *Service) RotatePublishableKey(ctx context.Context, w *models.Workspace) (string, error) {
	return s.DB.RotatePublishableKey(ctx, w)
}

// CreateAPIKey makes an API key; the token is shown once.
func (s *Service) CreateAPIKey(ctx context.Context, workspaceID, name string, userID *string) (*models.APIKey, string, error) {
	return s.DB.CreateAPIKey(ctx, workspaceID, name, userID)
}

// RevokeAPIKey revokes one of the workspace's API keys.
func (s *Service) RevokeAPIKey(ctx context.Context, workspaceID, id string) error {
	return s.DB.RevokeAPIKey(ctx, workspaceID, id)
}

// CreateInvite invites email with role until ttl has passed.
func (s *Service) CreateInvite(ctx context.Context, workspaceID, email string, role models.Role, invitedBy *string, ttl time.Duration) (*models.Invite, string, error) {
	now := s.now()
	return s.DB.CreateInvite(ctx, workspaceID, email, role, invitedBy, now, now.Add(ttl))
}

// DeleteInvite withdraws an invite.
func (s *Service) DeleteInvite(ctx context.Context, workspaceID, id string) error {
	return s.DB.DeleteInvite(ctx, workspaceID, id)
}

// AcceptInvite makes the invite's user a member (models.DB.AcceptInvite).
func (s *Service) AcceptInvite(ctx context.Context, token string, newPasswordHash func() (string, error), check func(hash *string) bool) (*models.User, *models.Workspace, error) {
	return s.DB.AcceptInvite(ctx, token, s.now(), newPasswordHash, check)
}

// SetMemberRole changes a member's role.
func (s *Service) SetMemberRole(ctx context.Context, workspaceID, userID string, role models.Role) error {
	return s.DB.SetMemberRole(ctx, workspaceID, userID, role)
}

// RemoveMember removes a member from the workspace.
func (s *Service) RemoveMember(ctx context.Context, workspaceID, userID string) error {
	return s.DB.RemoveMember(ctx, workspaceID, userID)
}
