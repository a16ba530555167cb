// Package render writes templ components as HTTP responses for the page faces
// (console, embed, redirect pages, error pages): the status, the HTML content
// type, a Content-Security-Policy with a per-request nonce, and the choice
// between a full page and its htmx fragment.
//
// It is a package of its own, not part of package handlers, so the page
// handler packages (handlers/embed, handlers/console, …) can use it without an
// import cycle; handlers/render.go uses it for the error pages.
package render

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/views/layout"
)

// htmx request headers (https://htmx.org/reference/#request_headers).
const (
	HeaderRequest        = "HX-Request"                 // "true" on every htmx request
	HeaderBoosted        = "HX-Boosted"                 // "true" when hx-boost made the request
	HeaderHistoryRestore = "HX-History-Restore-Request" // "true" when htmx restores history after a cache miss
	HeaderTarget         = "HX-Target"                  // id of the target element
	HeaderTriggerName    = "HX-Trigger-Name"            // name of the triggering element
	HeaderCurrentURL     = "HX-Current-URL"             // the browser's current URL
	HeaderPrompt         = "HX-Prompt"                  // the user's answer to hx-prompt
	// HeaderTrigger is the id of the triggering element on a request, and on
	// a response the client-side events to trigger.
	HeaderTrigger = "HX-Trigger"
)

// htmx response headers (https://htmx.org/reference/#response_headers).
const (
	HeaderLocation           = "HX-Location"
	HeaderPushURL            = "HX-Push-Url"
	HeaderRedirect           = "HX-Redirect"
	HeaderRefresh            = "HX-Refresh"
	HeaderReplaceURL         = "HX-Replace-Url"
	HeaderReswap             = "HX-Reswap"
	HeaderRetarget           = "HX-Retarget"
	HeaderReselect           = "HX-Reselect"
	HeaderTriggerAfterSettle = "HX-Trigger-After-Settle"
	HeaderTriggerAfterSwap   = "HX-Trigger-After-Swap"
)

// IsHTMX reports whether htmx sent the request.
func IsHTMX(c *fiber.Ctx) bool { return c.Get(HeaderRequest) == "true" }

// IsBoosted reports whether the request comes from an hx-boost link or form,
// which swaps the whole body and so needs the full page.
func IsBoosted(c *fiber.Ctx) bool { return c.Get(HeaderBoosted) == "true" }

// IsHistoryRestore reports whether htmx is restoring history after a cache
// miss, which needs the full page.
func IsHistoryRestore(c *fiber.Ctx) bool { return c.Get(HeaderHistoryRestore) == "true" }

// WantsFragment reports whether to send only the page's fragment: an htmx
// request that is neither boosted nor a history restore.
func WantsFragment(c *fiber.Ctx) bool {
	return IsHTMX(c) && !IsBoosted(c) && !IsHistoryRestore(c)
}

// Page renders a page: body inside the layout, or body alone when the
// request wants a fragment (WantsFragment). A page and its fragment so come
// from one component. The response varies on HX-Request.
func Page(c *fiber.Ctx, status int, p layout.Page, body templ.Component) error {
	c.Vary(HeaderRequest)
	if WantsFragment(c) {
		return Component(c, status, body)
	}
	page := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return layout.Base(p).Render(templ.WithChildren(ctx, body), w)
	})
	return Component(c, status, page)
}

// Component renders comp as the whole response with the status, the HTML
// content type and the page CSP. The request's nonce is on the context
// (templ.GetNonce), so script tags can carry it. On a render error nothing
// partial is sent: the body is reset and the error returned for the error
// handler.
func Component(c *fiber.Ctx, status int, comp templ.Component) error {
	nonce := Nonce(c)
	ctx := templ.WithNonce(c.UserContext(), nonce)
	resp := c.Response()
	resp.ResetBody()
	if err := comp.Render(ctx, resp.BodyWriter()); err != nil {
		resp.ResetBody()
		return fmt.Errorf("render %s: %w", c.Path(), err)
	}
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "strict-origin-when-cross-origin")
	c.Set(fiber.HeaderContentSecurityPolicy, policy(nonce, frameAncestors(c)))
	return nil
}

// Redirect sends the browser to url: an HX-Redirect header for htmx requests
// (a plain 3xx would be followed by XHR and swapped in), else 303 See Other.
func Redirect(c *fiber.Ctx, url string) error {
	if IsHTMX(c) && !IsBoosted(c) {
		c.Set(HeaderRedirect, url)
		return c.SendStatus(fiber.StatusOK)
	}
	return c.Redirect(url, fiber.StatusSeeOther)
}

type key int

const (
	keyNonce key = iota
	keyFrameAncestors
)

// Nonce is the request's CSP nonce: 128 random bits, made on first use and
// kept on the request, so every component rendered for it (a page, then an
// error page) and the CSP header agree. Requests that render nothing (the
// redirect path, static files) never pay for one.
func Nonce(c *fiber.Ctx) string {
	if n, ok := c.Context().UserValue(keyNonce).(string); ok {
		return n
	}
	var b [16]byte
	// crypto/rand.Read never returns an error on supported platforms.
	_, _ = rand.Read(b[:])
	n := base64.RawURLEncoding.EncodeToString(b[:])
	c.Context().SetUserValue(keyNonce, n)
	return n
}

// FrameAncestors sets the CSP frame-ancestors sources for this response (for
// example "'none'" on the console, the client's origins on the embed pages).
// Without it the page sets no frame-ancestors: Relink sends no X-Frame-Options
// either, because the embed pages must be frameable.
func FrameAncestors(c *fiber.Ctx, sources ...string) {
	c.Context().SetUserValue(keyFrameAncestors, strings.Join(sources, " "))
}

func frameAncestors(c *fiber.Ctx) string {
	s, _ := c.Context().UserValue(keyFrameAncestors).(string)
	return s
}

// policy is the pages' CSP: everything from this origin only; scripts only
// from this origin and with the nonce (htmx is loaded from /static/ with it);
// no eval (htmx-config allowEval:false); style elements from this origin or
// with the nonce, style attributes allowed (dynamic widths in charts); images
// also as data: and https: (link favicons, avatars).
func policy(nonce, ancestors string) string {
	var b strings.Builder
	b.Grow(400)
	b.WriteString("default-src 'self'; script-src 'self' 'nonce-")
	b.WriteString(nonce)
	b.WriteString("'; style-src 'self' 'nonce-")
	b.WriteString(nonce)
	b.WriteString("'; style-src-attr 'unsafe-inline'; img-src 'self' data: https:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'")
	if ancestors != "" {
		b.WriteString("; frame-ancestors ")
		b.WriteString(ancestors)
	}
	return b.String()
}
