package api

import (
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
)

type updateWorkspaceRequest struct {
	Name             *string   `json:"name"`
	Slug             *string   `json:"slug"`
	AllowedHostnames *[]string `json:"allowedHostnames"`
	PublishableKey   any       `json:"publishableKey"`
}

// UpdateWorkspace answers PATCH /workspaces/{idOrSlug}: name, slug and
// allowedHostnames (the hostnames that may frame the embed and use the
// client-side endpoints); a taken slug is 409 conflict; publishableKey is
// refused (422), never silently ignored.
func (h *Handlers) UpdateWorkspace(c *fiber.Ctx) error {
	w, err := ownWorkspace(c)
	if err != nil {
		return err
	}
	var req updateWorkspaceRequest
	if err := input.BindJSON(c.Body(), &req); err != nil {
		return err
	}
	upd := *w
	if req.Name != nil {
		upd.Name = strings.TrimSpace(*req.Name)
	}
	if req.Slug != nil {
		upd.Slug = slugify(*req.Slug)
	}
	if req.AllowedHostnames != nil {
		upd.EmbedAllowedHostnames = strings.Join(*req.AllowedHostnames, "\n")
	}
	if err := checkWorkspaceUpdate(req); err != nil {
		return err
	}
	if err := h.Workspaces.Update(c.UserContext(), &upd); err != nil {
		return err
	}
	out, err := h.fullWorkspace(c, &upd)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// checkWorkspaceUpdate applies upstream's createWorkspaceSchema to the
// fields PATCH /workspaces/{idOrSlug} sets, with its messages: name 1-32
// characters, slug 3-48 characters before slugify and only letters, digits
// and hyphens after it.
func checkWorkspaceUpdate(req updateWorkspaceRequest) error {
	if req.PublishableKey != nil {
		// Never a 200 that ignores it: the key is made by rotation only.
		return apierr.Validation("custom", "publishableKey", "The publishable key cannot be set: rotate it in the console's workspace settings.")
	}
	if req.Name != nil {
		switch n := utf8.RuneCountInString(*req.Name); {
		case n < 1:
			return apierr.Validation("too_small", "name", "Too small: expected string to have >=1 characters")
		case n > 32:
			return apierr.Validation("too_big", "name", "Too big: expected string to have <=32 characters")
		}
	}
	if req.Slug != nil {
		switch n := utf8.RuneCountInString(*req.Slug); {
		case n < 3:
			return apierr.Validation("too_small", "slug", "Slug must be at least 3 characters")
		case n > 48:
			return apierr.Validation("too_big", "slug", "Slug must be less than 48 characters")
		}
		if !validSlug(slugify(*req.Slug)) {
			return apierr.Validation("custom", "slug", "Invalid slug format")
		}
	}
	return nil
}

// slugify is the part of @sindresorhus/slugify upstream relies on: lower
// case, every run of other characters one hyphen, no hyphen at either end.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// validSlug is upstream's validSlugRegex, ^[a-zA-Z0-9-]+$.
func validSlug(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}
