package handlers

import (
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Issue 31 item 6: a stop finishes the answers it started. fasthttp's
// shutdown closes every connection it counts as idle every 100 ms, and a
// keep-alive connection counts as idle from the end of one response until
// the server goroutine has read the first bytes of the next request *and*
// marked it active. A request that arrived in that window was read, its
// handler ran (the click was stored), and the answer was written to a
// closed socket: the client saw EOF. answerConn closes the gap: a Close
// during the stop, while bytes have been read that no write has answered
// yet, is deferred; the server goroutine writes the answer and closes the
// connection itself (the stop makes it leave the keep-alive loop, with
// `Connection: close`). Bytes a read returns after the connection was
// closed are discarded, so no handler runs for a request nobody can
// answer. Connections idle at the stop (nothing read since the last answer)
// are closed at once, between requests.

// answerListener wraps each accepted connection in an answerConn.
type answerListener struct {
	net.Listener
	stopping *atomic.Bool
	budget   time.Duration // a deferred close happens by then at the latest
}

func (l answerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	budget := l.budget
	if budget <= 0 {
		budget = 20 * time.Second
	}
	a := &answerConn{Conn: c, stopping: l.stopping, budget: budget}
	if tc, ok := c.(*tls.Conn); ok {
		return &answerTLSConn{answerConn: a, tls: tc}, nil
	}
	return a, nil
}

type answerConn struct {
	net.Conn
	stopping *atomic.Bool
	budget   time.Duration

	mu       sync.Mutex
	owed     bool // bytes were read that no write has answered yet
	closed   bool
	deferred *time.Timer
}

func (c *answerConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return 0, net.ErrClosed // no handler runs for what cannot be answered
		}
		c.owed = true
		c.mu.Unlock()
	}
	return n, err
}

func (c *answerConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.mu.Lock()
	c.owed = false
	c.mu.Unlock()
	return n, err
}

// Close closes the connection, unless the server is stopping and a request
// on it is being answered: then the first Close (the shutdown's idle sweep)
// is deferred until the server goroutine's own Close after the answer, or
// the stop's budget.
func (c *answerConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	if c.owed && c.deferred == nil && c.stopping.Load() {
		c.deferred = time.AfterFunc(c.budget, func() { _ = c.Close() })
		c.owed = false // the next Close (after the answer, or the budget) closes
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.deferred != nil {
		c.deferred.Stop()
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

// answerTLSConn keeps the TLS connection visible to fasthttp (IsTLS, the
// connection state).
type answerTLSConn struct {
	*answerConn
	tls *tls.Conn
}

func (c *answerTLSConn) Handshake() error                     { return c.tls.Handshake() }
func (c *answerTLSConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }
