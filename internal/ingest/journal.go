package ingest

// The click journal (issue 15 item 1, docs/reliability.md). With a journal
// the pipeline's front changes, not its writer:
//
//	redirect -> Enqueue: encode the Hit into the open group (memory, mutex)
//	committer, every Window: append the group to the log (tidwall/wal) and
//	    fsync it (FsyncCommit), one write and one fsync for every click of
//	    the window
//	reader: read the log in order from the first unwritten entry and feed
//	    the consumer's queue, waiting when it is full (the log is the buffer:
//	    a database outage grows the log on disk, not memory)
//	consumer (run): as before; each batch remembers the last journal index
//	    it covers, and a committed batch moves the journal's watermark
//	trimmer: drops log segments wholly below the watermark
//
// On start the reader begins at the log's first entry, so what a crash left
// unwritten is replayed; entries that were written but not yet trimmed are
// replayed too and skipped by the click-id unique key (RecordClicks inserts
// with ON CONFLICT DO NOTHING and counts and aggregates only inserted rows),
// so a replay never counts a click twice.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/wal"

	"github.com/relinkhq/relink/internal/geo"
)

// JournalOptions configure the click journal.
type JournalOptions struct {
	Dir         string        // segment directory (RELINK_DATA_DIR/clicks)
	MaxBytes    int64         // past it clicks are refused (RELINK_CLICK_JOURNAL_MAX)
	Window      time.Duration // group-commit window (RELINK_CLICK_JOURNAL_WINDOW)
	FsyncCommit bool          // fsync every group commit (RELINK_CLICK_JOURNAL_FSYNC=commit)
}

// journalSegment is the log's segment size. Trimming rewrites at most the
// remainder of one segment, so segments are small.
const journalSegment = 4 << 20

type journal struct {
	opt    JournalOptions
	log    *wal.Log
	lg     *slog.Logger
	unlock func() error // releases the data directory's lock

	mu      sync.Mutex // guards the open group
	group   []byte     // encoded records, each length-prefixed
	count   int        // records in group
	closing bool

	next      atomic.Uint64 // index the next committed record gets
	last      atomic.Uint64 // last index committed to the log
	committed atomic.Uint64 // last index whose click is in the database (or skipped)
	size      atomic.Int64  // bytes on disk (measured) plus appended since
	full      atomic.Bool

	commitErrors atomic.Uint64
	syncReq      chan struct{}
	syncDone     chan struct{}
	wake         chan struct{} // the reader: new entries
	kick         chan chan struct{}
	stop         chan struct{}
	done         chan struct{}
}

func openJournal(opt JournalOptions, lg *slog.Logger) (*journal, error) {
	if opt.Window <= 0 {
		opt.Window = 5 * time.Millisecond
	}
	if err := os.MkdirAll(opt.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("click journal: %w", err)
	}
	unlock, err := lockDir(opt.Dir)
	if err != nil {
		return nil, err
	}
	l, err := wal.Open(opt.Dir, &wal.Options{NoSync: true, SegmentSize: journalSegment, SegmentCacheSize: 2,
		AllowEmpty: true, NoCopy: true, DirPerms: 0o750, FilePerms: 0o640})
	if err != nil {
		unlock()
		return nil, fmt.Errorf("click journal: open %s: %w", opt.Dir, err)
	}
	first, err1 := l.FirstIndex()
	last, err2 := l.LastIndex()
	if err := errors.Join(err1, err2); err != nil {
		l.Close()
		unlock()
		return nil, fmt.Errorf("click journal: %w", err)
	}
	j := &journal{opt: opt, log: l, lg: lg, unlock: unlock, wake: make(chan struct{}, 1), kick: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}), syncReq: make(chan struct{}, 1), syncDone: make(chan struct{})}
	go j.syncLoop()
	j.next.Store(last + 1)
	j.last.Store(last)
	j.committed.Store(first - 1)
	j.measure()
	if last >= first {
		lg.Warn("click journal: replaying clicks not yet written (left by a crash, an outage or a shutdown deadline)",
			"clicks", last-first+1, "bytes", j.size.Load())
	}
	go j.commitLoop()
	return j, nil
}

