// Package domaincheck verifies custom domains: a domain is verified when
// its DNS reaches this deployment, either a CNAME to RELINK_DOMAIN_TARGET or
// A/AAAA records naming this deployment's addresses (RELINK_DOMAIN_ADDRESSES,
// else the addresses the target resolves to). The Checker asks one DNS
// server (RELINK_DNS_RESOLVER, else /etc/resolv.conf's); the Job re-checks
// unverified domains with backoff and verified ones daily; the API's
// GET /domains/{slug}/verify and the console check on demand (docs/deploy.md).
package domaincheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/net/publicsuffix"
)

// Statuses, in Dub's words (GET /domains/{slug}/verify).
const (
	StatusValid       = "Valid Configuration"
	StatusInvalid     = "Invalid Configuration"
	StatusConflicting = "Conflicting DNS Records"
	StatusPending     = "Pending Verification"
	StatusUnknown     = "Unknown Error"
)

// Record is a DNS record the domain's owner creates.
type Record struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Answer is what the DNS says about a domain now.
type Answer struct {
	CNAME     []string `json:"cname"`     // the CNAME chain, in order
	Addresses []string `json:"addresses"` // A and AAAA
	Error     string   `json:"error,omitempty"`
}

// Result is one check.
type Result struct {
	Status   string   `json:"status"`
	Verified bool     `json:"verified"`
	Expected []Record `json:"expected"` // what to create (the first is recommended)
	Answer   Answer   `json:"current"`
	// Definite is false when the DNS did not answer (timeout, SERVFAIL): the
	// domain keeps its previous state.
	Definite bool `json:"-"`
}

// Checker checks domains against one DNS server.
type Checker struct {
	Target    string       // CNAME target (lower-case, no trailing dot)
	Addresses []netip.Addr // this deployment's addresses; empty: the target's
	Server    string       // host:port; empty: /etc/resolv.conf's first nameserver
	Timeout   time.Duration
}

// Check asks the DNS about domain and compares the answer with the target
// and the deployment's addresses.
func (c *Checker) Check(ctx context.Context, domain string) Result {
	domain = strings.TrimSuffix(strings.ToLower(domain), ".")
	ours, ourErr := c.ours(ctx)
	r := Result{Expected: c.expected(domain, ours), Answer: Answer{CNAME: []string{}, Addresses: []string{}}}
	chain, addrs, nx, err := c.resolve(ctx, domain)
	r.Answer.CNAME = chain
	for _, a := range addrs {
		r.Answer.Addresses = append(r.Answer.Addresses, a.String())
	}
	switch {
	case err != nil:
		r.Status, r.Answer.Error = StatusUnknown, err.Error()
		return r
	case slices.Contains(chain, c.Target):
		r.Status, r.Verified, r.Definite = StatusValid, true, true
		return r
	case nx:
		r.Answer.Error = "no such domain (NXDOMAIN)"
	}
	r.Definite = true
	mine := 0
	for _, a := range addrs {
		if slices.Contains(ours, a) {
			mine++
		}
	}
	switch {
	case len(addrs) > 0 && mine == len(addrs):
		r.Status, r.Verified = StatusValid, true
	case mine > 0:
		r.Status = StatusConflicting
	case ourErr != nil && len(c.Addresses) == 0 && len(addrs) > 0:
		// The target itself does not resolve: the domain's addresses
		// cannot be compared, so nothing is concluded.
		r.Status, r.Definite, r.Answer.Error = StatusUnknown, false, "RELINK_DOMAIN_TARGET "+c.Target+": "+ourErr.Error()
	default:
		r.Status = StatusInvalid
	}
	return r
}

// ours is the deployment's addresses: configured, else the target's.
func (c *Checker) ours(ctx context.Context) ([]netip.Addr, error) {
	if len(c.Addresses) > 0 {
		return c.Addresses, nil
	}
	if c.Target == "" {
		return nil, errors.New("no RELINK_DOMAIN_TARGET")
	}
	_, addrs, nx, err := c.resolve(ctx, c.Target)
	if err == nil && nx {
		err = errors.New("no such domain")
	}
	return addrs, err
}

// expected is the records to create: a CNAME to the target for a subdomain
// (apex domains cannot have one), and A/AAAA records with the deployment's
// addresses.
func (c *Checker) expected(domain string, ours []netip.Addr) []Record {
	var out []Record
	apex, err := publicsuffix.EffectiveTLDPlusOne(domain)
	if c.Target != "" && (err != nil || apex != domain) {
		out = append(out, Record{Type: "CNAME", Name: domain, Value: c.Target})
	}
	for _, a := range ours {
		t := "A"
		if a.Is6() {
			t = "AAAA"
		}
		out = append(out, Record{Type: t, Name: domain, Value: a.String()})
	}
	return out
}

// resolve asks for domain's A and AAAA records: the CNAME chain met on the
// way, the addresses, and whether the name does not exist.
func (c *Checker) resolve(ctx context.Context, domain string) (chain []string, addrs []netip.Addr, nx bool, err error) {
	chain = []string{}
	for _, qt := range []uint16{dns.TypeA, dns.TypeAAAA} {
		m, err := c.exchange(ctx, domain, qt)
		if err != nil {
			return chain, nil, false, err
		}
		switch m.Rcode {
		case dns.RcodeSuccess:
		case dns.RcodeNameError:
			return chain, nil, true, nil
		default:
			return chain, nil, false, fmt.Errorf("DNS server answered %s", dns.RcodeToString[m.Rcode])
		}
		for _, rr := range m.Answer {
			switch v := rr.(type) {
			case *dns.CNAME:
				if t := strings.ToLower(strings.TrimSuffix(v.Target, ".")); !slices.Contains(chain, t) {
					chain = append(chain, t)
				}
			case *dns.A:
				if a, ok := netip.AddrFromSlice(v.A.To4()); ok && !slices.Contains(addrs, a) {
					addrs = append(addrs, a)
				}
			case *dns.AAAA:
				if a, ok := netip.AddrFromSlice(v.AAAA); ok && !slices.Contains(addrs, a.Unmap()) {
					addrs = append(addrs, a.Unmap())
				}
			}
		}
	}
	return chain, addrs, false, nil
}

// exchange sends one recursive query (over TCP when the UDP answer is
// truncated).
func (c *Checker) exchange(ctx context.Context, name string, qt uint16) (*dns.Msg, error) {
	server, err := c.server()
	if err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 3 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(name), qt)
	q.RecursionDesired = true
	cl := &dns.Client{Timeout: timeout}
	m, _, err := cl.ExchangeContext(ctx, q, server)
	if err == nil && m.Truncated {
		cl.Net = "tcp"
		m, _, err = cl.ExchangeContext(ctx, q, server)
	}
	if err != nil {
		return nil, fmt.Errorf("DNS server %s: %w", server, err)
	}
	return m, nil
}

func (c *Checker) server() (string, error) {
	if c.Server != "" {
		return c.Server, nil
	}
	cc, err := dns.ClientConfigFromFile("/etc/resolv.conf")
	if err != nil || len(cc.Servers) == 0 {
		return "", fmt.Errorf("no DNS server: set RELINK_DNS_RESOLVER (/etc/resolv.conf: %v)", err)
	}
	return net.JoinHostPort(cc.Servers[0], cc.Port), nil
}
