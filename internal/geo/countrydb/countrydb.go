// Package countrydb embeds a free IP-to-country database so that a fresh
// Relink locates clicks by country with no licence key, no download and no
// proxy header.
//
// The data is ip-location-db's geo-whois-asn-country in MaxMind format (npm
// package @ip-location-db/geo-whois-asn-country-mmdb): GeoFeed, then the five
// regional internet registries' WHOIS data, then their ASN-to-country data,
// merged in that order. Its records are {"country_code": "US"}. The package is
// published as CC0; the RIR data it is made from is licensed under Creative
// Commons Attribution 4.0 by the Number Resource Organization (NRO_LICENSE
// beside this file), which asks for the attribution in Attribution.
//
// The file is stored gzip-compressed (3.9 MB instead of 7.8 MB); it is
// decompressed once per process, on first use. `make geoip-update` replaces
// it with the newest published version.
package countrydb

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sync"
)

// Name, Version and Attribution describe the embedded database for
// `relink geoip status` and the README.
const (
	Name        = "ip-location-db geo-whois-asn-country (embedded)"
	Version     = "2.3.2026061719"
	Attribution = "IP-to-country data: ip-location-db (CC0), from RIR data by the NRO (nro.net), CC BY 4.0"
)

//go:embed geo-whois-asn-country.mmdb.gz
var compressed []byte

var (
	once sync.Once
	data []byte
	err  error
)

// Bytes returns the decompressed .mmdb. The slice is shared and must not be
// modified.
func Bytes() ([]byte, error) {
	once.Do(func() {
		zr, zerr := gzip.NewReader(bytes.NewReader(compressed))
		if zerr != nil {
			err = fmt.Errorf("embedded country database: %w", zerr)
			return
		}
		var buf bytes.Buffer
		buf.Grow(8 << 20)
		if _, zerr := io.Copy(&buf, zr); zerr != nil {
			err = fmt.Errorf("embedded country database: %w", zerr)
			return
		}
		data = buf.Bytes()
	})
	return data, err
}
