package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// IDPrefix is the webhook id prefix.
const IDPrefix = "wh_"

// Messages of the management API (§2).
const (
	MsgNotFound      = "Webhook not found."
	MsgDuplicateURL  = "A Webhook with this URL already exists."
	MsgBadLinkIDs    = "Invalid link IDs provided. Please check the links you are adding the webhook to."
	MsgBadFolderIDs  = "Invalid folder IDs provided. Please check the folders you are adding the webhook to."
	MsgIntegration   = "This webhook is managed by an integration. Only the linkIds & triggers can be updated."
	MsgPayoutTrigger = "The 'payout.confirmed' trigger is not currently available for your workspace."
	MsgNeedPlan      = "You must upgrade your plan to enable webhooks."
)

// NewSecret returns "whsec_" + 32 lowercase hex characters (§1.2).
func NewSecret() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("webhooks: crypto/rand failed: " + err.Error())
	}
	return "whsec_" + hex.EncodeToString(b[:])
}

// receiverFor detects Zapier and Make destinations by host (§1.3).
func receiverFor(u string) string {
	switch h := hostOf(u); {
	case h == "zapier.com" || h == "hooks.zapier.com":
		return ReceiverZapier
	case h == "make.com" || strings.HasSuffix(h, ".make.com"):
		return ReceiverMake
	}
	return ReceiverUser
}

// Service runs the management rules. Changed, when set, is called after
// every change of a workspace's webhooks (the click-webhook set uses it).
type Service struct {
	DB      *models.DB
	Changed func(workspaceID string)
	Wake    func() // the worker's Wake; nil in tools
	// Added hears of a webhook created by a user (Input.CreatedBy), after
	// the commit: Owners.Added, Dub's "New webhook added" e-mail. It must
	// not block.
	Added func(ws *models.Workspace, h *Webhook, userID string)
}

func (s *Service) changed(workspaceID string) {
	if s.Changed != nil {
		s.Changed(workspaceID)
	}
}

// List is the workspace's webhooks, newest first (§2.1).
func (s *Service) List(ctx context.Context, workspaceID string) ([]*Webhook, error) {
	var out []*Webhook
	err := s.DB.WithContext(ctx).Where("workspace_id = ?", workspaceID).Order("created_at DESC, id DESC").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return out, nil
}

// Get is one webhook of the workspace; another workspace's is not found.
func (s *Service) Get(ctx context.Context, workspaceID, id string) (*Webhook, error) {
	var h Webhook
	err := s.DB.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&h).Error
	if models.IsNotFound(err) {
		return nil, apierr.New(apierr.NotFound, MsgNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get webhook: %w", err)
	}
	return &h, nil
}

// state is a webhook's next configuration, validated as a whole.
type state struct {
	url       string
	triggers  []string
	scope     *string
	linkIDs   []string
	folderIDs []string
}

// validate runs §2.2's checks after the body's: payout.confirmed, the
// duplicate URL, then the link and folder ids.
func (s *Service) validate(ctx context.Context, tx *models.DB, ws *models.Workspace, exceptID string, st state) error {
	if slices.Contains(st.triggers, PayoutConfirmed) {
		if _, err := tx.DefaultProgram(ctx, ws.ID); models.IsNotFound(err) || apierr.Is(err, apierr.NotFound) {
			return apierr.New(apierr.NotFound, "Program not found")
		} else if err != nil {
			return err
		}
		// Relink pays partners itself (internal payout mode): there is no
		// external payout for a receiver to confirm.
		return apierr.New(apierr.BadRequest, MsgPayoutTrigger)
	}
	var n int64
	if err := tx.WithContext(ctx).Model(&Webhook{}).Where("workspace_id = ? AND url = ? AND id <> ?", ws.ID, st.url, exceptID).
		Count(&n).Error; err != nil {
		return fmt.Errorf("check webhook url: %w", err)
	}
	if n > 0 {
		return apierr.New(apierr.Conflict, MsgDuplicateURL)
	}
	if st.scope != nil && *st.scope == ScopeLinks && len(st.linkIDs) > 0 {
		if err := tx.WithContext(ctx).Model(&models.Link{}).Where("workspace_id = ? AND id IN ?", ws.ID, st.linkIDs).
			Count(&n).Error; err != nil {
			return fmt.Errorf("check link ids: %w", err)
		}
		if int(n) != len(st.linkIDs) {
			return apierr.New(apierr.BadRequest, MsgBadLinkIDs)
		}
	}
	if st.scope != nil && *st.scope == ScopeFolders && len(st.folderIDs) > 0 {
		if err := tx.WithContext(ctx).Model(&models.Folder{}).Where("workspace_id = ? AND id IN ?", ws.ID, st.folderIDs).
			Count(&n).Error; err != nil {
			return fmt.Errorf("check folder ids: %w", err)
		}
		if int(n) != len(st.folderIDs) {
			return apierr.New(apierr.BadRequest, MsgBadFolderIDs)
		}
	}
	return nil
}

