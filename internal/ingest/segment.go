package ingest

// The click journal's on-disk format (issue 31; docs/reliability.md, "The
// click journal"). The journal is a directory of segment files, each named
// by the index of its first entry (20 zero-padded digits and ".seg"):
//
//	segment = record*
//	record  = length u32 | crc u32 | index u64 | payload[length]
//
// little endian; crc is CRC-32C of index and payload. Indexes are
// consecutive within a segment, starting at the segment's name. A record
// is complete when its length fits the file, its crc matches and its index
// is the next one expected: anything else ends the segment's readable part.
//
// A group commit is one pwrite at the tail segment's known end; a failed or
// short write (ENOSPC, EIO) is truncated back to that end, and the same
// bytes are written again at the same offset on the next attempt, so what
// was written before is never touched. On open every segment is scanned:
// the tail segment is truncated after its last complete record (a torn
// write, the way databases recover a WAL), and what was dropped is logged
// with its size.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const (
	recHeader  = 16      // length, crc, index
	recMax     = 1 << 20 // no click comes near it; a larger length is damage
	segSuffix  = ".seg"
	segNameLen = 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// segment is one file of the journal.
type segment struct {
	first uint64 // index of its first record (its name)
	path  string
	size  int64 // bytes of complete records
}

func segmentName(first uint64) string {
	return fmt.Sprintf("%0*d%s", segNameLen, first, segSuffix)
}

// sealRecords fills in the index and crc of each record of g (built by
// encodeHit with a zero header), numbering them from idx; it returns the
// index after the last.
func sealRecords(g []byte, idx uint64) uint64 {
	for rest := g; len(rest) >= recHeader; idx++ {
		n := int(binary.LittleEndian.Uint32(rest))
		binary.LittleEndian.PutUint64(rest[8:], idx)
		binary.LittleEndian.PutUint32(rest[4:], crc32.Checksum(rest[8:recHeader+n], crcTable))
		rest = rest[recHeader+n:]
	}
	return idx
}

// parseRecord reads the record at the start of b expecting index want. ok
// is false when b holds no complete, intact record with that index (more
// may be needed, or the data ends here); size is the record's length.
func parseRecord(b []byte, want uint64) (payload []byte, size int, ok bool) {
	if len(b) < recHeader {
		return nil, 0, false
	}
	n := binary.LittleEndian.Uint32(b)
	if n == 0 || n > recMax || uint64(len(b)) < recHeader+uint64(n) {
		return nil, 0, false
	}
	size = recHeader + int(n)
	if binary.LittleEndian.Uint64(b[8:]) != want || crc32.Checksum(b[8:size], crcTable) != binary.LittleEndian.Uint32(b[4:]) {
		return nil, 0, false
	}
	return b[recHeader:size], size, true
}

// scanSegment counts the complete records of the file at path, whose first
// index is first: it returns how many and the bytes they take. The rest of
// the file (a torn write, damage) is not theirs.
func scanSegment(path string, first uint64) (n uint64, valid int64, total int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("click journal: read %s: %w", path, err)
	}
	for off := 0; ; n++ {
		_, size, ok := parseRecord(b[off:], first+n)
		if !ok {
			return n, int64(off), int64(len(b)), nil
		}
		off += size
	}
}

// listSegments is the directory's segments in order of their first index.
func listSegments(dir string) ([]segment, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("click journal: %w", err)
	}
	var segs []segment
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), segSuffix)
		if !ok || len(name) != segNameLen || e.IsDir() {
			continue
		}
		first, err := strconv.ParseUint(name, 10, 64)
		if err != nil {
			continue
		}
		segs = append(segs, segment{first: first, path: filepath.Join(dir, e.Name())})
	}
	sort.Slice(segs, func(i, k int) bool { return segs[i].first < segs[k].first })
	return segs, nil
}

