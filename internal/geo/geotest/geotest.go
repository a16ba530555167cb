// Package geotest writes a tiny MaxMind-format database for tests.
package geotest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// Write builds a tiny GeoIP2-City-shaped database: 81.2.69.0/24 is
// London, GB; 2.125.160.0/24 is Paris, FR.
func Write(t testing.TB) string {
	t.Helper()
	w, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoIP2-City", RecordSize: 24})
	if err != nil {
		t.Fatal(err)
	}
	add := func(cidr, cc, cont, sub, city string, lat, lon float64) {
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			t.Fatal(err)
		}
		rec := mmdbtype.Map{
			"country":      mmdbtype.Map{"iso_code": mmdbtype.String(cc)},
			"continent":    mmdbtype.Map{"code": mmdbtype.String(cont)},
			"city":         mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String(city)}},
			"subdivisions": mmdbtype.Slice{mmdbtype.Map{"iso_code": mmdbtype.String(sub)}},
			"location":     mmdbtype.Map{"latitude": mmdbtype.Float64(lat), "longitude": mmdbtype.Float64(lon)},
		}
		if err := w.Insert(n, rec); err != nil {
			t.Fatal(err)
		}
	}
	add("81.2.69.0/24", "GB", "EU", "ENG", "London", 51.5, -0.12)
	add("2.125.160.0/24", "FR", "EU", "IDF", "Paris", 48.86, 2.35)
	path := filepath.Join(t.TempDir(), "city.mmdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
