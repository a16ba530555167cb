package static

import (
	"sort"
)

// Names lists every embedded asset, sorted.
func Names() []string {
	t := table()
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
