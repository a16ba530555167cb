package ingest

import "os"

// SetWriteAt replaces the journal's segment write (fault injection); the
// returned function restores it. Tests that use it must not run in parallel;
// restoring it while a journal still runs is safe.
func SetWriteAt(f func(*os.File, []byte, int64) (int, error)) (restore func()) {
	w := writeFunc(f)
	old := writeAt.Swap(&w)
	return func() { writeAt.Store(old) }
}

// EncodePayload is h as a journal entry's payload (the record without its
// header), which is also what the previous format (tidwall/wal) stored.
func EncodePayload(h Hit) []byte { return encodeHit(nil, &h)[recHeader:] }

// JournalHandoff is the click channel's capacity with a journal.
const JournalHandoff = journalHandoff
