package mail_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"log/slog"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"

	"github.com/relinkhq/relink/internal/mail"
)

// smtpServer is a small RFC 5321 server on 127.0.0.1 (EHLO, AUTH PLAIN,
// MAIL, RCPT, DATA, QUIT) that records what it receives.
type smtpServer struct {
	ln   net.Listener
	mu   sync.Mutex
	auth []string // decoded AUTH PLAIN credentials
	from []string
	rcpt []string
	data []string
}

func startSMTP(t *testing.T) *smtpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(conn)
		}
	}()
	return s
}

func (s *smtpServer) serve(conn net.Conn) {
	defer conn.Close()
	tp := textproto.NewConn(conn)
	_ = tp.PrintfLine("220 localhost ESMTP test")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		s.mu.Lock()
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			_ = tp.PrintfLine("250-localhost\r\n250 AUTH PLAIN")
		case "AUTH":
			cred, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(arg, "PLAIN "))
			s.auth = append(s.auth, strings.ReplaceAll(string(cred), "\x00", "|"))
			_ = tp.PrintfLine("235 ok")
		case "MAIL":
			s.from = append(s.from, arg)
			_ = tp.PrintfLine("250 ok")
		case "RCPT":
			s.rcpt = append(s.rcpt, arg)
			_ = tp.PrintfLine("250 ok")
		case "DATA":
			_ = tp.PrintfLine("354 go on")
			s.mu.Unlock()
			b, err := tp.ReadDotBytes()
			s.mu.Lock()
			if err != nil {
				s.mu.Unlock()
				return
			}
			s.data = append(s.data, string(b))
			_ = tp.PrintfLine("250 queued")
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			s.mu.Unlock()
			return
		default:
			_ = tp.PrintfLine("502 not implemented")
		}
		s.mu.Unlock()
	}
}

// The SMTP mailer authenticates, sends from the bare address to every
// recipient, and the message arrives whole: headers, an encoded non-ASCII
// subject, and body lines starting with a dot intact.
func TestSMTPSend(t *testing.T) {
	s := startSMTP(t)
	m, err := mail.New("smtp://relink:s3cret@"+s.ln.Addr().String(), "Relink <relink@example.com>", nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := mail.Message{To: []string{"ann@example.com", "bob@example.com"}, Subject: "Webhook is failing — hooks.example",
		Text: "Your webhook failed 5 times.\n.dot line\nSee the console."}
	if err := m.Send(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.auth) != 1 || s.auth[0] != "|relink|s3cret" {
		t.Errorf("auth: %q", s.auth)
	}
	if len(s.from) != 1 || s.from[0] != "FROM:<relink@example.com>" {
		t.Errorf("MAIL: %q", s.from)
	}
	if strings.Join(s.rcpt, ",") != "TO:<ann@example.com>,TO:<bob@example.com>" {
		t.Errorf("RCPT: %q", s.rcpt)
	}
	if len(s.data) != 1 {
		t.Fatalf("messages: %d", len(s.data))
	}
	d := s.data[0]
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
