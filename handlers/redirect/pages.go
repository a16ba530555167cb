package redirect

import (
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	pages "github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/views/layout"
	views "github.com/relinkhq/relink/views/redirect"
)

// notFound is #2: the domain's notFoundUrl (307) or the 404 page.
func (h *Handlers) notFound(c *fiber.Ctx, domain, key, notFoundURL string) error {
	if notFoundURL != "" {
		return c.Redirect(notFoundURL, fiber.StatusTemporaryRedirect)
	}
	c.Set("X-Robots-Tag", "googlebot: noindex")
	return page(c, fiber.StatusNotFound, "Link not found", views.NotFound(domain, key))
}

const (
	passwordLimit  = 30
	passwordWindow = 10 * time.Minute
)

func notFoundURL(res *shortlink.Resolved) string {
	if res == nil {
		return ""
	}
	return res.DomainNotFoundURL
}

// passwordPage is #4's answer: the password form, or after a wrong
// password the form with an error, limited per link (spec/links.md §10.2 #4).
func (h *Handlers) passwordPage(c *fiber.Ctx, t *shortlink.Target, rawPath string, wrong bool) error {
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	form := views.PasswordForm{Action: rawPath}
	if !wrong {
		return page(c, fiber.StatusOK, "Password required", views.Password(form))
	}
	if h.Limiter != nil {
		res, err := h.Limiter.Allow(c.UserContext(), "pw:"+t.ID, passwordLimit, passwordWindow)
		if err != nil {
			h.Logger.Error("password rate limiter unavailable", "link_id", t.ID, "err", err)
		} else if !res.Allowed {
			return page(c, fiber.StatusTooManyRequests, "Too many attempts", views.TooManyAttempts())
		}
	}
	form.Error = "Incorrect password. Try again."
	return page(c, fiber.StatusUnauthorized, "Password required", views.Password(form))
}

// page writes a readable page inside the app layout (never indexed).
func page(c *fiber.Ctx, status int, title string, body templ.Component) error {
	return pages.Page(c, status, layout.Page{Title: title, NoIndex: true}, body)
}

// render writes a whole-document page (OG card, refresh, cloaked) with the
// pages' CSP; its inline <style> carries the request's nonce.
func render(c *fiber.Ctx, status int, comp templ.Component) error {
	return pages.Component(c, status, comp)
}
