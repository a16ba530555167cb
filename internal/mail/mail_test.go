package mail_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/mail/smtptest"

	"github.com/relinkhq/relink/internal/mail"
)

// The SMTP mailer authenticates, sends from the bare address to every
// recipient, and the message arrives whole: headers, an encoded non-ASCII
// subject, and body lines starting with a dot intact.
func TestSMTPSend(t *testing.T) {
	s := smtptest.Start(t)
	m, err := mail.New("smtp://relink:s3cret@"+s.Addr(), "Relink <relink@example.com>", nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := mail.Message{To: []string{"ann@example.com", "bob@example.com"}, Subject: "Webhook is failing — hooks.example",
		Text: "Your webhook failed 5 times.\n.dot line\nSee the console."}
	if err := m.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	r := s.Received()
	if len(r.Auth) != 1 || r.Auth[0] != "|relink|s3cret" {
		t.Errorf("auth: %q", r.Auth)
	}
	if len(r.From) != 1 || r.From[0] != "FROM:<relink@example.com>" {
		t.Errorf("MAIL: %q", r.From)
	}
	if strings.Join(r.Rcpt, ",") != "TO:<ann@example.com>,TO:<bob@example.com>" {
		t.Errorf("RCPT: %q", r.Rcpt)
	}
	if len(r.Data) != 1 {
		t.Fatalf("messages: %d", len(r.Data))
	}
	d := r.Data[0]
	for _, want := range []string{"From: Relink <relink@example.com>\n", "To: ann@example.com, bob@example.com\n",
		"Subject: =?utf-8?q?Webhook_is_failing_=E2=80=94_hooks.example?=\n", "Content-Type: text/plain; charset=utf-8\n",
		"\n\nYour webhook failed 5 times.\n.dot line\nSee the console.\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("message lacks %q:\n%s", want, d)
		}
	}
}

// Without RELINK_SMTP_URL nothing is sent: each message is a log line
// naming its recipients and subject, with its text. A bad URL or a missing sender is
// refused with a message that does not print the password.
func TestLoggedAndConfig(t *testing.T) {
	var buf bytes.Buffer
	m, err := mail.New("", "", slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(context.Background(), mail.Message{To: []string{"ann@example.com"}, Subject: "Webhook disabled", Text: "Open https://app.example/x"}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "mail: not sent (no RELINK_SMTP_URL)") || !strings.Contains(out, "ann@example.com") ||
		!strings.Contains(out, "Webhook disabled") || !strings.Contains(out, "https://app.example/x") {
		t.Errorf("log: %s", out)
	}
	if _, err := mail.New("http://u:hunter2@mail.example", "a@b.c", nil); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("http URL: %v", err)
	}
	if _, err := mail.New("smtp://mail.example", "", nil); err == nil || !strings.Contains(err.Error(), "RELINK_MAIL_FROM") {
		t.Errorf("no sender: %v", err)
	}
}

// A server that is not there is an error naming the host, not a hang.
func TestSMTPDown(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	m, _ := mail.New("smtp://"+addr, "relink@example.com", nil)
	if err := m.Send(context.Background(), mail.Message{To: []string{"a@example.com"}, Subject: "x"}); err == nil ||
		!strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("down server: %v", err)
	}
}
