// Package webhooks is Relink's outgoing webhooks (spec/webhooks.md):
// the webhook rows, the outbox every event is written to in the transaction
// of the change that causes it (Emit), the workers that deliver the outbox
// at least once with retries (Worker), the link.clicked feed from the click
// ingest batches (ClickHook), and the rules of the /webhooks management API
// (Service).
//
// Calling it from a feature is one line inside the feature's transaction:
//
//	err := webhooks.Emit(ctx, tx, workspaceID, webhooks.CommissionCreated, payload)
//
// payload is the event's data object, a struct whose JSON keys are in the
// spec's order (§3). Emit selects the workspace's enabled webhooks that
// subscribe to the event and writes one delivery row per webhook; with none
// it writes nothing.
package webhooks

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/relinkhq/relink/internal/wire"
)

// Event names (spec/webhooks.md §3.0), in the trigger enum's order.
const (
	LinkCreated                 = "link.created"
	LinkUpdated                 = "link.updated"
	LinkDeleted                 = "link.deleted"
	LinkClicked                 = "link.clicked"
	LeadCreated                 = "lead.created"
	SaleCreated                 = "sale.created"
	PartnerApplicationSubmitted = "partner.application_submitted"
	PartnerEnrolled             = "partner.enrolled"
	PartnerMerged               = "partner.merged"
	CommissionCreated           = "commission.created"
	BountyCreated               = "bounty.created"
	BountyUpdated               = "bounty.updated"
	PayoutConfirmed             = "payout.confirmed"
	DiscountCodeCreated         = "discount_code.created"
	DiscountCodeDeleted         = "discount_code.deleted"
	// CommissionUpdated is Relink's own: a commission's amount, earnings or
	// status changed (a Stripe refund, PATCH /commissions/{id}). Dub has
	// no such event, so Dub's SDK parses neither it nor a webhook listing it.
	CommissionUpdated = "commission.updated"
)

// Triggers is every event name, in the enum's order (422 messages list them so).
var Triggers = []string{LinkCreated, LinkUpdated, LinkDeleted, LinkClicked, LeadCreated, SaleCreated,
	PartnerApplicationSubmitted, PartnerEnrolled, PartnerMerged, CommissionCreated, BountyCreated,
	BountyUpdated, PayoutConfirmed, DiscountCodeCreated, DiscountCodeDeleted}

// Extensions are the event names Relink adds to Dub's; they are accepted
// but not listed in the enum's 422 message, which stays Dub's.
var Extensions = []string{CommissionUpdated}

// AllTriggers is Triggers then Extensions.
func AllTriggers() []string { return append(slices.Clone(Triggers), Extensions...) }

// IsTrigger reports whether name is an event name.
func IsTrigger(name string) bool {
	return slices.Contains(Triggers, name) || slices.Contains(Extensions, name)
}

// Link scopes of link.clicked webhooks (§1.4).
const (
	ScopeWorkspace = "workspace"
	ScopeFolders   = "folders"
	ScopeLinks     = "links"
)

// Receiver kinds (§1.3).
const (
	ReceiverUser   = "user"
	ReceiverZapier = "zapier"
	ReceiverMake   = "make"
	ReceiverSlack  = "slack"
	ReceiverSeg    = "segment"
)

// Disabled reasons.
const (
	ReasonFailures = "failures" // the failure threshold was reached
	ReasonManual   = "manual"   // a user disabled it
)

