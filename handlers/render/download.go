package render

import (
	"bufio"
	"context"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/export"
)

// Download streams an export as an attachment (both faces' exports): the
// headers now, the body as d.Write produces it, after the handler returns,
// under its own deadline (export.Timeout).
func Download(c *fiber.Ctx, d export.Download) error {
	c.Set(fiber.HeaderContentType, d.ContentType)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%s", d.Filename))
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), export.Timeout)
		defer cancel()
		d.Write(ctx, w)
	})
	return nil
}
