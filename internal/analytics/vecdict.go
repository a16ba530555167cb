package analytics

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
)

// valueDict numbers one workspace's values of one dimension (link ids or
// URLs) for the vectors (migration 01700, table aggregate_values). Numbers
// are given in the order values were first packed and never change, so a
// dictionary read earlier is a prefix of the stored one: the engine keeps
// each in memory and reads only the chunks appended since.
type valueDict struct {
	mu   sync.Mutex
	keys []string // by number; only ever appended to
	idx  map[string]int32
}

type dictKey struct{ ws, dim string }

// dictCache holds the dictionaries an engine has read.
type dictCache struct {
	mu sync.Mutex
	m  map[dictKey]*valueDict
}

// maxDicts bounds the cache: past it, it starts over (a dictionary is
// re-read in one query, a few milliseconds for 50,000 links).
const maxDicts = 256

func (c *dictCache) get(ws, dim string) *valueDict {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := dictKey{ws, dim}
	d := c.m[k]
	if d == nil {
		if c.m == nil || len(c.m) >= maxDicts {
			c.m = map[dictKey]*valueDict{}
		}
		d = &valueDict{idx: map[string]int32{}}
		c.m[k] = d
	}
	return d
}

// syncLocked appends the chunks stored past what d holds. d.mu is held.
func (e *SQLEngine) syncLocked(ctx context.Context, ws, dim string, d *valueDict) error {
	rows, err := e.DB.WithContext(ctx).Raw("SELECT first_id, data FROM aggregate_values WHERE workspace_id = ? AND dim = ? AND first_id >= ? ORDER BY first_id",
		ws, dim, len(d.keys)).Rows()
	if err != nil {
		return fmt.Errorf("read value dictionary: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var first int64
		var data []byte
		if err := rows.Scan(&first, &data); err != nil {
			return fmt.Errorf("read value dictionary: %w", err)
		}
		if first != int64(len(d.keys)) {
			return fmt.Errorf("value dictionary %s of %s: chunk at %d after %d values", dim, ws, first, len(d.keys))
		}
		vals, err := unpackValues(data)
		if err != nil {
			return fmt.Errorf("value dictionary %s of %s, chunk %d: %w", dim, ws, first, err)
		}
		for _, v := range vals {
			d.idx[v] = int32(len(d.keys))
			d.keys = append(d.keys, v)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read value dictionary: %w", err)
	}
	return nil
}

// dictKeys returns the workspace's dictionary of dim as stored now.
func (e *SQLEngine) dictKeys(ctx context.Context, ws, dim string) (*valueDict, []string, error) {
	d := e.dicts.get(ws, dim)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := e.syncLocked(ctx, ws, dim, d); err != nil {
		return nil, nil, err
	}
	return d, d.keys[:len(d.keys):len(d.keys)], nil
}

// intern returns the numbers of values, appending the new ones to the
// stored dictionary. Two engines appending at once collide on the chunk's
// key; the one that lost reads the winner's chunk and tries again.
func (e *SQLEngine) intern(ctx context.Context, ws, dim string, values []string) ([]int32, error) {
	d := e.dicts.get(ws, dim)
	d.mu.Lock()
	defer d.mu.Unlock()
	for range 8 {
		if err := e.syncLocked(ctx, ws, dim, d); err != nil {
			return nil, err
		}
		var missing []string
		seen := map[string]bool{}
		for _, v := range values {
			if _, ok := d.idx[v]; !ok && !seen[v] {
				seen[v] = true
				missing = append(missing, v)
			}
		}
		if len(missing) == 0 {
			ids := make([]int32, len(values))
			for i, v := range values {
				ids[i] = d.idx[v]
			}
			return ids, nil
		}
		res := e.DB.WithContext(ctx).Exec("INSERT INTO aggregate_values (workspace_id, dim, first_id, data) VALUES (?, ?, ?, ?) ON CONFLICT (workspace_id, dim, first_id) DO NOTHING",
			ws, dim, len(d.keys), packValues(missing))
		if res.Error != nil {
			return nil, fmt.Errorf("append to value dictionary: %w", res.Error)
		}
		// Appended or not, the next sync reads the chunk at len(d.keys).
	}
	return nil, fmt.Errorf("value dictionary %s of %s: too many concurrent appends", dim, ws)
}

func packValues(vals []string) []byte {
	b := []byte{vecFormat}
	b = binary.AppendUvarint(b, uint64(len(vals)))
	for _, v := range vals {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return b
}

var errValues = errors.New("corrupt value list")

func unpackValues(data []byte) ([]string, error) {
	if len(data) == 0 || data[0] != vecFormat {
		return nil, errValues
	}
	n, w := binary.Uvarint(data[1:])
	if w <= 0 || n > uint64(len(data)) {
		return nil, errValues
	}
	str := string(data) // one allocation; the values are slices of it
	out := make([]string, 0, n)
	for i := 1 + w; uint64(len(out)) < n; {
		l, w := binary.Uvarint(data[i:])
		if w <= 0 || uint64(len(data)-i-w) < l {
			return nil, errValues
		}
		i += w
		out = append(out, str[i:i+int(l)])
		i += int(l)
	}
	return out, nil
}