// Create answers POST /webhooks (§2.2).
func (s *Service) Create(ctx context.Context, ws *models.Workspace, in *Input) (*Webhook, error) {
	now := Now()
	h := &Webhook{ID: ids.New(IDPrefix), WorkspaceID: ws.ID, Name: in.Name, URL: in.URL, Secret: NewSecret(),
		Receiver: receiverFor(in.URL), Triggers: StringList(in.Triggers), LinkScope: in.LinkScope,
		CreatedAt: now, UpdatedAt: now}
	st := state{url: in.URL, triggers: in.Triggers, scope: in.LinkScope, linkIDs: in.LinkIDs, folderIDs: in.FolderIDs}
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		if err := s.validate(ctx, tx, ws, "", st); err != nil {
			return err
		}
		if err := tx.WithContext(ctx).Create(h).Error; err != nil {
			return fmt.Errorf("create webhook: %w", err)
		}
		return setScopeRows(ctx, tx, h.ID, st, true, true)
	})
	if err != nil {
		return nil, err
	}
	s.changed(ws.ID)
	if s.Added != nil && in.CreatedBy != "" {
		s.Added(ws, h, in.CreatedBy)
	}
	return h, nil
}

// setScopeRows replaces the link and/or folder sets for the scope.
func setScopeRows(ctx context.Context, tx *models.DB, id string, st state, links, folders bool) error {
	db := tx.WithContext(ctx)
	scope := ""
	if st.scope != nil {
		scope = *st.scope
	}
	if links {
		if err := db.Where("webhook_id = ?", id).Delete(&WebhookLink{}).Error; err != nil {
			return fmt.Errorf("clear webhook links: %w", err)
		}
		if scope == ScopeLinks && len(st.linkIDs) > 0 {
			rows := make([]WebhookLink, len(st.linkIDs))
			for i, l := range st.linkIDs {
				rows[i] = WebhookLink{WebhookID: id, LinkID: l}
			}
			if err := db.CreateInBatches(rows, 200).Error; err != nil {
				return fmt.Errorf("set webhook links: %w", err)
			}
		}
	}
	if folders {
		if err := db.Where("webhook_id = ?", id).Delete(&WebhookFolder{}).Error; err != nil {
			return fmt.Errorf("clear webhook folders: %w", err)
		}
		if scope == ScopeFolders && len(st.folderIDs) > 0 {
			rows := make([]WebhookFolder, len(st.folderIDs))
			for i, f := range st.folderIDs {
				rows[i] = WebhookFolder{WebhookID: id, FolderID: f}
			}
			if err := db.Create(rows).Error; err != nil {
				return fmt.Errorf("set webhook folders: %w", err)
			}
		}
	}
	return nil
}

