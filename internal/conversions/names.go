package conversions

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/relinkhq/relink/internal/ids"
)

var (
	nameAdjectives = []string{"Big", "Brave", "Calm", "Clever", "Eager", "Fancy", "Gentle", "Happy", "Jolly", "Kind",
		"Lively", "Lucky", "Mighty", "Nimble", "Proud", "Quick", "Quiet", "Shy", "Silly", "Swift", "Tiny", "Witty"}
	nameColours = []string{"Amber", "Azure", "Black", "Blue", "Bronze", "Coral", "Crimson", "Gold", "Green", "Grey",
		"Indigo", "Ivory", "Lime", "Olive", "Orange", "Pink", "Purple", "Red", "Silver", "Teal", "White", "Yellow"}
	nameAnimals = []string{"Badger", "Bear", "Beaver", "Caribou", "Crane", "Dolphin", "Eagle", "Falcon", "Fox", "Gecko",
		"Heron", "Koala", "Lemur", "Lynx", "Moose", "Otter", "Owl", "Panda", "Puffin", "Rabbit", "Seal", "Tiger", "Walrus", "Wolf"}
)

// RandomName is the "Adjective Colour Animal" name given to customers
// without a name or email (e.g. "Big Red Caribou").
func RandomName() string {
	pick := func(list []string) string { return list[rand.IntN(len(list))] }
	return pick(nameAdjectives) + " " + pick(nameColours) + " " + pick(nameAnimals)
}

var (
	nonSlug = regexp.MustCompile(`[^a-z0-9]+`)
	// decamelize is @sindresorhus/slugify's decamelize, in its order.
	decamelize = []struct {
		re  *regexp.Regexp
		rep string
	}{
		{regexp.MustCompile(`([A-Z]{2,})(\d+)`), "$1 $2"},
		{regexp.MustCompile(`([a-z\d]+)([A-Z]{2,})`), "$1 $2"},
		{regexp.MustCompile(`([a-z\d])([A-Z])`), "$1 $2"},
		{regexp.MustCompile(`([A-Z]+)([A-Z][a-rt-z\d]+)`), "$1 $2"},
	}
	// transliterations are the letters @sindresorhus/transliterate spells
	// out rather than stripping a mark from (and slugify's "&" → "and").
	transliterations = strings.NewReplacer(
		"&", " and ", "Ä", "Ae", "ä", "ae", "Ö", "Oe", "ö", "oe", "Ü", "Ue", "ü", "ue", "ß", "ss", "ẞ", "SS",
		"Æ", "AE", "æ", "ae", "Œ", "OE", "œ", "oe", "Ø", "O", "ø", "o", "Đ", "D", "đ", "d", "Ł", "L", "ł", "l",
		"Þ", "TH", "þ", "th", "Ð", "D", "ð", "d", "ı", "i", "Ĳ", "IJ", "ĳ", "ij",
	)
)

// Slugify is Dub's slugify (@sindresorhus/slugify, used by
// generate-partner-link.ts for partner link keys): letters transliterated
// (accents dropped, ä → ae, ß → ss, & → and), camelCase split, lower-cased,
// every run of other characters one hyphen, no hyphen at either end.
func Slugify(s string) string {
	s = transliterations.Replace(s)
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	s = norm.NFC.String(b.String())
	for _, d := range decamelize {
		s = d.re.ReplaceAllString(s, d.rep)
	}
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// randomSuffix is "-" + 4 random lowercase characters.
func randomSuffix() string { return "-" + ids.Random("abcdefghijklmnopqrstuvwxyz0123456789", 4) }
