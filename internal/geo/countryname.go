package geo

//go:generate go run gen_countries.go

// CountryName is the English name of an ISO 3166-1 alpha-2 code ("US" →
// "United States"); an unknown code is returned as it is.
func CountryName(code string) string {
	if n, ok := countryNames[code]; ok {
		return n
	}
	return code
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