// Webhook is one endpoint of a workspace (§1.1).
type Webhook struct {
	ID                  string `gorm:"primaryKey"`
	WorkspaceID         string
	Name                string
	URL                 string `gorm:"column:url"`
	Secret              string
	Receiver            string
	InstallationID      *string
	Triggers            StringList
	LinkScope           *string
	ConsecutiveFailures int
	LastFailedAt        *time.Time
	DisabledAt          *time.Time
	DisabledReason      *string
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// Object is h as the management API answers it (wire.Webhook, spec/webhooks.md
// §1.7): triggers never null.
func (h *Webhook) Object() wire.Webhook {
	tr := []string(h.Triggers)
	if tr == nil {
		tr = []string{}
	}
	return wire.Webhook{ID: h.ID, Name: h.Name, URL: h.URL, Secret: h.Secret, Triggers: tr, LinkScope: h.LinkScope,
		DisabledAt: wire.OptTimestamp(h.DisabledAt), InstallationID: h.InstallationID}
}

// TableName pins the table.
func (Webhook) TableName() string { return "webhooks" }

// Has reports whether the webhook subscribes to event.
func (w *Webhook) Has(event string) bool { return slices.Contains(w.Triggers, event) }

// Scope is the link scope, "" for none.
func (w *Webhook) Scope() string {
	if w.LinkScope == nil {
		return ""
	}
	return *w.LinkScope
}

// WebhookLink is a link of a links-scoped webhook.
type WebhookLink struct {
	WebhookID string `gorm:"primaryKey"`
	LinkID    string `gorm:"primaryKey"`
}

// TableName pins the table.
func (WebhookLink) TableName() string { return "webhook_links" }

// WebhookFolder is a folder of a folders-scoped webhook.
type WebhookFolder struct {
	WebhookID string `gorm:"primaryKey"`
	FolderID  string `gorm:"primaryKey"`
}

// TableName pins the table.
func (WebhookFolder) TableName() string { return "webhook_folders" }

// Delivery statuses.
const (
	StatusPending   = "pending"
	StatusDelivered = "delivered"
	StatusFailed    = "failed" // every attempt failed
	// StatusSplit is a click batch row whose every click was attempted or
	// moved to a row of its own (the clicks still to retry).
	StatusSplit = "split"
)

// Delivery is one outbox row: one event for one webhook, or (Clicks > 0)
// one ingest batch's link.clicked events for one webhook, their envelopes
// one per line in its ClickBatch (Body is then empty). A batch row is still
// delivered as one request per click.
type Delivery struct {
	ID            int64  `gorm:"primaryKey;autoIncrement"`
	EventID       string // a batch row: its first click's event id
	Event         string
	WebhookID     string
	WorkspaceID   string
	Body          string
	Clicks        int
	Test          bool
	Status        string
	Attempts      int
	LastStatus    int
	NextAttemptAt time.Time
	ClaimedUntil  *time.Time
	CreatedAt     time.Time
	FinishedAt    *time.Time
}

// TableName pins the table.
func (Delivery) TableName() string { return "webhook_deliveries" }

// ClickBatch holds a click batch row's envelopes, apart from the row so
// that the row's updates (claim, lease, finish) do not rewrite them.
type ClickBatch struct {
	DeliveryID int64 `gorm:"primaryKey;autoIncrement:false"`
	Body       string
}

// TableName pins the table.
func (ClickBatch) TableName() string { return "webhook_click_batches" }

// Attempt is one delivery attempt, the delivery log (§2.7, §6.9).
type Attempt struct {
	ID           int64 `gorm:"primaryKey;autoIncrement"`
	DeliveryID   int64
	WebhookID    string
	EventID      string
	Event        string
	MessageID    string
	URL          string `gorm:"column:url"`
	HTTPStatus   int    `gorm:"column:http_status"`
	RequestBody  string
	ResponseBody string
	Error        string
	DurationMS   int64 `gorm:"column:duration_ms"`
	CreatedAt    time.Time
}

// TableName pins the table.
func (Attempt) TableName() string { return "webhook_attempts" }

// StringList is a JSON array of strings stored as text.
type StringList []string

// GormDataType is text on both dialects.
func (StringList) GormDataType() string { return "text" }

// Value encodes the list ([] for nil).
func (l StringList) Value() (driver.Value, error) {
	if l == nil {
		return "[]", nil
	}
	b, err := json.Marshal([]string(l))
	return string(b), err
}

// Scan decodes the stored JSON.
func (l *StringList) Scan(v any) error {
	var b []byte
	switch x := v.(type) {
	case nil:
		*l = StringList{}
		return nil
	case string:
		b = []byte(x)
	case []byte:
		b = x
	default:
		return fmt.Errorf("webhooks: scan %T into StringList", v)
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("webhooks: triggers: %w", err)
	}
	if out == nil {
		out = []string{}
	}
	*l = out
	return nil
}
