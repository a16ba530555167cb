package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/relinkhq/relink/internal/mail"
	"github.com/relinkhq/relink/models"
)

// Owners tells a workspace's owners by e-mail when one of its webhooks is
// failing (the 5th, 10th and 15th consecutive failed attempt) or has been
// disabled (the 20th), as Dub does (§6.4). Sending happens in the
// background: the worker never waits on a mail server. A message that
// cannot be sent is logged and counted (Failed); no owner with an address
// means no message.
type Owners struct {
	DB         *models.DB
	Mailer     mail.Mailer
	ConsoleURL string // e.g. https://app.example.com: the messages link /console/webhooks/{id}
	Log        *slog.Logger
	Sent       atomic.Uint64
	Failed     atomic.Uint64
}

// Notify sends n's message in the background (Options.Notify).
func (o *Owners) Notify(n Notice) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := o.send(ctx, n); err != nil {
			o.Failed.Add(1)
			o.Log.Error("webhooks: owner e-mail not sent", "webhook", n.Webhook.ID, "workspace", n.Webhook.WorkspaceID, "err", err)
		}
	}()
}

func (o *Owners) send(ctx context.Context, n Notice) error {
	ms, err := o.DB.ListMembers(ctx, n.Webhook.WorkspaceID)
	if err != nil {
		return err
	}
	var to []string
	for _, m := range ms {
		if m.Role == models.RoleOwner && m.Email != "" {
			to = append(to, m.Email)
		}
	}
	if len(to) == 0 {
		return nil
	}
	if err := o.Mailer.Send(ctx, NoticeMessage(n, o.ConsoleURL, to)); err != nil {
		return err
	}
	o.Sent.Add(1)
	return nil
}

// Added sends Dub's "New webhook added" e-mail to the user who created h
// (Service.Added), in the background; a user without an address gets none.
func (o *Owners) Added(ws *models.Workspace, h *Webhook, userID string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		u, err := o.DB.UserByID(ctx, userID)
		if err == nil && u.Email != "" {
			err = o.Mailer.Send(ctx, AddedMessage(ws, h, o.ConsoleURL, u.Email))
			if err == nil {
				o.Sent.Add(1)
			}
		}
		if err != nil {
			o.Failed.Add(1)
			o.Log.Error("webhooks: \"New webhook added\" e-mail not sent", "webhook", h.ID, "workspace", ws.ID, "err", err)
		}
	}()
}

// AddedMessage is Dub's "New webhook added" e-mail (webhook-added.tsx): the
// webhook's name, the workspace, where to see it, and what to do if the
// reader did not create it.
func AddedMessage(ws *models.Workspace, h *Webhook, consoleURL, to string) mail.Message {
	link := strings.TrimSuffix(consoleURL, "/") + "/console/webhooks/" + h.ID
	return mail.Message{To: []string{to}, Subject: "New webhook added",
		Text: fmt.Sprintf("Webhook with the name %q has been added to your Relink workspace %s.\n\n"+
			"View webhook: %s\n\nIf you did not create this webhook, you can delete it there.\n", h.Name, ws.Name, link)}
}

// NoticeMessage is the e-mail for n: Dub's subjects ("Webhook is failing to
// deliver", "Webhook has been disabled"), the webhook's name and URL, the
// count against the threshold, and where to look.
func NoticeMessage(n Notice, consoleURL string, to []string) mail.Message {
	h := n.Webhook
	link := strings.TrimSuffix(consoleURL, "/") + "/console/webhooks/" + h.ID
	name := h.Name
	if name == "" {
		name = h.URL
	}
	if n.Disabled {
		return mail.Message{To: to, Subject: "Webhook has been disabled",
			Text: fmt.Sprintf("Your webhook %q (%s) failed to deliver %d times in a row and has been disabled.\n\n"+
				"No events are sent to it until you enable it again. Its delivery log shows what the receiver answered:\n%s\n",
				name, h.URL, n.Failures, link)}
	}
	return mail.Message{To: to, Subject: "Webhook is failing to deliver",
		Text: fmt.Sprintf("Your webhook %q (%s) failed to deliver %d times in a row.\n\n"+
			"After %d consecutive failures it is disabled. Its delivery log shows what the receiver answered:\n%s\n",
			name, h.URL, n.Failures, DisableAt, link)}
}
