package geo

import "testing"

func TestCountryNameAndFlag(t *testing.T) {
	for _, c := range []struct{ code, name, flag string }{
		{"US", "United States", "🇺🇸"},
		{"DE", "Germany", "🇩🇪"},
		{"GB", "United Kingdom", "🇬🇧"},
		{"Unknown", "Unknown", ""},
		{"us", "us", ""},
		{"", "", ""},
	} {
		if got := CountryName(c.code); got != c.name {
			t.Errorf("CountryName(%q) = %q, want %q", c.code, got, c.name)
		}
		if got := Flag(c.code); got != c.flag {
			t.Errorf("Flag(%q) = %q, want %q", c.code, got, c.flag)
		}
	}
}
