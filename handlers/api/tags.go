package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// ListTags answers GET /tags (spec/links.md §7).
func (h *Handlers) ListTags(c *fiber.Ctx) error {
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100, SortBy: []string{"name", "createdAt"}, DefaultOrder: "asc"})
	if err != nil {
		return err
	}
	ts, err := h.DB.ListTags(c.UserContext(), request.Workspace(c).ID, models.TagFilter{
		Search: Query(c, "search"), IDs: QueryList(c, "ids"), SortBy: p.SortBy, Desc: p.Desc(),
		Offset: p.Offset(), Limit: p.PageSize,
	})
	if err != nil {
		return err
	}
	out := make([]wire.Tag, len(ts))
	for i := range ts {
		out[i] = wire.TagOf(&ts[i])
	}
	return c.JSON(out)
}

// CreateTag answers POST /tags (201).
func (h *Handlers) CreateTag(c *fiber.Ctx) error {
	in, err := links.ParseTagInput(c.Body())
	if err != nil {
		return err
	}
	t, err := h.Links.CreateTag(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(wire.TagOf(t))
}

// UpdateTag answers PATCH and PUT /tags/{id}.
func (h *Handlers) UpdateTag(c *fiber.Ctx) error {
	in, err := links.ParseTagInput(c.Body())
	if err != nil {
		return err
	}
	t, err := h.Links.UpdateTag(c.UserContext(), request.Workspace(c), Param(c, "id"), in)
	if err != nil {
		return err
	}
	return c.JSON(wire.TagOf(t))
}

// DeleteTag answers DELETE /tags/{id} with {"id"}.
func (h *Handlers) DeleteTag(c *fiber.Ctx) error {
	id := Param(c, "id")
	if err := h.Links.DeleteTag(c.UserContext(), request.Workspace(c), id); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"id": id})
}

// ListFolders answers GET /folders: oldest first (spec/links.md §8.2).
func (h *Handlers) ListFolders(c *fiber.Ctx) error {
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 50, MaxPageSize: 50})
	if err != nil {
		return err
	}
	fs, err := h.Links.ListFolders(c.UserContext(), actor(c), models.FolderFilter{
		Search: Query(c, "search"), Offset: p.Offset(), Limit: p.PageSize,
	})
	if err != nil {
		return err
	}
	out := make([]wire.Folder, len(fs))
	for i := range fs {
		out[i] = wire.FolderOf(&fs[i])
	}
	return c.JSON(out)
}

// GetFolder answers GET /folders/{id} (folders.read there).
func (h *Handlers) GetFolder(c *fiber.Ctx) error {
	f, err := h.Links.GetFolder(c.UserContext(), actor(c), Param(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(wire.FolderOf(f))
}

// CreateFolder answers POST /folders (201).
func (h *Handlers) CreateFolder(c *fiber.Ctx) error {
	in, err := links.ParseFolderInput(c.Body(), true)
	if err != nil {
		return err
	}
	f, err := h.Links.CreateFolder(c.UserContext(), actor(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(wire.FolderOf(f))
}

// UpdateFolder answers PATCH /folders/{id}.
func (h *Handlers) UpdateFolder(c *fiber.Ctx) error {
	in, err := links.ParseFolderInput(c.Body(), false)
	if err != nil {
		return err
	}
	f, err := h.Links.UpdateFolder(c.UserContext(), actor(c), Param(c, "id"), in)
	if err != nil {
		return err
	}
	return c.JSON(wire.FolderOf(f))
}

// DeleteFolder answers DELETE /folders/{id} with {"id"}.
func (h *Handlers) DeleteFolder(c *fiber.Ctx) error {
	id := Param(c, "id")
	if err := h.Links.DeleteFolder(c.UserContext(), actor(c), id); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"id": id})
}