// append adds an encoded hit to the open group; false when the journal is
// full or closing.
func (j *journal) append(h *Hit) bool {
	if j.full.Load() {
		return false
	}
	j.mu.Lock()
	if j.closing {
		j.mu.Unlock()
		return false
	}
	j.group = encodeHit(j.group, h)
	j.count++
	j.mu.Unlock()
	return true
}

// commitLoop group-commits every Window until stopped.
func (j *journal) commitLoop() {
	defer close(j.done)
	t := time.NewTicker(j.opt.Window)
	defer t.Stop()
	measure := time.NewTicker(time.Second)
	defer measure.Stop()
	var spare []byte
	for {
		select {
		case <-t.C:
			spare = j.commit(spare)
		case reply := <-j.kick:
			spare = j.commit(spare)
			close(reply)
		case <-measure.C:
			j.trim()
			j.measure()
		case <-j.stop:
			j.commit(spare)
			return
		}
	}
}

// commit writes the open group as one batch of log entries and fsyncs it.
func (j *journal) commit(spare []byte) []byte {
	j.mu.Lock()
	g, n := j.group, j.count
	j.group, j.count = spare[:0], 0
	j.mu.Unlock()
	if n == 0 {
		return g
	}
	var b wal.Batch
	idx := j.next.Load()
	for rest := g; len(rest) > 0; idx++ {
		l, k := binary.Uvarint(rest)
		b.Write(idx, rest[k:k+int(l)])
		rest = rest[k+int(l):]
	}
	// The write reaches the kernel now (a SIGKILL cannot lose it); the
	// fsync runs on the syncer, so a slow disk does not hold the next group
	// in memory (tidwall/wal's Sync would hold the log's lock throughout).
	err := j.log.WriteBatch(&b)
	if err == nil && j.opt.FsyncCommit {
		select {
		case j.syncReq <- struct{}{}:
		default: // a sync is pending already; it covers this write
		}
	}
	if err != nil {
		// The log refuses further writes once corrupt; the clicks of this
		// group are counted as lost.
		j.commitErrors.Add(uint64(n))
		j.lg.Error("click journal: group commit failed; clicks lost", "clicks", n, "err", err)
		return g
	}
	j.next.Store(idx)
	j.last.Store(idx - 1)
	j.size.Add(int64(len(g)))
	j.full.Store(j.size.Load() >= j.opt.MaxBytes)
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return g
}

// syncLoop fsyncs the newest segment file after each commit (coalescing
// requests that arrive while one runs) until the committer stops.
func (j *journal) syncLoop() {
	defer close(j.syncDone)
	var f *os.File
	var name string
	defer func() {
		if f != nil {
			_ = f.Sync()
			f.Close()
		}
	}()
	for {
		select {
		case <-j.syncReq:
		case <-j.done:
			return
		}
		newest := j.newestSegment()
		if newest != name {
			if f != nil {
				_ = f.Sync() // the segment just closed by the log
				f.Close()
				f = nil
			}
			var err error
			if f, err = os.Open(newest); err != nil {
				j.lg.Error("click journal: open segment for fsync", "err", err)
				f, name = nil, ""
				continue
			}
			name = newest
		}
		if err := f.Sync(); err != nil {
			j.lg.Error("click journal: fsync failed", "err", err)
		}
	}
}

// newestSegment is the path of the log's tail segment (tidwall/wal names
// segments by their zero-padded first index, so the greatest name).
func (j *journal) newestSegment() string {
	ents, _ := os.ReadDir(j.opt.Dir)
	newest := ""
	for _, e := range ents {
		if !e.IsDir() && len(e.Name()) == 20 && e.Name() > newest {
			newest = e.Name()
		}
	}
	return filepath.Join(j.opt.Dir, newest)
}

