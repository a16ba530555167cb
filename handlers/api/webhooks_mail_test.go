package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/mail/smtptest"

	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestWebhookAddedMail: creating a webhook through POST /webhooks sends
// Dub's "New webhook added" e-mail (apps/web/app/api/webhooks/route.ts) to
// the user the API key belongs to, through RELINK_SMTP_URL, naming the
// webhook and the workspace and linking its console page; a refused create
// sends nothing.
func TestWebhookAddedMail(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		smtp := smtptest.Start(t)
		cfg, err := config.Load(func(k string) string {
			return map[string]string{"RELINK_DATABASE_URL": "sqlite:unused.db", "RELINK_APP_URL": "http://localhost:9080",
				"RELINK_SMTP_URL": "smtp://" + smtp.Addr(), "RELINK_MAIL_FROM": "Relink <relink@example.com>"}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		e := &linkEnv{t: t, db: db, keys: map[string]string{}, ws: map[string]*models.Workspace{}}
		e.srv = apptest.New(t, cfg, app.Options{DB: db, Limiter: ratelimit.NewMemory(time.Now), Now: time.Now})
		e.workspace("acme", models.PlanBusiness)
		e.expectErr(e.do("acme", "POST", "/webhooks", `{"name":"Bad","url":"not a url","triggers":["link.created"]}`), 422, "unprocessable_entity", "custom: url: Invalid URL")
		r := e.ok(201, "acme", "POST", "/webhooks", `{"name":"Orders sync","url":"https://example.com/hook","triggers":["link.created"]}`)
		deadline := time.Now().Add(10 * time.Second)
		for {
			if data := smtp.Received().Data; len(data) > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // a second (wrong) message would have arrived by now
		got := smtp.Received()
		rcpt, data := got.Rcpt, got.Data
		if len(data) != 1 || strings.Join(rcpt, ",") != "TO:<acme@example.com>" {
			t.Fatalf("messages to %q: %d (%q)", rcpt, len(data), data)
		}
		var id string
		if i := strings.Index(string(r.body), `"id":"`); i >= 0 {
			id = strings.SplitN(string(r.body)[i+6:], `"`, 2)[0]
		}
		for _, want := range []string{"Subject: New webhook added", `"Orders sync"`, "workspace acme",
			"http://localhost:9080/console/webhooks/" + id} {
			if !strings.Contains(data[0], want) {
				t.Errorf("message lacks %q:\n%s", want, data[0])
			}
		}
	})
}
