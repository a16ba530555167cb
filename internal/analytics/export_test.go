package analytics

// SetManyLinks changes the id-list/scan threshold of link lookups for a
// test and returns the old value.
func SetManyLinks(n int) int {
	old := manyLinks
	manyLinks = n
	return old
}

// SpanReads reports the aggregate range reads per grain (hourly, daily,
// weekly) and how many of them were subtracted.
func (e *SQLEngine) SpanReads() (hours, days, weeks, subtracted int64) {
	return e.spanReads[hourly].Load(), e.spanReads[daily].Load(), e.spanReads[weekly].Load(), e.subtracted.Load()
}

// RankedReads reports how many groupings the database ranked.
func (e *SQLEngine) RankedReads() int64 { return e.rankedReads.Load() }

// RollupReads reports how many rankings read the link-attribute rollups.
func (e *SQLEngine) RollupReads() int64 { return e.rollupReads.Load() }

// FourWeekReads reports the four-week range reads (ClickHouse's link- and
// URL-keyed rollups).
func (e *SQLEngine) FourWeekReads() int64 { return e.spanReads[fourWeekly].Load() }

// URLHashReads reports the URL rankings by hash in ClickHouse, their spans
// read from the strings, and the rankings that fell back to the strings.
func (e *SQLEngine) URLHashReads() (ranks, unhashed, misses int64) {
	return e.urlHashRanks.Load(), e.urlSpansUnhashed.Load(), e.urlHashMisses.Load()
}
