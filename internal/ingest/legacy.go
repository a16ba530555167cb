package ingest

// Journals written before issue 31 used tidwall/wal's binary format: files
// named by their first index (20 digits, no suffix), each entry
// uvarint(length) and the same payload as a record today, no checksum.
// importLegacy rewrites them as segments of the current format on start
// (each one written to a temporary file, fsynced and renamed before the old
// file is removed, so a crash in between imports it again, identically),
// keeping every complete entry and dropping a torn one at the end.

import (
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func importLegacy(dir string, lg *slog.Logger) error {
	names, err := legacySegments(dir)
	if err != nil || len(names) == 0 {
		return err
	}
	imported := 0
	for _, name := range names {
		first, _ := strconv.ParseUint(name, 10, 64)
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("click journal: import %s: %w", path, err)
		}
		var out []byte
		n := 0
		off := 0
		for off < len(b) {
			l, k := binary.Uvarint(b[off:])
			if k <= 0 || uint64(len(b)-off-k) < l || l == 0 {
				lg.Warn("click journal: torn tail of a journal of the previous format dropped", "file", name,
					"kept_entries", n, "dropped_bytes", len(b)-off)
				break
			}
			out = appendRecord(out, b[off+k:off+k+int(l)])
			off += k + int(l)
			n++
		}
		sealRecords(out, first)
		if n > 0 {
			if err := writeFileSynced(filepath.Join(dir, segmentName(first)), out); err != nil {
				return fmt.Errorf("click journal: import %s (free space on %s and start again): %w", path, dir, err)
			}
		}
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("click journal: import %s: %w", path, err)
		}
		imported += n
	}
	syncDir(dir)
	lg.Warn("click journal: imported a journal of the previous format (tidwall/wal)", "entries", imported, "files", len(names))
	return nil
}

// legacySegments finishes an interrupted trim of the previous format (a
// NAME.START file replaces every segment before it, a NAME.END every one
// after it, as tidwall/wal did on open) and lists the segments in order.
func legacySegments(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("click journal: %w", err)
	}
	var names []string
	var start, end string
	for _, e := range ents {
		n := e.Name()
		base, suffix, _ := strings.Cut(n, ".")
		if len(base) != segNameLen || e.IsDir() {
			continue
		}
		if _, err := strconv.ParseUint(base, 10, 64); err != nil {
			continue
		}
		switch suffix {
		case "":
			names = append(names, n)
		case "START":
			start = base
		case "END":
			end = base
		}
	}
	sort.Strings(names)
	keep := names[:0]
	for _, n := range names {
		if (start != "" && n < start) || (end != "" && n > end) {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return nil, fmt.Errorf("click journal: %w", err)
			}
			continue
		}
		keep = append(keep, n)
	}
	for _, b := range []string{start, end} {
		if b == "" {
			continue
		}
		suffix := ".START"
		if b == end {
			suffix = ".END"
		}
		if err := os.Rename(filepath.Join(dir, b+suffix), filepath.Join(dir, b)); err != nil {
			return nil, fmt.Errorf("click journal: %w", err)
		}
		if !slices.Contains(keep, b) {
			keep = append(keep, b)
		}
	}
	sort.Strings(keep)
	return keep, nil
}

// appendRecord appends payload as a record whose index and crc are filled
// in by sealRecords.
func appendRecord(dst, payload []byte) []byte {
	var header [recHeader]byte
	binary.LittleEndian.PutUint32(header[:], uint32(len(payload)))
	dst = append(dst, header[:]...)
	return append(dst, payload...)
}

// writeFileSynced writes path through a temporary file, fsynced, renamed.
func writeFileSynced(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
