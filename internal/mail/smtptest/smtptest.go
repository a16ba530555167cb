// Package smtptest is the SMTP server the tests send mail to: a small RFC
// 5321 server on 127.0.0.1 (EHLO, AUTH PLAIN, MAIL, RCPT, DATA, QUIT) that
// records what it receives. One sink for every test that reads mail (the
// mailer's own, the API's, the built binary's portal).
package smtptest

import (
	"encoding/base64"
	"net"
	"net/textproto"
	"strings"
	"sync"
	"testing"
)

// Sink records every session's AUTH PLAIN credentials (NULs as "|"), MAIL
// and RCPT arguments and message data (dot-unstuffed, lines ending "\n").
type Sink struct {
	ln   net.Listener
	mu   sync.Mutex
	auth []string
	from []string
	rcpt []string
	data []string
}

// Start listens on a free port until the test ends.
func Start(t testing.TB) *Sink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Sink{ln: ln}
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

// Addr is the sink's host:port (RELINK_SMTP_URL=smtp://<Addr>).
func (s *Sink) Addr() string { return s.ln.Addr().String() }

func (s *Sink) serve(conn net.Conn) {
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
			_ = tp.PrintfLine("250-localhost\r\n250 AUTH PLAIN")
		case "AUTH":
			cred, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(arg, "PLAIN "))
			s.add(&s.auth, strings.ReplaceAll(string(cred), "\x00", "|"))
			_ = tp.PrintfLine("235 ok")
		case "MAIL":
			s.add(&s.from, arg)
			_ = tp.PrintfLine("250 ok")
		case "RCPT":
			s.add(&s.rcpt, arg)
			_ = tp.PrintfLine("250 ok")
		case "DATA":
			_ = tp.PrintfLine("354 go on")
			b, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			s.add(&s.data, string(b))
			_ = tp.PrintfLine("250 queued")
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			return
		default:
			_ = tp.PrintfLine("502 not implemented")
		}
	}
}

func (s *Sink) add(list *[]string, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*list = append(*list, v)
}

// Received is a copy of what the sink recorded so far.
type Received struct{ Auth, From, Rcpt, Data []string }

// Received returns what the sink recorded so far.
func (s *Sink) Received() Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := func(v []string) []string { return append([]string(nil), v...) }
	return Received{Auth: cp(s.auth), From: cp(s.from), Rcpt: cp(s.rcpt), Data: cp(s.data)}
}

// To is every message whose To header names addr alone, in arrival order.
func (s *Sink) To(addr string) []string {
	var out []string
	for _, m := range s.Received().Data {
		if strings.Contains(m, "To: "+addr+"\n") {
			out = append(out, m)
		}
	}
	return out
}
