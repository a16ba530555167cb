// Package netguard refuses outgoing connections to the server's own
// network. Its check runs as a net.Dialer Control function, on the address
// actually dialled after DNS resolution, so a public name resolving to a
// private address (or re-resolving to one: DNS rebinding) is refused too.
// The QR logo fetcher, the link metatags fetcher, the importer and the
// webhook deliverer use it (unless their RELINK_*_TARGETS is "any", which
// leaves the dialer without this check).
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

// Special lists every range of the IANA IPv4 and IPv6 Special-Purpose
// Address Registries (RFC 6890 and its updates), the multicast ranges, the
// IPv4 reserved range and the deprecated IPv4-compatible IPv6 form. Ranges
// that embed an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
// Teredo) are refused whole: through a translator they reach whatever the
// embedded address names, loopback included.
var Special = prefixes(
	// IPv4
	"0.0.0.0/8",          // "this network"
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // shared address space (carrier-grade NAT)
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments (DS-Lite, PCP/TURN anycast, NAT64 discovery)
	"192.0.2.0/24",       // documentation TEST-NET-1
	"192.31.196.0/24",    // AS112-v4
	"192.52.193.0/24",    // AMT
	"192.88.99.0/24",     // deprecated 6to4 relay anycast
	"192.168.0.0/16",     // private
	"192.175.48.0/24",    // direct delegation AS112
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // documentation TEST-NET-2
	"203.0.113.0/24",     // documentation TEST-NET-3
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved
	"255.255.255.255/32", // limited broadcast
	// IPv6
	"::/96",             // unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d)
	"::ffff:0:0/96",     // IPv4-mapped
	"64:ff9b::/96",      // IPv4/IPv6 translation (NAT64 well-known prefix)
	"64:ff9b:1::/48",    // local-use IPv4/IPv6 translation
	"100::/64",          // discard-only
	"100:0:0:1::/64",    // dummy IPv6 prefix
	"2001::/23",         // IETF protocol assignments (Teredo, benchmarking, AMT, AS112, ORCHID)
	"2001:db8::/32",     // documentation
	"2002::/16",         // 6to4
	"2620:4f:8000::/48", // direct delegation AS112
	"3fff::/20",         // documentation
	"5f00::/16",         // segment routing (SRv6) SIDs
	"fc00::/7",          // unique-local
	"fe80::/10",         // link-local unicast
	"fec0::/10",         // deprecated site-local
	"ff00::/8",          // multicast
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// PublicOnly refuses connections to every special-purpose address (see
// Special). Use it as net.Dialer.Control.
func PublicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("netguard: %w", err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("netguard: %w", err)
	}
	if !IsPublic(ip) {
		return fmt.Errorf("%w: %s", ErrNotPublic, ip)
	}
	return nil
}

// IsPublic reports whether ip is a public unicast address: a global unicast
// address outside every special-purpose range. An IPv4-mapped address is
// judged by the IPv4 address it carries.
func IsPublic(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() || !ip.IsGlobalUnicast() {
		return false
	}
	for _, p := range Special {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}
