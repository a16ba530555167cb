package netguard

import (
	"errors"
	"testing"
)

func TestPublicOnly(t *testing.T) {
	for addr, public := range map[string]bool{
		"93.184.216.34:443": true, "[2606:2800:220:1::]:443": true,
		"127.0.0.1:80": false, "10.1.2.3:80": false, "192.168.1.1:80": false, "172.16.0.1:80": false,
		"169.254.169.254:80": false, "100.64.0.1:80": false, "0.0.0.0:80": false, "[::1]:80": false,
		"[fe80::1]:80": false, "[fd00::1]:80": false, "[::ffff:127.0.0.1]:80": false, "224.0.0.1:80": false,
	} {
		err := PublicOnly("tcp", addr, nil)
		if (err == nil) != public {
			t.Errorf("%s: err %v, want public=%v", addr, err, public)
		}
		if err != nil && !errors.Is(err, ErrNotPublic) {
			t.Errorf("%s: %v is not ErrNotPublic", addr, err)
		}
	}
}