// Update answers PATCH /webhooks/{id} (§2.4).
func (s *Service) Update(ctx context.Context, ws *models.Workspace, id string, in *Input) (*Webhook, error) {
	var out *Webhook
	err := s.DB.Tx(ctx, func(tx *models.DB) error {
		h, err := (&Service{DB: tx}).Get(ctx, ws.ID, id)
		if err != nil {
			return err
		}
		if h.InstallationID != nil && (in.HasName || in.HasURL) {
			return apierr.New(apierr.BadRequest, MsgIntegration)
		}
		st, err := nextState(ctx, tx, h, in)
		if err != nil {
			return err
		}
		if err := s.validate(ctx, tx, ws, h.ID, st); err != nil {
			return err
		}
		if in.HasName {
			h.Name = in.Name
		}
		if in.HasURL {
			h.URL, h.Receiver = in.URL, receiverFor(in.URL)
		}
		oldScope := h.Scope()
		h.Triggers, h.LinkScope, h.UpdatedAt = StringList(st.triggers), st.scope, Now()
		if err := tx.WithContext(ctx).Select("name", "url", "receiver", "triggers", "link_scope", "updated_at").
			Updates(h).Error; err != nil {
			return fmt.Errorf("update webhook: %w", err)
		}
		newScope := h.Scope()
		links := oldScope == ScopeLinks && newScope != ScopeLinks || newScope == ScopeLinks && in.HasLinks
		folders := oldScope == ScopeFolders && newScope != ScopeFolders || newScope == ScopeFolders && in.HasFolders
		out = h
		return setScopeRows(ctx, tx, h.ID, st, links, folders)
	})
	if err != nil {
		return nil, err
	}
	s.changed(ws.ID)
	return out, nil
}

// nextState merges the stored webhook with a PATCH body (§2.4 step 3).
func nextState(ctx context.Context, tx *models.DB, h *Webhook, in *Input) (state, error) {
	st := state{url: h.URL, triggers: h.Triggers, scope: h.LinkScope}
	if in.HasURL {
		st.url = in.URL
	}
	if in.HasTriggers {
		st.triggers = in.Triggers
	}
	if in.HasScope {
		st.scope = in.LinkScope
	}
	if !slices.Contains(st.triggers, LinkClicked) {
		st.scope = nil
	}
	var err error
	if st.linkIDs, err = LinkIDs(ctx, tx, h.ID); err != nil {
		return st, err
	}
	if st.folderIDs, err = FolderIDs(ctx, tx, h.ID); err != nil {
		return st, err
	}
	if in.HasLinks {
		st.linkIDs = in.LinkIDs
	}
	if in.HasFolders {
		st.folderIDs = in.FolderIDs
	}
	return st, nil
}

// LinkIDs is a webhook's link set (at most 1000, §2.6).
func LinkIDs(ctx context.Context, db *models.DB, id string) ([]string, error) {
	out := []string{}
	err := db.WithContext(ctx).Model(&WebhookLink{}).Where("webhook_id = ?", id).Limit(1000).Pluck("link_id", &out).Error
	if err != nil {
		return nil, fmt.Errorf("webhook links: %w", err)
	}
	return out, nil
}

// FolderIDs is a webhook's folder set (at most 100, §2.6).
func FolderIDs(ctx context.Context, db *models.DB, id string) ([]string, error) {
	out := []string{}
	err := db.WithContext(ctx).Model(&WebhookFolder{}).Where("webhook_id = ?", id).Limit(100).Pluck("folder_id", &out).Error
	if err != nil {
		return nil, fmt.Errorf("webhook folders: %w", err)
	}
	return out, nil
}

// Delete answers DELETE /webhooks/{id} (§2.5). Its queued deliveries go
// with it.
func (s *Service) Delete(ctx context.Context, workspaceID, id string) error {
	res := s.DB.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Webhook{})
	if res.Error != nil {
		return fmt.Errorf("delete webhook: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return apierr.New(apierr.NotFound, MsgNotFound)
	}
	s.changed(workspaceID)
	return nil
}

