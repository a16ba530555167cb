package geo

import "sort"

//go:generate go run gen_countries.go

// CountryName is the English name of an ISO 3166-1 alpha-2 code ("US" →
// "United States"); an unknown code is returned as it is.
func CountryName(code string) string {
	if n, ok := countryNames[code]; ok {
		return n
	}
	return code
}

// Country is a code and its English name.
type Country struct{ Code, Name string }

// Countries lists every known country by name (the application page's
// choice).
func Countries() []Country {
	out := make([]Country, 0, len(countryNames))
	for c, n := range countryNames {
		out = append(out, Country{c, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Flag is the country's flag emoji: the two regional indicator symbols of
// its code ("US" → 🇺🇸); "" for anything that is not two letters A–Z.
func Flag(code string) string {
	if len(code) != 2 || code[0] < 'A' || code[0] > 'Z' || code[1] < 'A' || code[1] > 'Z' {
		return ""
	}
	const base = 0x1F1E6 - 'A'
	return string([]rune{rune(code[0]) + base, rune(code[1]) + base})
}
