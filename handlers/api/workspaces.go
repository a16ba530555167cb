package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
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
// a key only ever sees its own workspace (links.md §1.3).
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
	if err := request.BindJSON(c, &req); err != nil {
		return err
	}
	upd := *w
	if req.Name != nil {
		upd.Name = strings.TrimSpace(*req.Name)
	}
	if req.Slug != nil {
		upd.Slug = strings.ToLower(strings.TrimSpace(*req.Slug))
	}
	if err := h.DB.UpdateWorkspace(c.UserContext(), &upd); err != nil {
		return err
	}
	return c.JSON(toWorkspaceJSON(&upd))
}
