package links

import (
	"strings"

	"github.com/relinkhq/relink/internal/ids"
)

// DefaultKeyLength is the length of a random key.
const DefaultKeyLength = 7

// RandomKey draws a nanoid key of length n (default 7) with an optional
// prefix: one leading and one trailing "/" are stripped and the key becomes
// prefix/random (spec/links.md §3).
func RandomKey(n int, prefix string) string {
	if n <= 0 {
		n = DefaultKeyLength
	}
	k := ids.Nano(n)
	prefix = strings.TrimSuffix(strings.TrimPrefix(prefix, "/"), "/")
	if prefix != "" {
		return prefix + "/" + k
	}
	return k
}
