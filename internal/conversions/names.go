package conversions

import (
	"math/rand/v2"
	"regexp"
	"strings"

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

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slugify lower-cases s and joins its letters and digits with hyphens.
func Slugify(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// randomSuffix is "-" + 4 random lowercase characters.
func randomSuffix() string { return "-" + ids.Random("abcdefghijklmnopqrstuvwxyz0123456789", 4) }
