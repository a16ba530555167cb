package ingest

// The click journal (issue 15 item 1, issue 31, docs/reliability.md). With a
// journal the pipeline's front changes, not its writer:
//
//	redirect -> Enqueue: encode the Hit into the open group (memory, mutex)
//	committer, every Window: write the group to the tail segment (one
//	    pwrite at its known end) and fsync it (FsyncCommit) on the syncer
//	reader: read the segments in order from the first unwritten entry and
//	    feed the consumer's queue, waiting when it is full (the journal is
//	    the buffer: a database outage grows it on disk, not memory)
//	consumer (run): as before; each batch remembers the last journal index
//	    it covers, and a committed batch moves the journal's watermark
//	trimmer: removes segments wholly below the watermark
//
// A write that fails (a full disk, an I/O error) is rolled back to the
// segment's last complete entry and its group is kept in memory and
// written again (every retryEvery); until it is, the journal is "stuck"
// and new clicks are refused and counted, /readyz reports it, and nothing
// written before is touched. Space comes back when the trimmer removes
// segments the database has (or an operator frees some): the held group is
// written and clicks are accepted again, without a restart.
//
// On start every segment is checked (segment.go): a torn tail is dropped
// (logged with its size), every complete entry is kept and replayed;
// entries that were written but not yet trimmed are replayed too and
// skipped by the click-id unique key (RecordClicks inserts with ON CONFLICT
// DO NOTHING and counts and aggregates only inserted rows), so a replay
// never counts a click twice.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relinkhq/relink/internal/geo"
)

// JournalOptions configure the click journal.
type JournalOptions struct {
	Dir         string        // segment directory (RELINK_DATA_DIR/clicks)
	MaxBytes    int64         // past it clicks are refused (RELINK_CLICK_JOURNAL_MAX)
	Window      time.Duration // group-commit window (RELINK_CLICK_JOURNAL_WINDOW)
	FsyncCommit bool          // fsync every group commit (RELINK_CLICK_JOURNAL_FSYNC=commit)
}

// journalSegment is the size past which the next group starts a new
// segment. Trimming removes whole segments, so they are small: a full disk
// gets space back a segment at a time as the database catches up.
const journalSegment = 1 << 20

// retryEvery is how often a stuck journal tries its held group again.
const retryEvery = 100 * time.Millisecond

// Journal states: why it refuses clicks (JournalState).
const (
	journalOK   int32 = iota
	journalMax        // RELINK_CLICK_JOURNAL_MAX reached
	journalDisk       // a write failed (disk full, I/O error): the held group waits
)

// Reasons, as /readyz and the refusal counter name them.
const (
	ReasonJournalMax  = "max_bytes" // RELINK_CLICK_JOURNAL_MAX reached
	ReasonJournalDisk = "disk"      // the journal's disk refused a write (full, I/O error)
)

func stateReason(s int32) string {
	switch s {
	case journalMax:
		return ReasonJournalMax
	case journalDisk:
		return ReasonJournalDisk
	}
	return ""
}

// writeFunc is the segment write; writeAt holds it so that tests can inject
// failures (and restore it) while a journal's goroutines run.
type writeFunc = func(*os.File, []byte, int64) (int, error)

var writeAt atomic.Pointer[writeFunc]

func init() {
	w := writeFunc((*os.File).WriteAt)
	writeAt.Store(&w)
}

type journal struct {
	opt    JournalOptions
	lg     *slog.Logger
	unlock func() error // releases the data directory's lock

	mu      sync.Mutex // guards the open group
	group   []byte     // records (segment.go), headers sealed at commit
	count   int        // records in group
	closing bool

	// Owned by the committer goroutine.
	tail     *os.File
	tailSize int64
	retryAt  time.Time
	errLog   time.Time // last time a stuck write was logged

	segMu sync.Mutex
	segs  []segment // in order; the last is the tail

	syncMu   sync.Mutex
	syncFile *os.File // the tail, for the syncer

	next      atomic.Uint64 // index the next committed record gets
	last      atomic.Uint64 // last index committed to the log
	committed atomic.Uint64 // last index whose click is in the database (or skipped)
	size      atomic.Int64  // bytes of the segments
	state     atomic.Int32  // journalOK, journalMax, journalDisk
	failures  atomic.Uint64 // failed group writes (each retried)
	lost      atomic.Uint64 // clicks that never reached the disk nor the database

	syncReq  chan struct{}
	syncDone chan struct{}
	wake     chan struct{} // the reader: new entries
	kick     chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
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
	j := &journal{opt: opt, lg: lg, unlock: unlock, wake: make(chan struct{}, 1), kick: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}), syncReq: make(chan struct{}, 1), syncDone: make(chan struct{})}
	if err := j.load(); err != nil {
		unlock()
		return nil, err
	}
	go j.syncLoop()
	go j.commitLoop()
	return j, nil
}

