package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

func TestPublicOnly(t *testing.T) {
	for addr, ok := range map[string]bool{
		"93.184.216.34:443": true, "[2606:2800:220:1:248:1893:25c8:1946]:443": true,
		"127.0.0.1:80": false, "[::1]:80": false, "10.1.2.3:80": false, "172.16.0.1:80": false, "192.168.1.1:80": false,
		"169.254.169.254:80": false, "100.64.0.1:80": false, "0.0.0.0:80": false, "224.0.0.1:80": false,
		"[fd00:ec2::254]:80": false, "[fe80::1]:80": false, "[::ffff:127.0.0.1]:80": false,
	} {
		err := PublicOnly("tcp", addr, nil)
		if (err == nil) != ok || (err != nil && !errors.Is(err, ErrNotPublic)) {
			t.Errorf("%s: %v, want public=%v", addr, err, ok)
		}
	}
	if Public(netip.MustParseAddr("8.8.8.8")) != true {
		t.Error("8.8.8.8 is public")
	}
}
