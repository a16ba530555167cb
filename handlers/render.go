package handlers

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/views/components"
	"github.com/relinkhq/relink/views/layout"
)

// Page rendering lives in package handlers/render (render.Page,
// render.Component, the HX-* header constants) so the page handler packages
// can share it; this file renders the error pages of the page faces with it.

// renderErrorPage shows an error on the page faces (app, short-link) as the
// templ error page, or as its fragment for an htmx request. err is the
// original error, e its *apierr.Error form.
func (s *Server) renderErrorPage(c *fiber.Ctx, err error, e *apierr.Error) error {
	status := e.Status()
	v := components.ErrorView{
		Status:    status,
		Title:     errorTitle(status),
		Message:   e.Message,
		HomeURL:   "/",
		RequestID: request.RequestID(c),
	}
	// Router-level errors carry API wording ("endpoint"); pages say "page".
	var fe *fiber.Error
	if errors.As(err, &fe) && (fe.Code == fiber.StatusNotFound || fe.Code == fiber.StatusMethodNotAllowed) {
		v.Message = "The page you are looking for does not exist or has moved."
	}
	if request.FaceOf(c) == request.FaceShort {
		// A short domain's root is not ours to send people to.
		v.HomeURL = s.svc.Config.AppURL.String()
	}
	return render.Page(c, status, layout.Page{Title: v.Title, NoIndex: true}, components.ErrorPage(v))
}

// errorTitle is the headline of an error page.
func errorTitle(status int) string {
	switch status {
	case http.StatusNotFound:
		return "Page not found"
	case http.StatusUnauthorized:
		return "Sign in required"
	case http.StatusForbidden:
		return "Access denied"
	case http.StatusTooManyRequests:
		return "Too many requests"
	}
	if status >= 500 {
		return "Something went wrong"
	}
	return http.StatusText(status)
}