// load imports a journal of the previous format, recovers the segments and
// opens the tail for writing.
func (j *journal) load() error {
	if err := importLegacy(j.opt.Dir, j.lg); err != nil {
		return err
	}
	segs, last, err := recoverSegments(j.opt.Dir, j.lg)
	if err != nil {
		return err
	}
	first, next := uint64(1), uint64(1)
	var size int64
	for _, s := range segs {
		size += s.size
	}
	if len(segs) > 0 {
		t := segs[len(segs)-1]
		f, err := os.OpenFile(t.path, os.O_RDWR, 0o640)
		if err != nil {
			return fmt.Errorf("click journal: open %s: %w", t.path, err)
		}
		j.tail, j.tailSize, j.syncFile = f, t.size, f
		first, next = segs[0].first, last+1
	}
	j.segs = segs
	j.next.Store(next)
	j.last.Store(next - 1)
	j.committed.Store(first - 1)
	j.size.Store(size)
	j.measure()
	if next > first {
		j.lg.Warn("click journal: replaying clicks not yet written (left by a crash, an outage or a shutdown deadline)",
			"clicks", next-first, "bytes", size)
	}
	return nil
}

// append adds an encoded hit to the open group; it returns journalOK, or
// why the click is refused (journalMax, journalDisk; closing: journalDisk).
func (j *journal) append(h *Hit) int32 {
	if s := j.state.Load(); s != journalOK {
		return s
	}
	j.mu.Lock()
	if j.closing {
		j.mu.Unlock()
		return journalDisk
	}
	j.group = encodeHit(j.group, h)
	j.count++
	j.mu.Unlock()
	return journalOK
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
			spare = j.commit(spare, false)
		case reply := <-j.kick:
			spare = j.commit(spare, true)
			close(reply)
		case <-measure.C:
			j.trim()
			j.measure()
		case <-j.stop:
			j.commit(spare, true)
			return
		}
	}
}

// commit writes the open group to the tail segment. A failed write keeps
// the group (in front of what arrived since) for the next attempt, after
// retryEvery unless now.
func (j *journal) commit(spare []byte, now bool) []byte {
	stuck := j.state.Load() == journalDisk
	if stuck && !now && time.Now().Before(j.retryAt) {
		return spare
	}
	j.mu.Lock()
	g, n := j.group, j.count
	j.group, j.count = spare[:0], 0
	j.mu.Unlock()
	if n == 0 {
		if stuck { // nothing held: nothing to wait for
			j.state.Store(journalOK)
			j.measure()
		}
		return g
	}
	end := sealRecords(g, j.next.Load())
	if err := j.write(g); err != nil {
		j.mu.Lock()
		j.group = append(g, j.group...)
		j.count += n
		j.mu.Unlock()
		j.failures.Add(1)
		j.retryAt = time.Now().Add(retryEvery)
		if j.state.Swap(journalDisk) != journalDisk || time.Since(j.errLog) >= 10*time.Second {
			j.errLog = time.Now()
			j.lg.Error("click journal: write failed; new clicks are refused until it can write again (every entry written before is intact; the failed group is kept and retried)",
				"held_clicks", n, "bytes", j.size.Load(), "err", err)
		}
		return nil
	}
	if stuck {
		j.lg.Warn("click journal: writing again; clicks are accepted", "held_clicks_written", n)
		j.state.Store(journalOK)
	}
	j.next.Store(end)
	j.last.Store(end - 1)
	j.size.Add(int64(len(g)))
	if j.size.Load() >= j.opt.MaxBytes {
		j.measure()
	}
	if j.opt.FsyncCommit {
		select {
		case j.syncReq <- struct{}{}:
		default: // a sync is pending already; it covers this write
		}
	}
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return g
}

