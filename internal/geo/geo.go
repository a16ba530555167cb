// Package geo locates a click: from headers a trusted proxy sets (Cloudflare's
// CF-IPCountry, Vercel's X-Vercel-IP-Country/-Region/-City, configurable) and
// from the client IP, in a MaxMind-format .mmdb: the one RELINK_GEOIP_DB names
// (a GeoLite2/GeoIP2 City or Country database), else the free country
// database embedded in the binary (internal/geo/countrydb). It also maps
// countries to continents.
package geo

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/oschwald/maxminddb-golang/v2"

	"github.com/relinkhq/relink/internal/geo/countrydb"
)

// Unknown is the value of a field that could not be determined.
const Unknown = "Unknown"

// Location is where a click came from, in the shape a click records
// (spec/links.md §11): ISO-2 country, subdivision code for region, city name,
// continent code; Unknown (or "" for continent) when not determined.
type Location struct {
	Country, Region, City, Continent string
	Latitude, Longitude              string
}

// Headers names the request headers a trusted proxy fills, first non-empty
// wins within each list.
type Headers struct {
	Country []string
	Region  []string
	City    []string
}

// DefaultHeaders are Cloudflare's and Vercel's.
var DefaultHeaders = Headers{
	Country: []string{"CF-IPCountry", "X-Vercel-IP-Country"},
	Region:  []string{"X-Vercel-IP-Country-Region"},
	City:    []string{"X-Vercel-IP-City"},
}

// Hint is what the request path copies from trusted headers; it is resolved
// into a Location off the request path by Locator.Locate.
type Hint struct {
	Country, Region, City string
}

// FromHeaders reads a Hint with get (a header getter). Call it only for
// requests from a trusted proxy.
func (h Headers) FromHeaders(get func(string) string) Hint {
	return Hint{Country: first(h.Country, get), Region: first(h.Region, get), City: first(h.City, get)}
}

func first(names []string, get func(string) string) string {
	for _, n := range names {
		if v := get(n); v != "" {
			return v
		}
	}
	return ""
}

// Locator resolves locations. The zero value uses headers only.
type Locator struct {
	db *maxminddb.Reader
	// flat: the database's records are {"country_code": …} (ip-location-db's
	// layout) rather than MaxMind's nested country.iso_code.
	flat bool
	info Info
}

// Off is the RELINK_GEOIP_DB value that turns IP lookups off (trusted
// headers only).
const Off = "off"

// Info says which database a Locator uses, for `relink geoip status`.
type Info struct {
	Source      string    // "embedded", the file's path, or "" (none: headers only)
	Name        string    // the database's name
	Type        string    // its metadata's database_type
	Built       time.Time // its metadata's build time
	Granularity string    // "country" or "city"
	Attribution string    // the credit its licence asks for, if any
}

// Open returns a Locator backed by the .mmdb at path: "" selects the
// embedded country database, Off none (trusted headers only).
func Open(path string) (*Locator, error) {
	switch path {
	case Off:
		return &Locator{}, nil
	case "":
		buf, err := countrydb.Bytes()
		if err != nil {
			return nil, err
		}
		db, err := maxminddb.OpenBytes(buf)
		if err != nil {
			return nil, fmt.Errorf("open embedded country database: %w", err)
		}
		return newLocator(db, "embedded", countrydb.Name+" "+countrydb.Version, countrydb.Attribution), nil
	}
	db, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open geoip database %s: %w", path, err)
	}
	return newLocator(db, path, db.Metadata.Description["en"], ""), nil
}

func newLocator(db *maxminddb.Reader, source, name, attribution string) *Locator {
	m := db.Metadata
	l := &Locator{db: db, info: Info{Source: source, Name: name, Type: m.DatabaseType,
		Built: time.Unix(int64(m.BuildEpoch), 0).UTC(), Granularity: "country", Attribution: attribution}}
	if name == "" {
		l.info.Name = m.DatabaseType
	}
	if strings.Contains(strings.ToLower(m.DatabaseType), "city") {
		l.info.Granularity = "city"
	}
	// ip-location-db's country databases call themselves "country ipv4",
	// "country ipvAll" … and keep the code at the top level; MaxMind's say
	// "GeoLite2-Country" and nest it.
	l.flat = strings.HasPrefix(m.DatabaseType, "country")
	return l
}

