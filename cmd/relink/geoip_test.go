package main

import (
	"strings"
	"testing"
)

func TestGeoIPStatus(t *testing.T) {
	db := "sqlite:" + t.TempDir() + "/r.db"
	r := relink(t, map[string]string{"RELINK_DATABASE_URL": db}, "geoip", "status")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"source:      embedded", "resolves country", "days old", "nro.net"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	r = relink(t, map[string]string{"RELINK_DATABASE_URL": db, "RELINK_GEOIP_DB": "off"}, "geoip", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "none (RELINK_GEOIP_DB=off)") {
		t.Errorf("off: exit %d, %q", r.code, r.stdout)
	}
	r = relink(t, map[string]string{"RELINK_DATABASE_URL": db, "RELINK_GEOIP_DB": t.TempDir() + "/missing.mmdb"}, "geoip", "status")
	if r.code != 1 || !strings.Contains(r.stderr, "missing.mmdb") {
		t.Errorf("missing file: exit %d, %q", r.code, r.stderr)
	}
	if r := relink(t, map[string]string{"RELINK_DATABASE_URL": db}, "geoip", "--help"); r.code != 0 || !strings.Contains(r.stdout, "relink geoip status") {
		t.Errorf("--help: exit %d, %q", r.code, r.stdout)
	}
	if r := relink(t, map[string]string{"RELINK_DATABASE_URL": db}, "geoip"); r.code != 2 {
		t.Errorf("no subcommand: exit %d, want 2", r.code)
	}
}
