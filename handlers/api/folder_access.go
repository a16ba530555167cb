package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

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
	out := make([]wire.FolderPermissions, len(fs))
	for i, f := range fs {
		out[i] = wire.FolderPermissions{ID: f.ID, Name: f.Name, Permissions: []models.FolderPerm{}}
		for _, p := range []models.FolderPerm{models.PermFolderRead, models.PermFolderWrite, models.PermFolderLinksWrite, models.PermFolderUsersWrite} {
			if roles[f.ID].Can(p) {
				out[i].Permissions = append(out[i].Permissions, p)
			}
		}
	}
	return c.JSON(out)
}

// FolderUsers answers GET /folders/{id}/users (Business+, folders.read on
// the folder): every workspace member with their effective folder role.
func (h *Handlers) FolderUsers(c *fiber.Ctx) error {
	_, ms, err := h.Links.FolderMembers(c.UserContext(), actor(c), Param(c, "id"))
	if err != nil {
		return err
	}
	out := make([]wire.FolderUser, len(ms))
	for i, m := range ms {
		out[i] = wire.FolderUser{ID: m.UserID, Name: m.Name, Email: m.Email, WorkspaceRole: m.WorkspaceRole}
		if m.Role != "" {
			r := string(m.Role)
			out[i].Role = &r
		}
	}
	return c.JSON(out)
}
