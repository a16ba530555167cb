// Package netguard refuses outgoing connections to the server's own
// network. Its check runs as a net.Dialer Control function, on the address
// actually dialled after DNS resolution, so a public name resolving to a
// private address (or re-resolving to one: DNS rebinding) is refused too.
// The QR logo fetcher, the link metatags fetcher and the webhook deliverer
// use it.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// ErrNotPublic is returned for a connection to a non-public address.
var ErrNotPublic = errors.New("not a public address")

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// PublicOnly refuses connections to loopback, private, link-local,
// multicast, carrier-grade NAT and unspecified addresses. Use it as
// net.Dialer.Control.
func PublicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	ip = ip.Unmap()
	if !IsPublic(ip) {
		return fmt.Errorf("%w: %s", ErrNotPublic, ip)
	}
	return nil
}

// IsPublic reports whether ip is a public unicast address.
func IsPublic(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsGlobalUnicast() && !ip.IsPrivate() && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() &&
		!cgnat.Contains(ip)
}
