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
