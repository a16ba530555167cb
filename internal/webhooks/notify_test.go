package webhooks

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/relinkhq/relink/internal/mail"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// outbox collects what the owners' notifier sends (the SMTP side is
// internal/mail's test against an SMTP server).
type outbox struct {
	mu   sync.Mutex
	msgs []mail.Message
}

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.msgs = append(o.msgs, m)
	return nil
}

func (o *outbox) subjects() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, m := range o.msgs {
		out = append(out, m.Subject+" → "+strings.Join(m.To, ","))
	}
	return out
}

// A receiver that keeps failing: the owners (not the members) get "Webhook
// is failing to deliver" at the 5th, 10th and 15th consecutive failure and
// "Webhook has been disabled" at the 20th, each once, naming the count and
// linking the webhook's console page; later failures send nothing.
func TestOwnersMailedAtFailureSteps(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		r := newReceiver(t)
		r.answer = func(int) int { return 500 }
		ws := workspace(t, db, models.PlanBusiness)
		for email, role := range map[string]models.Role{"owner@acme.test": models.RoleOwner, "member@acme.test": models.RoleMember} {
			u, err := db.CreateUser(ctx, email, "")
			if err != nil {
				t.Fatal(err)
			}
			if err := db.AddMember(ctx, ws.ID, u.ID, role); err != nil {
				t.Fatal(err)
			}
		}
		h := hook(t, db, ws, r.srv.URL, LinkCreated)
		r.secret = h.Secret
		emit(t, db, ws, 4) // 24 attempts
		box := &outbox{}
		owners := &Owners{DB: db, Mailer: box, ConsoleURL: "https://app.example.com", Log: slog.Default()}
		o := fastOpts()
		o.Concurrency = 1
		o.Notify = owners.Notify
		start(t, db, o)
		waitFor(t, "outbox drained", func() bool { return pending(t, db) == 0 })
		waitFor(t, "four e-mails", func() bool { return owners.Sent.Load() == 4 })
		// Sent in the background: compare in the order of their counts.
		box.mu.Lock()
		msgs := append([]mail.Message(nil), box.msgs...)
		box.mu.Unlock()
		byCount := map[string]mail.Message{}
		for _, m := range msgs {
			for _, n := range []string{"5", "10", "15", "20"} {
				if strings.Contains(m.Text, " "+n+" times") {
					byCount[n] = m
				}
			}
		}
		for _, n := range []string{"5", "10", "15", "20"} {
			m, ok := byCount[n]
			subject := "Webhook is failing to deliver"
			if n == "20" {
				subject = "Webhook has been disabled"
			}
			if !ok || m.Subject != subject || strings.Join(m.To, ",") != "owner@acme.test" ||
				!strings.Contains(m.Text, "https://app.example.com/console/webhooks/"+h.ID) {
				t.Errorf("e-mail at %s failures: %+v (all: %q)", n, m, box.subjects())
			}
		}
		if owners.Failed.Load() != 0 {
			t.Errorf("failed sends: %d", owners.Failed.Load())
		}
	})
}
