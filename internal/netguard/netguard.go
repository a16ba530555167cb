// Package netguard keeps the server's outgoing requests on behalf of
// unauthenticated callers (QR logos, link metatags) off its own network: the
// check runs when the connection is dialled, on the resolved address, so a
// public name resolving to a private address (DNS rebinding included) is
// refused, and so is every hop of a redirect.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// ErrNotPublic is returned when a host resolves to a non-public address.
var ErrNotPublic = errors.New("the host is not a public address")

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Public reports whether ip is a public unicast address: not loopback,
// private (RFC 1918, unique-local), link-local (cloud metadata included),
// CGNAT, multicast or unspecified.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsGlobalUnicast() && !ip.IsPrivate() && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() && !cgnat.Contains(ip)
}

// PublicOnly is a net.Dialer Control function refusing connections to
// addresses that are not Public.
func PublicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	if !Public(ip) {
		return fmt.Errorf("%w: %s", ErrNotPublic, ip.Unmap())
	}
	return nil
}