// Info describes the database in use.
func (l *Locator) Info() Info {
	if l == nil {
		return Info{}
	}
	return l.info
}

// Close releases the database.
func (l *Locator) Close() error {
	if l == nil || l.db == nil {
		return nil
	}
	return l.db.Close()
}

// cityRecord is the subset of GeoIP2/GeoLite2 City (and Country) records used.
type cityRecord struct {
	CountryCode string `maxminddb:"country_code"` // ip-location-db's layout
	Country     struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"country"`
	Continent struct {
		Code string `maxminddb:"code"`
	} `maxminddb:"continent"`
	City struct {
		Names map[string]string `maxminddb:"names"`
	} `maxminddb:"city"`
	Subdivisions []struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"subdivisions"`
	Location struct {
		Latitude  *float64 `maxminddb:"latitude"`
		Longitude *float64 `maxminddb:"longitude"`
	} `maxminddb:"location"`
}

// Locate combines the trusted-header hint with a database lookup of ip: header
// values win, the database fills what they leave empty.
func (l *Locator) Locate(ip string, h Hint) Location {
	loc := Location{Country: normCountry(h.Country), Region: strings.TrimSpace(h.Region), City: decodeCity(h.City)}
	if l != nil && l.db != nil && (loc.Country == "" || loc.Region == "" || loc.City == "") {
		if addr, err := netip.ParseAddr(ip); err == nil {
			var rec cityRecord
			if err := l.db.Lookup(addr.Unmap()).Decode(&rec); err == nil {
				dbCountry := strings.ToUpper(rec.Country.ISOCode)
				if dbCountry == "" {
					dbCountry = strings.ToUpper(rec.CountryCode)
				}
				if loc.Country == "" {
					loc.Country = dbCountry
				}
				if loc.Country == dbCountry {
					if loc.Region == "" && len(rec.Subdivisions) > 0 {
						loc.Region = rec.Subdivisions[0].ISOCode
					}
					if loc.City == "" {
						loc.City = rec.City.Names["en"]
					}
					if rec.Location.Latitude != nil && rec.Location.Longitude != nil {
						loc.Latitude = fmt.Sprintf("%g", *rec.Location.Latitude)
						loc.Longitude = fmt.Sprintf("%g", *rec.Location.Longitude)
					}
				}
			}
		}
	}
	loc.Continent = Continent(loc.Country)
	for _, f := range []*string{&loc.Country, &loc.Region, &loc.City, &loc.Latitude, &loc.Longitude} {
		if *f == "" {
			*f = Unknown
		}
	}
	return loc
}

// Country is the cheap lookup the redirect uses for geo targeting (spec/links.md
// §10.2 #14): the trusted header, else the database, else "".
func (l *Locator) Country(ip string, h Hint) string {
	if c := normCountry(h.Country); c != "" {
		return c
	}
	if l == nil || l.db == nil {
		return ""
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	path := []any{"country", "iso_code"}
	if l.flat {
		path = []any{"country_code"}
	}
	var cc string
	if err := l.db.Lookup(addr.Unmap()).DecodePath(&cc, path...); err != nil {
		return ""
	}
	return strings.ToUpper(cc)
}

// normCountry upper-cases an ISO-2 code and drops Cloudflare's placeholders
// (XX unknown, T1 Tor).
func normCountry(c string) string {
	c = strings.ToUpper(strings.TrimSpace(c))
	if len(c) != 2 || c == "XX" || c == "T1" {
		return ""
	}
	return c
}

// decodeCity undoes Vercel's percent-encoding of city names.
func decodeCity(c string) string {
	c = strings.TrimSpace(c)
	if strings.Contains(c, "%") {
		if d, err := url.QueryUnescape(c); err == nil {
			return d
		}
	}
	return c
}
