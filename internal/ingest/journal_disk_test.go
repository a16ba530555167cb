package ingest_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// syncBuffer is a log sink safe for the journal's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func segments(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.seg"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// A full disk mid-write: the write that fails has written half its bytes
// (a short write, ENOSPC). It is rolled back to the last complete entry,
// the journal refuses new clicks (counted under reason "disk") while the
// failed group waits, and once writes succeed again the held group is
// written and clicks are accepted, without a restart. Every accepted click
// is stored, and the segments on disk hold only complete entries.
func TestJournalFailedWriteRollsBack(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ctx := context.Background()
	f := setup(t, db)
	dir := t.TempDir()
	var logs syncBuffer
	opt := journalOpts(dir)
	opt.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	var failing atomic.Bool
	var failures atomic.Int64
	defer ingest.SetWriteAt(func(f *os.File, b []byte, off int64) (int, error) {
		if failing.Load() {
			failures.Add(1)
			n, _ := f.WriteAt(b[:len(b)/2], off) // the disk took half
			return n, syscall.ENOSPC
		}
		return f.WriteAt(b, off)
	})()
	p, err := ingest.Open(db, opt)
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	enqueue := func(from, to int) {
		for i := from; i < to; i++ {
			if p.Enqueue(f.hit(i)) {
				accepted++
			}
		}
	}
	enqueue(0, 200)
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	enqueue(200, 300) // accepted into the open group; its write fails
	deadline := time.Now().Add(10 * time.Second)
	for p.Stats().JournalState != ingest.ReasonJournalDisk && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	st := p.Stats()
	if !st.JournalFull || st.JournalState != ingest.ReasonJournalDisk {
		t.Fatalf("after a failed write: stats %+v, want the journal refusing with reason disk", st)
	}
	before := accepted
	// Some of 200–300 may already have been refused when the failed write
	// came first (a slow run): count the refusals of 300–400 alone.
	refused0, dropped0 := st.JournalRefused[ingest.ReasonJournalDisk], st.Dropped
	enqueue(300, 400)
	if accepted != before {
		t.Fatalf("%d clicks accepted while the journal could not write", accepted-before)
	}
	if st := p.Stats(); st.JournalRefused[ingest.ReasonJournalDisk]-refused0 != 100 || st.Dropped-dropped0 != 100 {
		t.Fatalf("refusals %+v (%d before), dropped %d (%d before); want 100 more under reason disk", st.JournalRefused, refused0, st.Dropped, dropped0)
	}
	// Every segment on disk holds complete entries only: the half write
	// was cut back. Read between attempts: the journal counts a failure
	// after its rollback, the injected write before its half write, so
	// when both counts agree before and after the read no attempt was
	// under way (retried and still failing: at least 3).
	for {
		done := p.Stats().JournalWriteFailures
		started := failures.Load()
		if done < 3 || int64(done) != started {
			time.Sleep(time.Millisecond)
			continue
		}
		torn := tornSegments(t, dir)
		if failures.Load() != started {
			continue // an attempt began during the read
		}
		if torn != "" {
			t.Fatal(torn)
		}
		break
	}
	failing.Store(false) // space is back
	for p.Stats().JournalFull && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	enqueue(400, 500)
	if accepted != before+100 {
		t.Fatalf("accepted %d, want %d (every click after the space came back)", accepted, before+100)
	}
	if before < 200 {
		t.Fatalf("accepted %d before the failure, want at least the 200 written", before)
	}
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.count(t); got != int64(accepted) {
		t.Fatalf("stored %d of %d accepted clicks", got, accepted)
	}
	if n := regexp.MustCompile(`write failed; new clicks are refused`).FindAllStringIndex(logs.String(), -1); len(n) != 1 {
		t.Fatalf("the failed write was logged %d times (want once, not per retry):\n%s", len(n), logs.String())
	}
	if n := len(regexp.MustCompile(`click not recorded`).FindAllStringIndex(logs.String(), -1)); n > 2 {
		t.Fatalf("refusals logged %d times in well under two seconds (want at most once a second)", n)
	}
}

