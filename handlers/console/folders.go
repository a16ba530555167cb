package console

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// Folder sharing in the console (spec/parity.md §13): the folders a member may
// see, their rights there, and each folder's sharing page.

// visibleFolders is the folders the signed-in user may see (GET /folders'
// rule) with their rights on each.
func (h *Handlers) visibleFolders(c *fiber.Ctx) ([]models.Folder, map[string]links.FolderAccessView, error) {
	a := h.actor(c)
	fs, err := h.Deps.Links.ListFolders(c.UserContext(), a, models.FolderFilter{Limit: 500})
	if err != nil {
		return nil, nil, err
	}
	rights, err := h.Deps.Links.FolderRights(c.UserContext(), a, fs)
	return fs, rights, err
}

// Folder is a folder's sharing page.
func (h *Handlers) Folder(c *fiber.Ctx) error {
	return h.folderPage(c, fiber.StatusOK, c.Query("saved"), "")
}

func (h *Handlers) folderPage(c *fiber.Ctx, status int, notice, failure string) error {
	a := h.actor(c)
	ctx := c.UserContext()
	f, members, err := h.Deps.Links.FolderMembers(ctx, a, c.Params("id"))
	if err != nil {
		return err
	}
	rights, err := h.Deps.Links.FolderRights(ctx, a, []models.Folder{*f})
	if err != nil {
		return err
	}
	r := rights[f.ID]
	v := vc.FolderPage{CSRF: session(c).CSRF, ID: f.ID, Name: f.Name, YourRole: vc.RoleLabel(string(r.Role)), CanShare: r.Share, Error: failure}
	switch notice {
	case "access":
		v.Notice = "Workspace access saved."
	case "role":
		v.Notice = "Member's role saved."
	}
	if f.Description != nil {
		v.Description = *f.Description
	}
	if f.AccessLevel != nil {
		v.AccessLevel = *f.AccessLevel
	}
	switch {
	case !a.Workspace.Plan.AtLeast(models.PlanBusiness):
		v.Note = "Folder permissions need the Business plan: on this plan every member can edit every folder's links."
	case !r.Share:
		v.Note = "Only the folder's owners can change who has access."
	}
	self := viewer(c).User.ID
	for _, m := range members {
		row := vc.FolderMemberRow{UserID: m.UserID, Email: m.Email, WorkspaceRole: string(m.WorkspaceRole), Role: string(m.Role)}
		if row.Role == "" {
			row.Role = "none"
		}
		switch {
		case m.WorkspaceRole == models.RoleOwner:
			row.Source = "workspace owner"
		case m.Own:
			row.Source = "set for this member"
		default:
			row.Source = "workspace access"
		}
		row.Editable = r.Share && m.UserID != self && m.WorkspaceRole != models.RoleOwner
		v.Members = append(v.Members, row)
	}
	return h.page(c, status, f.Name, "folders", vc.FolderSettings(v))
}

// SetFolderAccess changes a folder's workspace-wide access level (PATCH
// /folders/{id}'s rules, plus folders.users.write: it is a sharing change).
func (h *Handlers) SetFolderAccess(c *fiber.Ctx) error {
	a := h.actor(c)
	id := c.Params("id")
	level := strings.TrimSpace(c.FormValue("accessLevel"))
	body := map[string]any{"accessLevel": nil}
	if level != "" {
		body["accessLevel"] = level
	}
	raw, _ := json.Marshal(body)
	err := h.canShare(c, a, id)
	if err == nil {
		var in *links.FolderInput
		if in, err = links.ParseFolderInput(raw, false); err == nil {
			_, err = h.Deps.Links.UpdateFolder(c.UserContext(), a, id, in)
		}
	}
	if err != nil {
		return h.folderFailure(c, err)
	}
	return redirect(c, route.URL(route.Folder, id)+"?saved=access")
}

// canShare refuses a sharing change without folders.users.write (or below
// Business).
func (h *Handlers) canShare(c *fiber.Ctx, a links.Actor, id string) error {
	f, err := h.Deps.Links.FolderAccess(c.UserContext(), a, id, models.PermFolderRead)
	if err != nil {
		return err
	}
	rights, err := h.Deps.Links.FolderRights(c.UserContext(), a, []models.Folder{*f})
	if err != nil {
		return err
	}
	if !rights[f.ID].Share {
		if !a.Workspace.Plan.AtLeast(models.PlanBusiness) {
			return apierr.New(apierr.Forbidden, "Folder permission management requires a Business plan or higher.")
		}
		return apierr.New(apierr.Forbidden, links.MsgFolderForbidden)
	}
	return nil
}

// SetFolderMemberRole gives a member a role in the folder ("none": no
// access), upstream's updateUserRoleInFolder.
func (h *Handlers) SetFolderMemberRole(c *fiber.Ctx) error {
	var role *string
	if r := strings.TrimSpace(c.FormValue("role")); r != "none" {
		role = &r
	}
	id := c.Params("id")
	if err := h.Deps.Links.SetFolderRole(c.UserContext(), h.actor(c), id, c.Params("user"), role); err != nil {
		return h.folderFailure(c, err)
	}
	return redirect(c, route.URL(route.Folder, id)+"?saved=role")
}

// folderFailure shows a refused change on the folder's page; a folder the
// user may not see at all is the error page.
func (h *Handlers) folderFailure(c *fiber.Ctx, err error) error {
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status() >= 500 || e.Code == apierr.NotFound {
		return err
	}
	if perr := h.folderPage(c, e.Status(), "", e.Message); perr != nil {
		return err
	}
	return nil
}
