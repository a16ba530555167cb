//go:build unix

package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockDir takes an exclusive advisory lock on dir/LOCK so that two
// processes never share one click journal: each would replay and trim the
// other's clicks. The lock goes with the process, so a crash leaves nothing
// to clean up; the file holds the owner's pid for the error message.
func lockDir(dir string) (release func() error, err error) {
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("click journal: lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		owner, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("click journal: %s is in use by another Relink process (pid %s); give each instance its own RELINK_DATA_DIR",
				dir, strings.TrimSpace(string(owner)))
		}
		return nil, fmt.Errorf("click journal: lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f.Close, nil // closing the descriptor releases the lock
}

// LockJournal takes the click journal's lock on dir as a running server
// holds it: `relink restore` fails while a server uses the directory.
func LockJournal(dir string) (release func() error, err error) { return lockDir(dir) }
