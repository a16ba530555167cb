package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/models"
)

// folderPermissionsJSON is one row of GET /folders/permissions.
type folderPermissionsJSON struct {
	ID          string              `json:"id"`
	Name        string              `json:"name"`
	Permissions []models.FolderPerm `json:"permissions"`
}

// FolderPermissions answers GET /folders/permissions (Business+): the
// folders the key's user can see (up to 200, as upstream) with the folder
// permissions their role there holds (spec/parity.md §13, §15.3).
func (h *Handlers) FolderPermissions(c *fiber.Ctx) error {
	a := actor(c)
	fs, err := h.Links.ListFolders(c.UserContext(), a, models.FolderFilter{Limit: 200})
	if err != nil {
		return err
	}
	roles, err := h.Links.FolderRoles(c.UserContext(), a, fs)
	if err != nil {
		return err
	}
	out := make([]folderPermissionsJSON, len(fs))
	for i, f := range fs {
		out[i] = folderPermissionsJSON{ID: f.ID, Name: f.Name, Permissions: []models.FolderPerm{}}
		for _, p := range []models.FolderPerm{models.PermFolderRead, models.PermFolderWrite, models.PermFolderLinksWrite, models.PermFolderUsersWrite} {
			if roles[f.ID].Can(p) {
				out[i].Permissions = append(out[i].Permissions, p)
			}
		}
	}
	return c.JSON(out)
}

// folderUserJSON is one row of GET /folders/{id}/users.
type folderUserJSON struct {
	ID            string      `json:"id"`
	Name          *string     `json:"name"`
	Email         string      `json:"email"`
	Image         *string     `json:"image"`
	Role          *string     `json:"role"` // owner | editor | viewer | null
	WorkspaceRole models.Role `json:"workspaceRole"`
}

// FolderUsers answers GET /folders/{id}/users (Business+, folders.read on
// the folder): every workspace member with their effective folder role.
func (h *Handlers) FolderUsers(c *fiber.Ctx) error {
	_, ms, err := h.Links.FolderMembers(c.UserContext(), actor(c), Param(c, "id"))
	if err != nil {
		return err
	}
	out := make([]folderUserJSON, len(ms))
	for i, m := range ms {
		out[i] = folderUserJSON{ID: m.UserID, Name: m.Name, Email: m.Email, WorkspaceRole: m.WorkspaceRole}
		if m.Role != "" {
			r := string(m.Role)
			out[i].Role = &r
		}
	}
	return c.JSON(out)
}
