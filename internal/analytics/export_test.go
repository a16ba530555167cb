package analytics

// SetManyLinks changes the id-list/scan threshold of link lookups for a
// test and returns the old value.
func SetManyLinks(n int) int {
	old := manyLinks
	manyLinks = n
	return old
}
