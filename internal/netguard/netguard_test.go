package netguard

import (
	"errors"
	"net"
	"net/netip"
	"testing"
)

// lastAddr is the highest address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func dial(a netip.Addr) error {
	return PublicOnly("tcp", net.JoinHostPort(a.String(), "443"), nil)
}

// TestSpecialRanges: the first and last address of every special-purpose
// range is refused, and so is each one's IPv4-mapped form.
func TestSpecialRanges(t *testing.T) {
	for _, p := range Special {
		for _, a := range []netip.Addr{p.Masked().Addr(), lastAddr(p)} {
			if err := dial(a); !errors.Is(err, ErrNotPublic) {
				t.Errorf("%s (range %s): err %v, want ErrNotPublic", a, p, err)
			}
			if a.Is4() {
				m := netip.AddrFrom16(a.As16())
				if err := dial(m); !errors.Is(err, ErrNotPublic) {
					t.Errorf("%s (mapped, range %s): err %v, want ErrNotPublic", m, p, err)
				}
			}
		}
	}
}

// TestPublicOnly: named cases, the ones the battery found first.
func TestPublicOnly(t *testing.T) {
	for addr, public := range map[string]bool{
		"93.184.216.34:443": true, "[2606:2800:220:1::]:443": true, "[::ffff:93.184.216.34]:443": true,
		"8.8.8.8:53": true, "[2a00:1450:4001::1]:443": true, "1.1.1.1:443": true,
		"127.0.0.1:80": false, "10.1.2.3:80": false, "192.168.1.1:80": false, "172.16.0.1:80": false,
		"169.254.169.254:80": false, "100.64.0.1:80": false, "0.0.0.0:80": false, "[::1]:80": false,
		"[fe80::1]:80": false, "[fd00::1]:80": false, "[::ffff:127.0.0.1]:80": false, "224.0.0.1:80": false,
		"[::127.0.0.1]:80": false, "192.0.2.1:80": false, "198.51.100.7:80": false, "203.0.113.9:80": false,
		"198.18.0.1:80": false, "[64:ff9b::7f00:1]:80": false, "[2001:db8::1]:80": false,
		"[2002:7f00:1::]:80": false, "[2001::1]:80": false, "[ff02::1]:80": false, "255.255.255.255:80": false,
		"240.0.0.1:80": false, "0.1.2.3:80": false, "[fe80::1%25eth0]:80": false,
	} {
		err := PublicOnly("tcp", addr, nil)
		if (err == nil) != public {
			t.Errorf("%s: err %v, want public=%v", addr, err, public)
		}
		if !public && err != nil && !errors.Is(err, ErrNotPublic) {
			t.Errorf("%s: %v is not ErrNotPublic", addr, err)
		}
	}
}

// TestEdgesArePublic: the addresses just outside a few ranges are allowed,
// so the table is not refusing more than it names.
func TestEdgesArePublic(t *testing.T) {
	for _, s := range []string{"9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "192.0.1.255",
		"192.0.3.0", "198.17.255.255", "198.20.0.0", "223.255.255.255", "2001:200::", "2001:db9::", "2003::"} {
		if err := dial(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s: %v, want public", s, err)
		}
	}
}

// ianaRanges is the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (every entry, sub-ranges included), the multicast ranges and the
// deprecated IPv6 ranges, written out from the registries rather than from
// Special, so a range dropped from Special fails TestIANARegistries.
var ianaRanges = []string{
	// IPv4 Special-Purpose Address Registry
	"0.0.0.0/8", "0.0.0.0/32", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.0.0.0/24", "192.0.0.0/29", "192.0.0.8/32", "192.0.0.9/32", "192.0.0.10/32",
	"192.0.0.170/32", "192.0.0.171/32", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24",
	"192.88.99.0/24", "192.88.99.2/32", "192.168.0.0/16", "192.175.48.0/24", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
	// IPv4 multicast
	"224.0.0.0/4",
	// IPv6 Special-Purpose Address Registry
	"::1/128", "::/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64",
	"2001::/23", "2001::/32", "2001:1::1/128", "2001:1::2/128", "2001:1::3/128", "2001:2::/48",
	"2001:3::/32", "2001:4:112::/48", "2001:10::/28", "2001:20::/28", "2001:30::/28", "2001:db8::/32",
	"2002::/16", "2620:4f:8000::/48", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
	// IPv6 multicast, and the deprecated IPv4-compatible (RFC 4291 2.5.5.1) and site-local forms
	"ff00::/8", "::/96", "fec0::/10",
}

// TestIANARegistries: the first and last address of every range of the
// registries is refused; so is each IPv4 range's first and last address in
// its IPv4-compatible (::a.b.c.d), IPv4-mapped (::ffff:a.b.c.d) and NAT64
// (64:ff9b::a.b.c.d, 64:ff9b:1::a.b.c.d) forms, and a public address in
// those forms too (a translator reaches what it embeds; none is a public
// IPv6 address of its own).
func TestIANARegistries(t *testing.T) {
	embed := func(prefix string, a netip.Addr) netip.Addr {
		b := netip.MustParseAddr(prefix).As16()
		v4 := a.As4()
		copy(b[12:], v4[:])
		return netip.AddrFrom16(b)
	}
	forms := []string{"::", "::ffff:0:0", "64:ff9b::", "64:ff9b:1::"}
	for _, r := range ianaRanges {
		p := netip.MustParsePrefix(r)
		for _, a := range []netip.Addr{p.Masked().Addr(), lastAddr(p)} {
			if err := dial(a); !errors.Is(err, ErrNotPublic) {
				t.Errorf("%s (%s): err %v, want ErrNotPublic", a, r, err)
			}
			if !a.Is4() {
				continue
			}
			for _, f := range forms {
				if m := embed(f, a); !errors.Is(dial(m), ErrNotPublic) {
					t.Errorf("%s (%s in %s): allowed", m, r, f)
				}
			}
		}
	}
	for _, s := range []string{"::8.8.8.8", "64:ff9b::8.8.8.8", "64:ff9b:1::8.8.8.8", "2002:808:808::1", "2001:0:4136:e378::1"} {
		if err := dial(netip.MustParseAddr(s)); !errors.Is(err, ErrNotPublic) {
			t.Errorf("%s: err %v, want ErrNotPublic", s, err)
		}
	}
	// The guard names addresses, not hosts: a host name is refused as not
	// an address (the dialer's Control only ever sees resolved ones).
	if err := PublicOnly("tcp", "localhost:80", nil); err == nil {
		t.Error("a host name passed the guard")
	}
}
