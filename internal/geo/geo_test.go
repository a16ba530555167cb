package geo

import (
	"testing"

	"github.com/relinkhq/relink/internal/geo/geotest"
)

func TestLocate(t *testing.T) {
	l, err := Open(geotest.Write(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	noDB := &Locator{}
	tests := []struct {
		name string
		l    *Locator
		ip   string
		hint Hint
		want Location
	}{
		{"database only", l, "81.2.69.10", Hint{}, Location{"GB", "ENG", "London", "EU", "51.5", "-0.12"}},
		{"ipv4-mapped ipv6", l, "::ffff:2.125.160.5", Hint{}, Location{"FR", "IDF", "Paris", "EU", "48.86", "2.35"}},
		{"headers win", l, "81.2.69.10", Hint{Country: "us", Region: "CA", City: "San%20Francisco"}, Location{"US", "CA", "San Francisco", "NA", "Unknown", "Unknown"}},
		{"header country, db fills nothing for another country", l, "81.2.69.10", Hint{Country: "DE"}, Location{"DE", "Unknown", "Unknown", "EU", "Unknown", "Unknown"}},
		{"unknown ip", l, "10.0.0.1", Hint{}, Location{"Unknown", "Unknown", "Unknown", "", "Unknown", "Unknown"}},
		{"cloudflare XX is unknown", noDB, "81.2.69.10", Hint{Country: "XX"}, Location{"Unknown", "Unknown", "Unknown", "", "Unknown", "Unknown"}},
		{"headers without db", noDB, "", Hint{Country: "JP"}, Location{"JP", "Unknown", "Unknown", "AS", "Unknown", "Unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.Locate(tt.ip, tt.hint); got != tt.want {
				t.Errorf("Locate = %+v, want %+v", got, tt.want)
			}
		})
	}
	if got := l.Country("2.125.160.9", Hint{}); got != "FR" {
		t.Errorf("Country = %q, want FR", got)
	}
	if got := l.Country("2.125.160.9", Hint{Country: "BR"}); got != "BR" {
		t.Errorf("Country with header = %q, want BR", got)
	}
}

func TestHeaders(t *testing.T) {
	h := map[string]string{"X-Vercel-IP-Country": "CA", "X-Vercel-IP-Country-Region": "QC", "X-Vercel-IP-City": "Montr%C3%A9al"}
	hint := DefaultHeaders.FromHeaders(func(k string) string { return h[k] })
	if hint != (Hint{"CA", "QC", "Montr%C3%A9al"}) {
		t.Fatalf("hint = %+v", hint)
	}
	if loc := (&Locator{}).Locate("", hint); loc.City != "Montréal" || loc.Continent != "NA" {
		t.Errorf("Locate = %+v", loc)
	}
}

func TestContinentAndEU(t *testing.T) {
	for cc, want := range map[string]string{"US": "NA", "br": "SA", "DE": "EU", "NG": "AF", "AU": "OC", "JP": "AS", "AQ": "AN", "ZZ": ""} {
		if got := Continent(cc); got != want {
			t.Errorf("Continent(%s) = %q, want %q", cc, got, want)
		}
	}
	if !InEU("fr") || InEU("GB") || InEU("US") {
		t.Error("InEU wrong")
	}
	if n := len(continentOf); n < 245 {
		t.Errorf("continent table has %d countries, want every ISO code", n)
	}
}

// The embedded free database locates real addresses by country with no
// configuration: Google's public resolver in the US, Deutsche Telekom's and
// heise's networks in Germany, over IPv4, IPv6 and IPv4-mapped IPv6; the
// continent follows from the country.
func TestEmbeddedCountryDatabase(t *testing.T) {
	l, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tt := range []struct{ ip, country, continent string }{
		{"8.8.8.8", "US", "NA"},
		{"80.128.0.1", "DE", "EU"},
		{"193.99.144.80", "DE", "EU"},
		{"2003::1", "DE", "EU"},
		{"::ffff:8.8.4.4", "US", "NA"},
	} {
		got := l.Locate(tt.ip, Hint{})
		if got.Country != tt.country || got.Continent != tt.continent || got.City != Unknown || got.Region != Unknown {
			t.Errorf("Locate(%s) = %+v, want country %s, continent %s, region and city Unknown", tt.ip, got, tt.country, tt.continent)
		}
		if c := l.Country(tt.ip, Hint{}); c != tt.country {
			t.Errorf("Country(%s) = %q, want %q", tt.ip, c, tt.country)
		}
	}
	if got := l.Locate("127.0.0.1", Hint{}); got.Country != Unknown || got.Continent != "" {
		t.Errorf("loopback located as %+v", got)
	}
	if got := l.Locate("8.8.8.8", Hint{Country: "FR"}); got.Country != "FR" || got.Continent != "EU" {
		t.Errorf("a trusted header must win over the database: %+v", got)
	}
	info := l.Info()
	if info.Source != "embedded" || info.Granularity != "country" || info.Built.Year() < 2025 || info.Attribution == "" {
		t.Errorf("Info = %+v", info)
	}
}

func TestOff(t *testing.T) {
	l, err := Open(Off)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Locate("8.8.8.8", Hint{}); got.Country != Unknown {
		t.Errorf("RELINK_GEOIP_DB=off located 8.8.8.8 as %+v", got)
	}
	if l.Info().Source != "" {
		t.Errorf("Info = %+v", l.Info())
	}
}

func TestFileInfo(t *testing.T) {
	l, err := Open(geotest.Write(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if info := l.Info(); info.Granularity != "city" || info.Source == "embedded" || info.Source == "" {
		t.Errorf("Info = %+v", info)
	}
}
