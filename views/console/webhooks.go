package console

import (
	"github.com/a-h/templ"

	"github.com/relinkhq/relink/handlers/console/route"
)

// WebhooksView is the webhooks page: the list and the create form.
type WebhooksView struct {
	CSRF     string
	CanEdit  bool // owners change webhooks
	Webhooks []WebhookRow
	Form     WebhookForm
	Error    string
	Upgrade  bool // the plan has no webhooks
}

// WebhookRow is one webhook in the list.
type WebhookRow struct {
	ID, Name, URL, Triggers, Status, Reason string
	Disabled                                bool
}

// WebhookForm is the create/edit form's values.
type WebhookForm struct {
	Name, URL, Scope, LinkIDs, FolderIDs string
	Triggers                             map[string]bool
	AllTriggers                          []string
	// Folders and Links are the choices of link.clicked's scope, the
	// chosen ones selected; Hidden… are chosen IDs not offered, kept.
	Folders, Links                 []Option
	HiddenFolderIDs, HiddenLinkIDs []string
}

// WebhookView is one webhook's page: edit form, secret, state, test
// event and the delivery log.
type WebhookView struct {
	CSRF       string
	CanEdit    bool
	ID, Name   string
	URL        string
	Form       WebhookForm
	Error      string
	Notice     string
	NewSecret  string // shown once, after creation or rotation
	SecretHint string // the masked secret
	Disabled   bool
	Reason     string // why it is disabled
	Failures   int
	Log        WebhookLogView
}

// WebhookLogView is the delivery log (refreshed by htmx).
type WebhookLogView struct {
	ID      string
	Entries []WebhookLogEntry
	Pager   Pager
	Poll    bool // the first page reloads itself; older pages stay put
}

// WebhookLogEntry is one delivery attempt.
type WebhookLogEntry struct {
	Time, Event, EventID, Status, Duration, Request, Response, Error string
	OK                                                               bool
}

// logPoll reloads the log's first page every 3 s; other pages stay put.
func logPoll(v WebhookLogView) templ.Attributes {
	if !v.Poll {
		return nil
	}
	return templ.Attributes{"hx-get": route.URL(route.WebhookLog, v.ID), "hx-trigger": "every 3s", "hx-swap": "outerHTML"}
}
