package handlers

import (
	"html"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
)

// renderErrorPage shows an error on the page faces.
func (s *Server) renderErrorPage(c *fiber.Ctx, e *apierr.Error) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Status(e.Status()).SendString("<!doctype html><title>" + strconv.Itoa(e.Status()) + "</title><h1>" +
		strconv.Itoa(e.Status()) + "</h1><p>" + html.EscapeString(e.Message) + "</p>")
}
