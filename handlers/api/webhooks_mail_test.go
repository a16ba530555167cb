package api_test

import (
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/apptest"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// smtpSink is a small SMTP server on 127.0.0.1 that records the recipients
// and data of every message it accepts.
type smtpSink struct {
	ln   net.Listener
	mu   sync.Mutex
	rcpt []string
	data []string
}

func startSMTPSink(t *testing.T) *smtpSink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpSink{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpSink) serve(conn net.Conn) {
	defer conn.Close()
	tp := textproto.NewConn(conn)
	_ = tp.PrintfLine("220 localhost ESMTP test")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			_ = tp.PrintfLine("250 localhost")
		case "MAIL":
			_ = tp.PrintfLine("250 ok")
		case "RCPT":
			s.mu.Lock()
			s.rcpt = append(s.rcpt, arg)
			s.mu.Unlock()
			_ = tp.PrintfLine("250 ok")
		case "DATA":
			_ = tp.PrintfLine("354 go on")
			b, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.data = append(s.data, string(b))
			s.mu.Unlock()
			_ = tp.PrintfLine("250 queued")
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			return
		default:
			_ = tp.PrintfLine("502 not implemented")
		}
	}
}

func (s *smtpSink) messages() ([]string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rcpt...), append([]string(nil), s.data...)
}

// TestWebhookAddedMail: creating a webhook through POST /webhooks sends
// Dub's "New webhook added" e-mail (apps/web/app/api/webhooks/route.ts) to
// the user the API key belongs to, through RELINK_SMTP_URL, naming the
// webhook and the workspace and linking its console page; a refused create
// sends nothing.
func TestWebhookAddedMail(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		smtp := startSMTPSink(t)
		cfg, err := config.Load(func(k string) string {
			return map[string]string{"RELINK_DATABASE_URL": "sqlite:unused.db", "RELINK_APP_URL": "http://localhost:9080",
				"RELINK_SMTP_URL": "smtp://" + smtp.ln.Addr().String(), "RELINK_MAIL_FROM": "Relink <relink@example.com>"}[k]
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
			if _, data := smtp.messages(); len(data) > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // a second (wrong) message would have arrived by now
		rcpt, data := smtp.messages()
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