// write appends g at the tail segment's end, starting a new segment when
// the tail is full (or there is none). A failed or short write is cut back
// to the end of the last complete entry; should even that fail, the next
// attempt writes the same records over it at the same offset, and a
// restart drops it as a torn tail.
func (j *journal) write(g []byte) error {
	if j.tail == nil || j.tailSize >= journalSegment {
		if err := j.rotate(); err != nil {
			return err
		}
	}
	if _, err := (*writeAt.Load())(j.tail, g, j.tailSize); err != nil {
		if terr := j.tail.Truncate(j.tailSize); terr != nil {
			err = errors.Join(err, fmt.Errorf("roll back to the last complete entry: %w", terr))
		}
		return fmt.Errorf("click journal: write %s: %w", filepath.Base(j.tail.Name()), err)
	}
	j.tailSize += int64(len(g))
	j.segMu.Lock()
	j.segs[len(j.segs)-1].size = j.tailSize
	j.segMu.Unlock()
	return nil
}

// rotate starts a new tail segment named by the next index.
func (j *journal) rotate() error {
	first := j.next.Load()
	path := filepath.Join(j.opt.Dir, segmentName(first))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o640)
	if err != nil {
		return fmt.Errorf("click journal: new segment: %w", err)
	}
	old := j.tail
	j.tail, j.tailSize = f, 0
	j.segMu.Lock()
	j.segs = append(j.segs, segment{first: first, path: path})
	j.segMu.Unlock()
	j.syncMu.Lock()
	j.syncFile = f
	j.syncMu.Unlock()
	fsync := j.opt.FsyncCommit
	if old != nil {
		go func() {
			if fsync {
				_ = old.Sync() // what the syncer had not covered yet
			}
			old.Close()
		}()
	}
	if fsync {
		syncDir(j.opt.Dir)
	}
	return nil
}

// syncDir makes a new segment's name durable.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// syncLoop fsyncs the tail segment after each commit (coalescing requests
// that arrive while one runs) until the committer stops.
func (j *journal) syncLoop() {
	defer close(j.syncDone)
	var lastErr time.Time
	for {
		select {
		case <-j.syncReq:
		case <-j.done:
			j.syncMu.Lock()
			if f := j.syncFile; f != nil {
				_ = f.Sync()
			}
			j.syncMu.Unlock()
			return
		}
		j.syncMu.Lock()
		f := j.syncFile
		j.syncMu.Unlock()
		if f == nil {
			continue
		}
		if err := f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) && time.Since(lastErr) >= 10*time.Second {
			lastErr = time.Now()
			j.lg.Error("click journal: fsync failed", "err", err)
		}
	}
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

// trim removes the segments wholly below the watermark, and the tail too
// when every entry of the journal is in the database (the next group starts
// a new segment): a full disk gets its space back as the database catches
// up, a segment at a time.
func (j *journal) trim() {
	c := j.committed.Load()
	var drop []segment
	j.segMu.Lock()
	for len(j.segs) > 1 && j.segs[1].first <= c+1 {
		drop = append(drop, j.segs[0])
		j.segs = j.segs[1:]
	}
	all := len(j.segs) == 1 && j.tail != nil && j.tailSize > 0 && c >= j.last.Load()
	if all {
		drop = append(drop, j.segs[0])
		j.segs = nil
	}
	j.segMu.Unlock()
	if all {
		j.syncMu.Lock()
		j.syncFile = nil
		j.syncMu.Unlock()
		j.tail.Close()
		j.tail, j.tailSize = nil, 0
	}
	for _, s := range drop {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			j.lg.Error("click journal: trim failed", "segment", filepath.Base(s.path), "err", err)
		}
		j.size.Add(-s.size)
	}
	if len(drop) > 0 && j.state.Load() == journalDisk {
		j.retryAt = time.Time{} // space came back: try the held group now
	}
}

