// Package bufpool keeps a few large byte buffers between uses.
//
// The PostgreSQL click writer builds each batch's rows in one buffer of
// megabytes (COPY's text format, models.copyClicks). Allocated
// fresh each time, such a buffer is a large allocation that the runtime
// takes from new pages (page faults), clears, grows by doubling and copying,
// and that the collector frees again: at 50,000-click batches that was
// 30–40% of the writer's CPU on the benchmark machine (bench/README.md,
// "One insert per batch"). A sync.Pool does not help
// there: it is emptied by every other collection, and a batch of megabytes
// makes collections frequent.
package bufpool

// Pool holds up to its capacity of buffers; Get hands one out (or a new
// one), Put takes it back. A Pool is safe for concurrent use.
type Pool struct {
	free chan []byte
	max  int
}

// New returns a pool keeping up to keep buffers of at most maxBytes each.
func New(keep, maxBytes int) *Pool {
	return &Pool{free: make(chan []byte, keep), max: maxBytes}
}

// Get returns an empty buffer with room for at least n bytes.
func (p *Pool) Get(n int) []byte {
	select {
	case b := <-p.free:
		if cap(b) >= n {
			return b[:0]
		}
	default:
	}
	return make([]byte, 0, n)
}

// Put keeps b for a later Get, unless the pool is full or b is over the
// pool's size limit. Nothing may use b after Put.
func (p *Pool) Put(b []byte) {
	if cap(b) > p.max {
		return
	}
	select {
	case p.free <- b[:0]:
	default:
	}
}
