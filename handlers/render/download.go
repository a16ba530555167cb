package render

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/export"
)

// downloadWriteWindow is how long one write of a download may take: the
// server's WriteTimeout bounds a whole response, which would cut a large
// export after 30 s, so a download moves the connection's write deadline
// forward as it makes progress (a client that stops reading still times
// out after this long).
const downloadWriteWindow = 30 * time.Second

// Download streams an export as an attachment (both faces' exports): the
// headers now, the body as d.Write produces it, after the handler returns,
// under its own deadline (export.Timeout).
func Download(c *fiber.Ctx, d export.Download) error {
	c.Set(fiber.HeaderContentType, d.ContentType)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%s", d.Filename))
	conn := c.Context().Conn()
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), export.Timeout)
		defer cancel()
		dw := bufio.NewWriterSize(&deadlineWriter{w: w, conn: conn}, 32<<10)
		d.Write(ctx, dw)
		_ = dw.Flush()
		_ = w.Flush()
	})
	return nil
}

// deadlineWriter moves conn's write deadline forward (at most once a
// second) before passing writes on.
type deadlineWriter struct {
	w    *bufio.Writer
	conn net.Conn
	last time.Time
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	if now := time.Now(); d.conn != nil && now.Sub(d.last) > time.Second {
		d.last = now
		_ = d.conn.SetWriteDeadline(now.Add(downloadWriteWindow))
	}
	n, err := d.w.Write(p)
	if err == nil && d.w.Buffered() > 0 {
		err = d.w.Flush()
	}
	return n, err
}