// measure sets the journalMax state from the size (a stuck journal stays
// stuck until its held group is written).
func (j *journal) measure() {
	for {
		old := j.state.Load()
		if old == journalDisk {
			return
		}
		s := journalOK
		if j.size.Load() >= j.opt.MaxBytes {
			s = journalMax
		}
		if j.state.CompareAndSwap(old, s) {
			if old != s {
				j.lg.Warn("click journal: size limit (RELINK_CLICK_JOURNAL_MAX)", "full", s == journalMax, "bytes", j.size.Load(), "max", j.opt.MaxBytes)
			}
			return
		}
	}
}

// segmentFor is the segment holding index want (the first one when want
// precedes them all).
func (j *journal) segmentFor(want uint64) (segment, bool) {
	j.segMu.Lock()
	defer j.segMu.Unlock()
	if len(j.segs) == 0 {
		return segment{}, false
	}
	best := j.segs[0]
	for _, s := range j.segs[1:] {
		if s.first > want {
			break
		}
		best = s
	}
	return best, true
}

// segmentAfter is the first segment after the one starting at first.
func (j *journal) segmentAfter(first uint64) (segment, bool) {
	j.segMu.Lock()
	defer j.segMu.Unlock()
	for _, s := range j.segs {
		if s.first > first {
			return s, true
		}
	}
	return segment{}, false
}

// feed reads the journal from the first unwritten entry and hands each hit
// to out, blocking when out blocks, until stop; then it feeds the rest. It
// returns early when out returns false (aborted).
func (j *journal) feed(out func(Hit) bool, stop <-chan struct{}) {
	next := j.committed.Load() + 1
	var r segReader
	defer r.close()
	var lastErr time.Time
	for {
		for next <= j.last.Load() {
			data, idx, err := r.read(j, next)
			if err != nil {
				if time.Since(lastErr) >= 10*time.Second {
					lastErr = time.Now()
					j.lg.Error("click journal: read failed; retrying", "index", next, "err", err)
				}
				r.close()
				select {
				case <-stop:
					return
				case <-time.After(retryEvery):
				}
				continue
			}
			next = idx + 1
			h, err := decodeHit(data)
			if err != nil {
				j.lg.Error("click journal: undecodable entry skipped", "index", idx, "err", err)
				continue
			}
			h.seq = idx
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

// closeWrites commits the open group, refuses new clicks and stops the
// committer. It returns the group it could not write (a stuck journal),
// for the caller to hand to the database directly.
func (j *journal) closeWrites() []byte {
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
	j.mu.Lock()
	defer j.mu.Unlock()
	held := j.group
	j.group, j.count = nil, 0
	return held
}

// closeLog trims what was written and closes the log.
func (j *journal) closeLog() error {
	j.trim()
	var err error
	if j.tail != nil {
		err = j.tail.Close()
	}
	return errors.Join(err, j.unlock())
}

// encodeHit appends h to dst as a record (segment.go) whose index and crc
// are filled in at commit: uvarint lengths and strings, the time in Unix
// nanoseconds, and a flags byte.
func encodeHit(dst []byte, h *Hit) []byte {
	strs := [...]string{h.ClickID, h.LinkID, h.WorkspaceID, h.Domain, h.Key, h.URL, h.IP, h.UA, h.Referer,
		h.Trigger, h.Geo.Country, h.Geo.Region, h.Geo.City}
	var flags byte
	if h.QR {
		flags |= 1
	}
	if h.Bot {
		flags |= 2
	}
	at := len(dst)
	var header [recHeader]byte
	dst = append(dst, header[:]...)
	dst = append(dst, flags)
	dst = binary.AppendVarint(dst, h.Time.UnixNano())
	for _, s := range strs {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-recHeader))
	return dst
}

// records splits g into the payloads of its records.
func records(g []byte) [][]byte {
	var out [][]byte
	for len(g) >= recHeader {
		n := int(binary.LittleEndian.Uint32(g))
		out = append(out, g[recHeader:recHeader+n])
		g = g[recHeader+n:]
	}
	return out
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