// sync commits the open group now (Flush, Drain).
func (j *journal) sync(ctx context.Context) error {
	reply := make(chan struct{})
	select {
	case j.kick <- reply:
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-reply:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// trim drops the entries below the watermark. tidwall/wal rewrites the rest
// of the segment holding the new first entry, so trimming runs once a
// second, not per batch.
func (j *journal) trim() {
	c := j.committed.Load()
	first, err := j.log.FirstIndex()
	if err != nil || c+1 <= first {
		return
	}
	if err := j.log.TruncateFront(c + 1); err != nil {
		j.lg.Error("click journal: trim failed", "upto", c, "err", err)
	}
}

// measure sets size from the segment files on disk.
func (j *journal) measure() {
	var total int64
	_ = filepath.WalkDir(j.opt.Dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	j.size.Store(total)
	full := total >= j.opt.MaxBytes
	if j.full.Swap(full) != full {
		j.lg.Warn("click journal: size limit", "full", full, "bytes", total, "max", j.opt.MaxBytes)
	}
}

// feed reads the log from the first unwritten entry and hands each hit to
// out, blocking when out blocks, until stop; then it feeds the rest. It
// returns early when out returns false (aborted).
func (j *journal) feed(out func(Hit) bool, stop <-chan struct{}) {
	next := j.committed.Load() + 1
	for {
		for last := j.last.Load(); next <= last; next++ {
			data, err := j.log.Read(next)
			if err != nil {
				j.lg.Error("click journal: read failed; entry skipped", "index", next, "err", err)
				continue
			}
			h, err := decodeHit(data)
			if err != nil {
				j.lg.Error("click journal: undecodable entry skipped", "index", next, "err", err)
				continue
			}
			h.seq = next
			if !out(h) {
				return
			}
		}
		select {
		case <-j.wake:
		case <-stop:
			if next > j.last.Load() {
				return
			}
		}
	}
}

// close commits the open group, refuses new clicks and stops the committer.
func (j *journal) closeWrites() {
	j.mu.Lock()
	j.closing = true
	j.mu.Unlock()
	select {
	case <-j.done:
	default:
		close(j.stop)
		<-j.done
	}
	<-j.syncDone
}

// closeLog trims what was written and closes the log.
func (j *journal) closeLog() error {
	j.trim()
	return errors.Join(j.log.Close(), j.unlock())
}

// encodeHit appends h, length-prefixed, to dst: uvarint lengths and strings,
// the time in Unix nanoseconds, and a flags byte.
func encodeHit(dst []byte, h *Hit) []byte {
	strs := [...]string{h.ClickID, h.LinkID, h.WorkspaceID, h.Domain, h.Key, h.URL, h.IP, h.UA, h.Referer,
		h.Trigger, h.Geo.Country, h.Geo.Region, h.Geo.City}
	n := 1 + binary.MaxVarintLen64
	for _, s := range strs {
		n += binary.MaxVarintLen64 + len(s)
	}
	var tmp [512]byte
	rec := tmp[:0]
	if n > len(tmp) {
		rec = make([]byte, 0, n)
	}
	var flags byte
	if h.QR {
		flags |= 1
	}
	if h.Bot {
		flags |= 2
	}
	rec = append(rec, flags)
	rec = binary.AppendVarint(rec, h.Time.UnixNano())
	for _, s := range strs {
		rec = binary.AppendUvarint(rec, uint64(len(s)))
		rec = append(rec, s...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(rec)))
	return append(dst, rec...)
}

var errShortRecord = errors.New("short record")

func decodeHit(b []byte) (Hit, error) {
	var h Hit
	if len(b) < 2 {
		return h, errShortRecord
	}
	flags := b[0]
	b = b[1:]
	t, k := binary.Varint(b)
	if k <= 0 {
		return h, errShortRecord
	}
	b = b[k:]
	h.Time, h.QR, h.Bot = time.Unix(0, t), flags&1 != 0, flags&2 != 0
	var g geo.Hint
	for _, p := range [...]*string{&h.ClickID, &h.LinkID, &h.WorkspaceID, &h.Domain, &h.Key, &h.URL, &h.IP, &h.UA, &h.Referer,
		&h.Trigger, &g.Country, &g.Region, &g.City} {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return h, errShortRecord
		}
		*p = string(b[k : k+int(l)])
		b = b[k+int(l):]
	}
	h.Geo = g
	return h, nil
}
