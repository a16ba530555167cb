package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

func actor(c *fiber.Ctx) links.Actor {
	p := request.PrincipalOf(c)
	a := links.Actor{Workspace: p.Workspace}
	if p.Key != nil {
		a.UserID = p.Key.UserID
		if p.Key.UserRole != nil {
			a.Role = *p.Key.UserRole
		}
	}
	return a
}

// CreateLink answers POST /links (200, spec/links.md §5.1).
func (h *Handlers) CreateLink(c *fiber.Ctx) error {
	in, err := links.ParseInput(c.Body(), links.SchemaCreate)
	if err != nil {
		return err
	}
	l, err := h.Links.Create(c.UserContext(), actor(c), in)
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.APILink(l))
}

// UpdateLink answers PATCH and PUT /links/{linkId} (spec/links.md §5.6).
func (h *Handlers) UpdateLink(c *fiber.Ctx) error {
	in, err := links.ParseInput(c.Body(), links.SchemaUpdate)
	if err != nil {
		return err
	}
	l, err := h.Links.Update(c.UserContext(), actor(c), Param(c, "linkId"), in)
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.APILink(l))
}

// UpsertLink answers PUT /links/upsert (spec/links.md §5.7).
func (h *Handlers) UpsertLink(c *fiber.Ctx) error {
	in, err := links.ParseInput(c.Body(), links.SchemaCreate)
	if err != nil {
		return err
	}
	l, err := h.Links.Upsert(c.UserContext(), actor(c), in)
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.APILink(l))
}

// GetLink answers GET /links/{linkId} (spec/links.md §5.5).
func (h *Handlers) GetLink(c *fiber.Ctx) error {
	l, err := h.Links.Get(c.UserContext(), actor(c), Param(c, "linkId"))
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.APILink(l))
}

// LinkInfo answers GET /links/info (spec/links.md §5.4).
func (h *Handlers) LinkInfo(c *fiber.Ctx) error {
	q := links.InfoQuery{Domain: Query(c, "domain"), Key: Query(c, "key"), LinkID: Query(c, "linkId"), ExternalID: Query(c, "externalId")}
	l, err := h.Links.Info(c.UserContext(), actor(c), q)
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.APILink(l))
}

// DeleteLink answers DELETE /links/{linkId} with {"id"} (spec/links.md §5.8).
func (h *Handlers) DeleteLink(c *fiber.Ctx) error {
	id, err := h.Links.Delete(c.UserContext(), actor(c), Param(c, "linkId"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"id": id})
}

// linkSorts are GET /links' sortBy values; the first is the default.
var linkSorts = []string{"createdAt", "clicks", "saleAmount", "lastClicked"}

// parseLinkQuery reads the filters shared by GET /links and /links/count.
func parseLinkQuery(c *fiber.Ctx) (links.ListQuery, error) {
	q := links.ListQuery{
		Domain: Query(c, "domain"), TagIDs: append(QueryList(c, "tagId"), QueryList(c, "tagIds")...),
		TagNames: QueryList(c, "tagNames"), FolderID: Query(c, "folderId"), Search: Query(c, "search"),
		UserID: Query(c, "userId"), TenantID: Query(c, "tenantId"), LinkIDs: QueryList(c, "linkIds"),
	}
	var err error
	if q.ShowArchived, err = QueryBool(c, "showArchived", false); err != nil {
		return q, err
	}
	if q.WithTags, err = QueryBool(c, "withTags", false); err != nil {
		return q, err
	}
	return q, nil
}

// ListLinks answers GET /links: a bare array, newest first (spec/links.md §5.2).
func (h *Handlers) ListLinks(c *fiber.Ctx) error {
	q, err := parseLinkQuery(c)
	if err != nil {
		return err
	}
	// Upstream has no sortOrder on links: the order is always descending.
	c.Context().QueryArgs().Del("sortOrder")
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100, SortBy: linkSorts, DefaultOrder: "desc"})
	if err != nil {
		return err
	}
	q.Sort, q.SortSet = models.LinkSort(p.SortBy), Query(c, "sortBy") != ""
	q.Page, q.PageSet, q.PageSize = p.Page, Query(c, "page") != "", p.PageSize
	q.StartingAfter, q.EndingBefore = Query(c, "startingAfter"), Query(c, "endingBefore")
	ls, err := h.Links.List(c.UserContext(), actor(c), q)
	if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.APILinks(ls))
}

// CountLinks answers GET /links/count: a number, or with groupBy an array
// of {"_count", "<field>"} (spec/links.md §5.3).
func (h *Handlers) CountLinks(c *fiber.Ctx) error {
	q, err := parseLinkQuery(c)
	if err != nil {
		return err
	}
	g := models.LinkGroupBy(Query(c, "groupBy"))
	ws := actor(c)
	switch g {
	case "":
		n, err := h.Links.Count(c.UserContext(), ws, q)
		if err != nil {
			return err
		}
		return c.JSON(n)
	case models.GroupByDomain, models.GroupByTagID, models.GroupByUserID, models.GroupByFolderID:
	default:
		return apierr.Validation("invalid_union", "groupBy", "Invalid input")
	}
	groups, err := h.Links.CountBy(c.UserContext(), ws, q, g)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(groups))
	for i, gr := range groups {
		out[i] = map[string]any{"_count": gr.Count, string(g): gr.Value}
	}
	return c.JSON(out)
}

// BulkCreateLinks answers POST /links/bulk (spec/links.md §5.9).
func (h *Handlers) BulkCreateLinks(c *fiber.Ctx) error {
	items, err := links.ParseBulk(c.Body())
	if err != nil {
		return err
	}
	rs, err := h.Links.BulkCreate(c.UserContext(), actor(c), items)
	if err != nil {
		return err
	}
	return c.JSON(h.toBulkJSON(rs))
}

// BulkUpdateLinks answers PATCH /links/bulk (spec/links.md §5.10).
func (h *Handlers) BulkUpdateLinks(c *fiber.Ctx) error {
	b, err := links.ParseBulkUpdate(c.Body())
	if err != nil {
		return err
	}
	rs, err := h.Links.BulkUpdate(c.UserContext(), actor(c), b)
	if err != nil {
		return err
	}
	return c.JSON(h.toBulkJSON(rs))
}

// BulkDeleteLinks answers DELETE /links/bulk with {"deletedCount"}.
func (h *Handlers) BulkDeleteLinks(c *fiber.Ctx) error {
	n, err := h.Links.BulkDelete(c.UserContext(), actor(c), QueryList(c, "linkIds"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deletedCount": n})
}

// toBulkJSON renders bulk results: links as Link objects, errors as
// LinkError entries whose link is the request item or the stored link.
func (h *Handlers) toBulkJSON(rs []links.BulkResult) []any {
	out := make([]any, 0, len(rs))
	for _, r := range rs {
		if r.Link != nil {
			out = append(out, h.Links.Wire.APILink(r.Link))
			continue
		}
		link := r.Error.Link
		if l, ok := link.(*models.Link); ok {
			link = h.Links.Wire.APILink(l)
		}
		out = append(out, wire.LinkError{Link: link, Error: r.Error.Error, Code: string(r.Error.Code)})
	}
	return out
}
