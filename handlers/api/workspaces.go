package api

import (
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/models"
)

// workspaceJSON is the API's view of a workspace.
type workspaceJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Slug      string `json:"slug"`
	Plan      string `json:"plan"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

func toWorkspaceJSON(w *models.Workspace) workspaceJSON {
	return workspaceJSON{ID: w.PublicID(), Name: w.Name, Slug: w.Slug, Plan: string(w.Plan),
		CreatedAt: request.Timestamp(w.CreatedAt), UpdatedAt: request.Timestamp(w.UpdatedAt)}
}

// ownWorkspace resolves the path's idOrSlug against the key's workspace:
// a key only ever sees its own workspace (spec/links.md §1.3).
func ownWorkspace(c *fiber.Ctx) (*models.Workspace, error) {
	w := request.Workspace(c)
	sel := c.Params("idOrSlug")
	if strings.HasPrefix(sel, ids.Workspace) {
		if strings.TrimPrefix(sel, ids.Workspace) == w.ID {
			return w, nil
		}
	} else if strings.EqualFold(sel, w.Slug) || sel == w.ID {
		return w, nil
	}
	return nil, apierr.New(apierr.NotFound, "Workspace not found.")
}

// GetWorkspace answers GET /workspaces/{idOrSlug}.
func (h *Handlers) GetWorkspace(c *fiber.Ctx) error {
	w, err := ownWorkspace(c)
	if err != nil {
		return err
	}
	return c.JSON(toWorkspaceJSON(w))
}

type updateWorkspaceRequest struct {
	Name *string `json:"name"`
	Slug *string `json:"slug"`
}

// UpdateWorkspace answers PATCH /workspaces/{idOrSlug}: name and slug; a
// taken slug is 409 conflict.
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
	if err := checkWorkspaceUpdate(req); err != nil {
		return err
	}
	if err := h.Workspaces.Update(c.UserContext(), &upd); err != nil {
		return err
	}
	return c.JSON(toWorkspaceJSON(&upd))
}

// checkWorkspaceUpdate applies upstream's createWorkspaceSchema to the
// fields PATCH /workspaces/{idOrSlug} sets, with its messages: name 1-32
// characters, slug 3-48 characters before slugify and only letters, digits
// and hyphens after it.
func checkWorkspaceUpdate(req updateWorkspaceRequest) error {
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
