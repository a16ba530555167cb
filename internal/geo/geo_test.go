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
