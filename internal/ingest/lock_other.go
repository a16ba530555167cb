//go:build !unix

package ingest

// lockDir is a no-op where flock(2) does not exist: run one Relink process
// per RELINK_DATA_DIR there.
func lockDir(string) (func() error, error) { return func() error { return nil }, nil }

// LockJournal is a no-op here (see lockDir).
func LockJournal(dir string) (func() error, error) { return lockDir(dir) }
