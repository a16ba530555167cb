// Package logbuf batches log output for the server. The request log writes
// one line per request; written straight to stderr that is one write(2)
// system call per line, which the redirect benchmark's profile put at about
// a fifth of a redirect's CPU. A Writer gathers lines in memory and writes
// them in one call when its buffer fills or every interval, whichever comes
// first, and on Flush and Close.
//
// The cost: a line reaches the terminal up to one interval late, and lines
// still in the buffer when the process dies without Close are lost (the
// server closes it on every orderly exit, including SIGTERM and SIGINT).
package logbuf

import (
	"io"
	"sync"
	"time"
)

// Writer is a buffered, periodically flushed io.Writer, safe for concurrent
// use. Each Write is kept whole: slog handlers write one complete line per
// call, so lines are never interleaved or split.
type Writer struct {
	mu   sync.Mutex
	out  io.Writer
	buf  []byte
	size int
	err  error // the first write error, reported by Flush and Close

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// New returns a Writer that writes to out when size bytes are buffered and
// every interval.
func New(out io.Writer, size int, interval time.Duration) *Writer {
	w := &Writer{out: out, buf: make([]byte, 0, size), size: size, stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop(interval)
	return w
}

func (w *Writer) loop(interval time.Duration) {
	defer close(w.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = w.Flush() // a failed write is kept in w.err
		case <-w.stop:
			return
		}
	}
}

// Write buffers p, writing the buffer out first when p would overflow it.
// A p larger than the buffer is written directly.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf)+len(p) > w.size {
		w.flushLocked()
		if len(p) > w.size {
			if _, err := w.out.Write(p); err != nil && w.err == nil {
				w.err = err
			}
			return len(p), nil
		}
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Flush writes everything buffered and returns the first write error seen.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	return w.err
}

func (w *Writer) flushLocked() {
	if len(w.buf) == 0 {
		return
	}
	if _, err := w.out.Write(w.buf); err != nil && w.err == nil {
		w.err = err
	}
	w.buf = w.buf[:0]
}

// Close stops the periodic flush and writes what is left. Writes after
// Close still work (they are flushed by the next Flush or Close), so a log
// line from a goroutine that outlives the server is not lost silently.
func (w *Writer) Close() error {
	w.once.Do(func() {
		close(w.stop)
		<-w.done
	})
	return w.Flush()
}