// downStore is a database that is down.
type downStore struct{}

func (downStore) RecordClicks(context.Context, []models.Click, ...models.ClickHook) (int, error) {
	return 0, errors.New("database down")
}

// complete reports whether b is whole records (length-prefixed, as the
// segment format lays them out) with nothing torn at the end.
func complete(b []byte) bool {
	for len(b) > 0 {
		if len(b) < 16 {
			return false
		}
		n := int(binary.LittleEndian.Uint32(b))
		if len(b) < 16+n {
			return false
		}
		b = b[16+n:]
	}
	return true
}

// A torn tail written by hand (a process or disk that stopped mid-write):
// on start every complete entry is kept and stored, the half entry is
// dropped, and the log says what was dropped.
func TestJournalTornTailRecoveredOnStart(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ctx := context.Background()
	f := setup(t, db)
	dir := t.TempDir()
	opt := journalOpts(dir)
	p, err := ingest.Open(downStore{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		if !p.Enqueue(f.hit(i)) {
			t.Fatalf("click %d refused", i)
		}
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_ = p.Drain(short) // the database is down: all n stay in the journal
	segs := segments(t, dir)
	if len(segs) == 0 {
		t.Fatal("no segment written")
	}
	// Half an entry at the end, as an interrupted write leaves it.
	tail := segs[len(segs)-1]
	half := ingest.EncodePayload(f.hit(n))
	rec := binary.LittleEndian.AppendUint32(nil, uint32(len(half)))
	rec = append(rec, make([]byte, 12)...)
	rec = append(rec, half...)
	fh, err := os.OpenFile(tail, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.Write(rec[:len(rec)/2]); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	var logs syncBuffer
	opt.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	p2, err := ingest.Open(db, opt)
	if err != nil {
		t.Fatalf("a torn tail must not stop the start: %v", err)
	}
	if err := p2.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.count(t); got != n {
		t.Fatalf("stored %d, want the %d complete entries", got, n)
	}
	if !regexp.MustCompile(`torn tail dropped.*dropped_entries=1 dropped_bytes=\d+`).MatchString(logs.String()) {
		t.Fatalf("the recovery did not log what it dropped:\n%s", logs.String())
	}
	if regexp.MustCompile(`read failed|skipped`).MatchString(logs.String()) {
		t.Fatalf("entries skipped after the recovery:\n%s", logs.String())
	}
}

// A journal of the previous format (tidwall/wal: files named by their first
// index, uvarint length and payload per entry), with a torn last entry, is
// imported on start: every complete entry is stored.
func TestJournalImportsThePreviousFormat(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ctx := context.Background()
	f := setup(t, db)
	dir := t.TempDir()
	for seg, first := range []int{1, 101} {
		var b []byte
		for i := range 100 {
			pl := ingest.EncodePayload(f.hit(seg*100 + i))
			b = binary.AppendUvarint(b, uint64(len(pl)))
			b = append(b, pl...)
		}
		if seg == 1 { // a torn entry at the end of the last file
			pl := ingest.EncodePayload(f.hit(999))
			b = append(binary.AppendUvarint(b, uint64(len(pl))), pl[:len(pl)/2]...)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%020d", first)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := ingest.Open(db, journalOpts(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.count(t); got != 200 {
		t.Fatalf("stored %d of the 200 complete entries of the previous format", got)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "0*")); len(m) != 0 {
		t.Fatalf("files left after the import: %v", m)
	}
}

// tornSegments names the first segment in dir that ends in a torn entry.
func tornSegments(t *testing.T, dir string) string {
	t.Helper()
	for _, s := range segments(t, dir) {
		if b, _ := os.ReadFile(s); !complete(b) {
			return fmt.Sprintf("%s ends in a torn entry after the rollback (%d bytes)", s, len(b))
		}
	}
	return ""
}