// Attempts is the delivery log of a webhook, newest first.
func (s *Service) Attempts(ctx context.Context, workspaceID, id string, limit int) ([]Attempt, error) {
	out, _, err := s.AttemptPage(ctx, workspaceID, id, limit, 0)
	return out, err
}

// AttemptPage is one page of a webhook's delivery log, newest first, and
// the log's length.
func (s *Service) AttemptPage(ctx context.Context, workspaceID, id string, limit, offset int) ([]Attempt, int64, error) {
	if _, err := s.Get(ctx, workspaceID, id); err != nil {
		return nil, 0, err
	}
	var out []Attempt
	if err := s.DB.WithContext(ctx).Where("webhook_id = ?", id).Order("id DESC").Limit(limit).Offset(offset).Find(&out).Error; err != nil {
		return nil, 0, fmt.Errorf("webhook log: %w", err)
	}
	var n int64
	if err := s.DB.WithContext(ctx).Model(&Attempt{}).Where("webhook_id = ?", id).Count(&n).Error; err != nil {
		return nil, 0, fmt.Errorf("webhook log count: %w", err)
	}
	return out, n, nil
}

// SetDisabled enables or disables a webhook (§2.8). Enabling needs a plan
// with webhooks and keeps the failure count.
func (s *Service) SetDisabled(ctx context.Context, ws *models.Workspace, id string, disabled bool) (*Webhook, error) {
	h, err := s.Get(ctx, ws.ID, id)
	if err != nil {
		return nil, err
	}
	up := map[string]any{"disabled_at": nil, "disabled_reason": nil}
	if disabled {
		up = map[string]any{"disabled_at": Now(), "disabled_reason": ReasonManual}
	} else if !slices.Contains(paidPlans, ws.Plan) {
		return nil, apierr.New(apierr.Forbidden, MsgNeedPlan)
	}
	if err := s.DB.WithContext(ctx).Model(h).Updates(up).Error; err != nil {
		return nil, fmt.Errorf("toggle webhook: %w", err)
	}
	s.changed(ws.ID)
	return s.Get(ctx, ws.ID, id)
}

// RotateSecret gives a webhook a new secret (a Relink console action;
// Dub has none). Queued retries are signed with the new one.
func (s *Service) RotateSecret(ctx context.Context, workspaceID, id string) (*Webhook, error) {
	h, err := s.Get(ctx, workspaceID, id)
	if err != nil {
		return nil, err
	}
	if h.InstallationID != nil || hostOf(h.URL) == segmentHost {
		return nil, apierr.New(apierr.BadRequest, "This webhook's secret is set by its integration.")
	}
	h.Secret = NewSecret()
	if err := s.DB.WithContext(ctx).Model(h).Update("secret", h.Secret).Error; err != nil {
		return nil, fmt.Errorf("rotate secret: %w", err)
	}
	return h, nil
}

// SendTest queues event's sample payload for one webhook (§2.8): a fresh
// event id, the normal pipeline, and it works on a disabled webhook.
func (s *Service) SendTest(ctx context.Context, workspaceID, id, event string) (string, error) {
	h, err := s.Get(ctx, workspaceID, id)
	if err != nil {
		return "", err
	}
	if !IsTrigger(event) {
		return "", apierr.Validation("invalid_value", "event", "Invalid option: expected one of "+input.QuoteOptions(Triggers))
	}
	if !Sendable(h, event) {
		return "", apierr.Newf(apierr.BadRequest, "%s cannot be sent to Segment.", event)
	}
	now := Now()
	env := Envelope{ID: NewEventID(), Event: event, CreatedAt: wire.Timestamp(now), Data: Sample(event, workspaceID)}
	body, err := Marshal(env)
	if err != nil {
		return "", err
	}
	d := newDelivery(env.ID, event, h, string(body), now)
	d.Test = true
	if err := s.DB.WithContext(ctx).Create(&d).Error; err != nil {
		return "", fmt.Errorf("queue test event: %w", err)
	}
	if s.Wake != nil {
		s.Wake()
	}
	return env.ID, nil
}