// recoverSegments scans every segment: empty ones are removed, the tail is
// truncated after its last complete record, and damage inside an earlier
// segment (its records after the damage cannot be trusted) is logged. It
// returns the segments kept and the last index they hold (0 when none).
func recoverSegments(dir string, lg *slog.Logger) ([]segment, uint64, error) {
	segs, err := listSegments(dir)
	if err != nil {
		return nil, 0, err
	}
	var kept []segment
	var last uint64
	for i, s := range segs {
		n, valid, total, err := scanSegment(s.path, s.first)
		if err != nil {
			return nil, 0, err
		}
		tail := i == len(segs)-1
		if valid < total {
			if tail {
				if err := os.Truncate(s.path, valid); err != nil {
					return nil, 0, fmt.Errorf("click journal: drop the torn tail of %s: %w", s.path, err)
				}
				lg.Warn("click journal: torn tail dropped (a write the process or the disk did not finish); every complete entry before it is kept",
					"segment", filepath.Base(s.path), "kept_entries", n, "dropped_entries", 1, "dropped_bytes", total-valid)
			} else {
				lg.Error("click journal: damaged segment: entries after the damage are skipped",
					"segment", filepath.Base(s.path), "kept_entries", n, "skipped_bytes", total-valid)
			}
		}
		if n == 0 {
			if err := os.Remove(s.path); err != nil {
				return nil, 0, fmt.Errorf("click journal: %w", err)
			}
			continue
		}
		if last != 0 && s.first != last+1 {
			lg.Error("click journal: entries missing between segments", "after", last, "next", s.first)
		}
		s.size = valid
		kept = append(kept, s)
		last = s.first + n - 1
	}
	return kept, last, nil
}

// segReader reads the journal's records in order (the feeder's cursor).
type segReader struct {
	f     *os.File
	seg   uint64 // first index of the open segment
	off   int64  // file offset of buf[0]
	buf   []byte
	pos   int    // next record in buf
	n     uint64 // records consumed in the open segment
	ended bool   // the last fill found nothing more
}

func (r *segReader) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}

// errNoRecord: the journal holds no complete record with the index asked
// for in the segment that should have it.
var errNoRecord = errors.New("click journal: entry missing")

// read returns the first record with index ≥ want and its index.
func (r *segReader) read(j *journal, want uint64) ([]byte, uint64, error) {
	for {
		if r.f == nil {
			s, ok := j.segmentFor(want)
			if !ok {
				return nil, 0, errNoRecord
			}
			f, err := os.Open(s.path)
			if err != nil {
				return nil, 0, fmt.Errorf("click journal: %w", err)
			}
			r.f, r.seg, r.off, r.buf, r.pos, r.n = f, s.first, 0, r.buf[:0], 0, 0
		}
		r.ended = false
		// The index the record at pos must carry: records are consecutive
		// from the segment's first, so the reader counts as it goes.
		for {
			idx := r.seg + r.n
			payload, size, ok := parseRecord(r.buf[r.pos:], idx)
			if ok {
				r.pos += size
				r.n++
				if idx >= want {
					return payload, idx, nil
				}
				continue
			}
			if r.ended {
				break
			}
			if err := r.fill(); err != nil {
				return nil, 0, err
			}
		}
		// The segment ends here: go on in the next one, if there is one.
		next, ok := j.segmentAfter(r.seg)
		if !ok {
			return nil, 0, errNoRecord
		}
		if want < next.first {
			j.lg.Error("click journal: entries missing; skipped", "from", want, "to", next.first-1)
			want = next.first
		}
		r.close()
	}
}

// fill reads more of the segment after what buf holds; ended is set when
// nothing more is there.
func (r *segReader) fill() error {
	// Keep the unread part and read after it.
	rest := copy(r.buf, r.buf[r.pos:])
	r.off += int64(r.pos)
	r.buf, r.pos = r.buf[:rest], 0
	if cap(r.buf)-rest < 64<<10 {
		nb := make([]byte, rest, max(2*cap(r.buf), rest+64<<10))
		copy(nb, r.buf)
		r.buf = nb
	}
	k, err := r.f.ReadAt(r.buf[rest:cap(r.buf)], r.off+int64(rest))
	r.buf = r.buf[:rest+k]
	if k == 0 {
		r.ended = true
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("click journal: read: %w", err)
	}
	return nil
}
