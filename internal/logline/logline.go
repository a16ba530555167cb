// Package logline is the server's log handler: slog's text or JSON
// handler, plus the per-request line written without slog's per-record
// work. The request line is written on every redirect; through
// slog.LogAttrs it cost about 1.7 µs (the caller's program counter, a
// record with eight attributes, the handler's quoting checks and state),
// written here it costs about 0.3 µs, byte for byte the same line
// (TestRequestMatchesSlog holds it to slog's own handlers).
package logline

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// Request is the fields of the per-request line, in the order written.
type Request struct {
	ID     string
	Method string
	Host   string
	Path   string
	Face   string
	Status int
	Took   time.Duration
	IP     string
}

// Msg is the request line's message.
const Msg = "request"

// Attrs is r as slog attributes, in the line's order.
func (r *Request) Attrs() []slog.Attr {
	return []slog.Attr{
		slog.String("request_id", r.ID),
		slog.String("method", r.Method),
		slog.String("host", r.Host),
		slog.String("path", r.Path),
		slog.String("face", r.Face),
		slog.Int("status", r.Status),
		slog.Duration("took", r.Took),
		slog.String("ip", r.IP),
	}
}

// Handler is slog's text or JSON handler writing to out, with Request
// writing the request line itself.
type Handler struct {
	slog.Handler
	out  io.Writer
	json bool
	bufs sync.Pool
}

// New returns the handler for format "json" or anything else (text), at
// level (nil: info). It takes no ReplaceAttr: Request writes the line as
// the handler would without one.
func New(out io.Writer, json bool, level slog.Leveler) *Handler {
	opts := &slog.HandlerOptions{Level: level}
	h := &Handler{out: out, json: json}
	if json {
		h.Handler = slog.NewJSONHandler(out, opts)
	} else {
		h.Handler = slog.NewTextHandler(out, opts)
	}
	h.bufs.New = func() any { b := make([]byte, 0, 512); return &b }
	return h
}

// Request writes r's line at level, as slog.LogAttrs(ctx, level, Msg,
// r.Attrs()...) at time t would through the wrapped handler. A line with
// a value slog would quote or escape (or a time it would not format as
// RFC 3339) goes through the wrapped handler.
func (h *Handler) Request(ctx context.Context, level slog.Level, t time.Time, r *Request) error {
	if !h.Enabled(ctx, level) {
		return nil
	}
	if y := t.Year(); y < 0 || y >= 10000 || !plain(r.ID) || !plain(r.Method) || !plain(r.Host) || !plain(r.Path) || !plain(r.Face) || !plain(r.IP) {
		rec := slog.NewRecord(t, level, Msg, 0)
		rec.AddAttrs(r.Attrs()...)
		return h.Handle(ctx, rec)
	}
	bp := h.bufs.Get().(*[]byte)
	b := (*bp)[:0]
	t = t.Round(0)
	if h.json {
		b = append(b, `{"time":"`...)
		b = t.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","level":"`...)
		b = append(b, level.String()...)
		b = append(b, `","msg":"`+Msg+`","request_id":"`...)
		b = append(b, r.ID...)
		b = append(b, `","method":"`...)
		b = append(b, r.Method...)
		b = append(b, `","host":"`...)
		b = append(b, r.Host...)
		b = append(b, `","path":"`...)
		b = append(b, r.Path...)
		b = append(b, `","face":"`...)
		b = append(b, r.Face...)
		b = append(b, `","status":`...)
		b = strconv.AppendInt(b, int64(r.Status), 10)
		b = append(b, `,"took":`...)
		b = strconv.AppendInt(b, int64(r.Took), 10)
		b = append(b, `,"ip":"`...)
		b = append(b, r.IP...)
		b = append(b, "\"}\n"...)
	} else {
		b = append(b, "time="...)
		b = appendRFC3339Millis(b, t)
		b = append(b, " level="...)
		b = append(b, level.String()...)
		b = append(b, " msg="+Msg+" request_id="...)
		b = append(b, r.ID...)
		b = append(b, " method="...)
		b = append(b, r.Method...)
		b = append(b, " host="...)
		b = append(b, r.Host...)
		b = append(b, " path="...)
		b = append(b, r.Path...)
		b = append(b, " face="...)
		b = append(b, r.Face...)
		b = append(b, " status="...)
		b = strconv.AppendInt(b, int64(r.Status), 10)
		b = append(b, " took="...)
		b = append(b, r.Took.String()...)
		b = append(b, " ip="...)
		b = append(b, r.IP...)
		b = append(b, '\n')
	}
	_, err := h.out.Write(b)
	*bp = b
	h.bufs.Put(bp)
	return err
}

// plain is a value both handlers write as it is: not empty, printable
// ASCII without space, quote, backslash, '=' or the characters JSON
// escapes for HTML.
func plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c >= 0x7f, c == '"', c == '\\', c == '=', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// appendRFC3339Millis is the text handler's time format (log/slog).
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}
