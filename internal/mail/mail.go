// Package mail sends Relink's few notification e-mails (a webhook failing
// or disabled, spec/webhooks.md §6.4 and §8) over SMTP, or logs them when no
// mail server is configured (RELINK_SMTP_URL empty).
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// Message is a plain-text e-mail.
type Message struct {
	To      []string
	Subject string
	Text    string
}

// Mailer sends messages.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// New returns an SMTP mailer for rawURL (smtp://[user:pass@]host[:587]
// with STARTTLS when the server offers it, smtps://…[:465] with TLS from
// the start), or, for "", a mailer that only logs what it would send.
func New(rawURL, from string, log *slog.Logger) (Mailer, error) {
	if log == nil {
		log = slog.Default()
	}
	if rawURL == "" {
		return Logged{Log: log}, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, fmt.Errorf("mail: RELINK_SMTP_URL %q: want smtp://[user:password@]host[:port] or smtps://…", redact(rawURL))
	}
	if from == "" {
		return nil, errors.New("mail: RELINK_MAIL_FROM is required with RELINK_SMTP_URL")
	}
	return &SMTP{URL: u, From: from, Timeout: 30 * time.Second, Log: log}, nil
}

// redact hides a URL's password.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "…"
}

// Logged is the mailer without a mail server: each message is a log line
// with its recipients, subject and text (a partner's sign-in link included:
// without a mail server the operator passes it on).
type Logged struct{ Log *slog.Logger }

// Send logs m.
func (l Logged) Send(_ context.Context, m Message) error {
	l.Log.Info("mail: not sent (no RELINK_SMTP_URL)", "to", strings.Join(m.To, ","), "subject", m.Subject, "text", m.Text)
	return nil
}

// SMTP sends through one SMTP server.
type SMTP struct {
	URL     *url.URL
	From    string
	Timeout time.Duration
	Log     *slog.Logger
}

// Send delivers m: one SMTP session per message.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	if len(m.To) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	host := s.URL.Hostname()
	port := s.URL.Port()
	if port == "" {
		port = map[string]string{"smtp": "587", "smtps": "465"}[s.URL.Scheme]
	}
	d := &net.Dialer{}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return fmt.Errorf("mail: connect %s: %w", host, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if s.URL.Scheme == "smtps" {
		conn = tls.Client(conn, &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12})
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("mail: %s: %w", host, err)
	}
	defer c.Close()
	if err := s.session(c, host, m); err != nil {
		return fmt.Errorf("mail: send %q to %s via %s: %w", m.Subject, strings.Join(m.To, ","), host, err)
	}
	return nil
}

func (s *SMTP) session(c *smtp.Client, host string, m Message) error {
	if ok, _ := c.Extension("STARTTLS"); ok && s.URL.Scheme == "smtp" {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return err
		}
	}
	if u := s.URL.User; u != nil {
		pw, _ := u.Password()
		if err := c.Auth(smtp.PlainAuth("", u.Username(), pw, host)); err != nil {
			return err
		}
	}
	if err := c.Mail(address(s.From)); err != nil {
		return err
	}
	for _, to := range m.To {
		if err := c.Rcpt(to); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(Compose(s.From, m)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// address is the bare address of "Name <addr>" or addr.
func address(from string) string {
	if i, j := strings.LastIndex(from, "<"), strings.LastIndex(from, ">"); i >= 0 && j > i {
		return from[i+1 : j]
	}
	return from
}

// Compose is m as an RFC 5322 message: UTF-8 plain text, the subject
// encoded when it is not ASCII, CRLF line ends (the SMTP DATA writer adds
// the dot-stuffing).
func Compose(from string, m Message) []byte {
	var b strings.Builder
	hdr := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	hdr("From", from)
	hdr("To", strings.Join(m.To, ", "))
	hdr("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	hdr("Date", time.Now().UTC().Format(time.RFC1123Z))
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", "text/plain; charset=utf-8")
	hdr("Content-Transfer-Encoding", "8bit")
	b.WriteString("\r\n")
	for _, line := range strings.Split(strings.ReplaceAll(m.Text, "\r\n", "\n"), "\n") {
		b.WriteString(line + "\r\n")
	}
	return []byte(b.String())
}
