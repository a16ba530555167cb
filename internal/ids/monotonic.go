package ids

import "sync"

// mono is the last ID's timestamp and random part.
var mono struct {
	sync.Mutex
	ms  uint64
	rnd [10]byte
}

// increment adds one to a big-endian number; it reports overflow.
func increment(b []byte) (overflow bool) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return false
		}
	}
	return true
}
