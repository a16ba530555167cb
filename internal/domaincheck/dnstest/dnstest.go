// Package dnstest is a small recursive-looking DNS server for tests
// (github.com/miekg/dns on a loopback UDP port): names get A, AAAA and
// CNAME records that can change while it runs; CNAMEs are followed within
// its records; unknown names are NXDOMAIN. Point RELINK_DNS_RESOLVER (or
// domaincheck.Checker.Server) at Addr.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Server is a running test DNS server.
type Server struct {
	Addr    string // 127.0.0.1:port
	mu      sync.Mutex
	records map[string][]dns.RR // by lower-case FQDN
	srv     *dns.Server
}

// Start runs a server until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: pc.LocalAddr().String(), records: map[string][]dns.RR{}}
	started := make(chan struct{})
	s.srv = &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(s.serve), NotifyStartedFunc: func() { close(started) }}
	go func() { _ = s.srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = s.srv.Shutdown() })
	return s
}

// Set replaces name's records with rrs, each in zone-file form without the
// owner, e.g. "A 192.0.2.1", "AAAA 2001:db8::1", "CNAME target.example.".
// No rrs removes the name (NXDOMAIN).
func (s *Server) Set(t testing.TB, name string, rrs ...string) {
	t.Helper()
	fq := dns.Fqdn(strings.ToLower(name))
	var out []dns.RR
	for _, r := range rrs {
		rr, err := dns.NewRR(fq + " 60 IN " + r)
		if err != nil {
			t.Fatalf("dnstest: %q: %v", r, err)
		}
		out = append(out, rr)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(out) == 0 {
		delete(s.records, fq)
		return
	}
	s.records[fq] = out
}

func (s *Server) serve(w dns.ResponseWriter, q *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(q)
	m.RecursionAvailable = true
	if len(q.Question) == 1 {
		s.answer(m, q.Question[0])
	}
	_ = w.WriteMsg(m)
}

// answer fills m for one question, following CNAMEs through its records.
func (s *Server) answer(m *dns.Msg, qq dns.Question) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := strings.ToLower(qq.Name)
	for range 8 {
		rrs, ok := s.records[name]
		if !ok {
			if len(m.Answer) == 0 {
				m.Rcode = dns.RcodeNameError
			}
			return
		}
		next := ""
		for _, rr := range rrs {
			switch v := rr.(type) {
			case *dns.CNAME:
				m.Answer = append(m.Answer, rr)
				next = strings.ToLower(v.Target)
			default:
				if rr.Header().Rrtype == qq.Qtype {
					m.Answer = append(m.Answer, rr)
				}
			}
		}
		if next == "" {
			return
		}
		name = next
	}
}
