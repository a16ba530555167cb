package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// Now is the clock of emission and delivery; tests may replace it.
var Now = func() time.Time { return time.Now().UTC() }

// NewEventID returns "evt_" + 25 characters of [0-9A-Za-z] (§4.1).
func NewEventID() string { return ids.Event + ids.Nano(25) }

// Envelope is the body every standard receiver gets (§4.1), keys in order.
type Envelope struct {
	ID        string `json:"id"`
	Event     string `json:"event"`
	CreatedAt string `json:"createdAt"`
	Data      any    `json:"data"`
}

// Marshal is JSON as JavaScript's JSON.stringify writes it for these
// payloads (§4.2): compact, no HTML escaping, no trailing newline, struct
// fields in declaration order.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("webhooks: encode: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// Sign is the Dub-Signature of body (§5.1): lowercase hex HMAC-SHA256 keyed
// by the whole secret string, prefix included.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Emit writes event for every enabled webhook of the workspace subscribed to
// it, in tx: call it inside the transaction of the change that causes the
// event, so the event exists exactly when the change does. workspaceID is
// the internal id (no "ws_"). data is the event's data object (§3). With no
// subscribed webhook Emit writes nothing. link.clicked is not emitted here:
// it comes from ClickHook.
func Emit(ctx context.Context, tx *models.DB, workspaceID, event string, data any) error {
	if !IsTrigger(event) || event == LinkClicked {
		return fmt.Errorf("webhooks: emit %q: not an emittable event", event)
	}
	hooks, err := subscribers(ctx, tx, workspaceID, event)
	if err != nil || len(hooks) == 0 {
		return err
	}
	now := Now()
	env := Envelope{ID: NewEventID(), Event: event, CreatedAt: wire.Timestamp(now), Data: data}
	body, err := Marshal(env)
	if err != nil {
		return err
	}
	rows := make([]Delivery, len(hooks))
	for i, h := range hooks {
		rows[i] = newDelivery(env.ID, event, h, string(body), now)
	}
	if err := tx.WithContext(ctx).Create(&rows).Error; err != nil {
		return fmt.Errorf("webhooks: write %s outbox: %w", event, err)
	}
	return nil
}

func newDelivery(eventID, event string, h *Webhook, body string, now time.Time) Delivery {
	return Delivery{EventID: eventID, Event: event, WebhookID: h.ID, WorkspaceID: h.WorkspaceID, Body: body,
		Status: StatusPending, NextAttemptAt: now, CreatedAt: now}
}

// paidPlans are the plans whose webhooks receive events (§1.6).
var paidPlans = []models.Plan{models.PlanBusiness, models.PlanAdvanced, models.PlanEnterprise}

// subscribers are the workspace's enabled webhooks with the trigger, when
// the workspace's plan has webhooks (payout.confirmed ignores the plan
// gate, §3.11).
func subscribers(ctx context.Context, tx *models.DB, workspaceID, event string) ([]*Webhook, error) {
	q := tx.WithContext(ctx).Where("workspace_id = ? AND disabled_at IS NULL", workspaceID)
	if event != PayoutConfirmed {
		q = q.Where("EXISTS (SELECT 1 FROM workspaces w WHERE w.id = webhooks.workspace_id AND w.plan IN ?)", paidPlans)
	}
	var all []*Webhook
	if err := q.Order("created_at").Find(&all).Error; err != nil {
		return nil, fmt.Errorf("webhooks: select subscribers of %s: %w", event, err)
	}
	out := all[:0]
	for _, h := range all {
		if h.Has(event) && Sendable(h, event) {
			out = append(out, h)
		}
	}
	return out, nil
}
