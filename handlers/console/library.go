package console

import (
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// The domains, tags and folders pages call the same link service and models
// as the API (/domains, /tags, /folders), with the API's plan gates.

func (h *Handlers) libraryPage(c *fiber.Ctx, status int, kind string, errs vc.FieldErrors, typed map[string]string) error {
	ws := viewer(c).Workspace
	ctx := c.UserContext()
	lr := libraryRoutes[kind]
	v := vc.LibraryView{CSRF: session(c).CSRF, Kind: kind, Create: lr.create, Delete: lr.del, Errors: errs, CanCreate: true}
	val := func(k string) string { return typed[k] }
	switch kind {
	case "domains":
		v.Noun = "domain"
		v.Fields = []vc.FieldProps{
			{Label: "Domain", Name: "slug", Value: val("slug"), Placeholder: "go.example.com", Required: true},
			{Label: "Redirect when a link has expired (optional)", Name: "expiredUrl", Type: "url", Value: val("expiredUrl")},
		}
		v.Rows = append(v.Rows, vc.LibraryRow{ID: h.Deps.Links.DefaultDomain(), Name: h.Deps.Links.DefaultDomain(), Badge: "default"})
		ds, err := h.DB.WorkspaceDomains(ctx, ws.ID)
		if err != nil {
			return err
		}
		for _, d := range ds {
			r := vc.LibraryRow{ID: d.Slug, Name: d.Slug, Created: date(d.CreatedAt), Deletable: true, LogoForm: true}
			if d.Logo != nil {
				r.Logo = *d.Logo
			}
			if d.Primary {
				r.Badge = "primary"
			}
			if d.ExpiredURL != nil {
				r.Detail = "Expired links go to " + *d.ExpiredURL
			}
			r.DNS = h.domainDNS(&d)
			v.Rows = append(v.Rows, r)
		}
	case "tags":
		v.Noun = "tag"
		v.Fields = []vc.FieldProps{{Label: "Name", Name: "name", Value: val("name"), Required: true}}
		colors := []vc.Option{{Value: "", Label: "random"}}
		for _, col := range models.TagColors {
			colors = append(colors, vc.Option{Value: col, Label: col, Selected: col == val("color")})
		}
		v.Selects = []vc.SelectProps{{Label: "Color", Name: "color", Options: colors}}
		ts, err := h.DB.ListTags(ctx, ws.ID, models.TagFilter{Limit: 500})
		if err != nil {
			return err
		}
		for _, t := range ts {
			v.Rows = append(v.Rows, vc.LibraryRow{ID: t.ID, Name: t.Name, Color: t.Color, Created: date(t.CreatedAt), Deletable: true})
		}
	case "folders":
		v.Noun = "folder"
		v.Fields = []vc.FieldProps{{Label: "Name", Name: "name", Value: val("name"), Required: true}, {Label: "Description", Name: "description", Value: val("description")}}
		if err := ws.RequirePlan(models.PlanPro); err != nil {
			v.CanCreate, v.Note = false, "Folders need the Pro plan or higher."
		}
		fs, rights, err := h.visibleFolders(c)
		if err != nil {
			return err
		}
		for _, f := range fs {
			rt := rights[f.ID]
			r := vc.LibraryRow{ID: f.ID, Name: f.Name, Created: date(f.CreatedAt), Deletable: v.CanCreate && rt.Write,
				Href: route.URL(route.Folder, f.ID), Badge: folderBadge(f, rt)}
			if f.Description != nil {
				r.Detail = *f.Description
			}
			v.Rows = append(v.Rows, r)
		}
	}
	title := strings.ToUpper(kind[:1]) + kind[1:]
	return h.page(c, status, title, kind, vc.Library(v))
}

// libraryRoutes are each library kind's list, create and delete routes.
var libraryRoutes = map[string]struct{ list, create, del route.Name }{
	"domains": {route.Domains, route.CreateDomain, route.DeleteDomain},
	"tags":    {route.Tags, route.CreateTag, route.DeleteTag},
	"folders": {route.Folders, route.CreateFolder, route.DeleteFolder},
}

// Domains, Tags and Folders list the workspace's resources.
func (h *Handlers) Domains(c *fiber.Ctx) error {
	return h.libraryPage(c, fiber.StatusOK, "domains", nil, nil)
}

// Tags lists tags.
func (h *Handlers) Tags(c *fiber.Ctx) error {
	return h.libraryPage(c, fiber.StatusOK, "tags", nil, nil)
}

// Folders lists folders.
func (h *Handlers) Folders(c *fiber.Ctx) error {
	return h.libraryPage(c, fiber.StatusOK, "folders", nil, nil)
}

// jsonBody builds the API body from non-empty form fields.
func jsonBody(c *fiber.Ctx, fields ...string) ([]byte, map[string]string) {
	body, typed := map[string]any{}, map[string]string{}
	for _, f := range fields {
		v := strings.TrimSpace(c.FormValue(f))
		typed[f] = v
		if v != "" {
			body[f] = v
		}
	}
	raw, _ := json.Marshal(body)
	return raw, typed
}

// libraryResult re-renders the page with errors, or goes back to the list.
func (h *Handlers) libraryResult(c *fiber.Ctx, kind string, err error, typed map[string]string, conflictField string) error {
	if err == nil {
		return redirect(c, route.URL(libraryRoutes[kind].list))
	}
	errs, status, ok := fieldErrors(err, conflictField)
	if !ok {
		return err
	}
	return h.libraryPage(c, status, kind, errs, typed)
}

// CreateTag adds a tag (POST /tags' rules).
func (h *Handlers) CreateTag(c *fiber.Ctx) error {
	raw, typed := jsonBody(c, "name", "color")
	in, err := links.ParseTagInput(raw)
	if err == nil {
		_, err = h.Deps.Links.CreateTag(c.UserContext(), viewer(c).Workspace, in)
	}
	return h.libraryResult(c, "tags", err, typed, "name")
}

// DeleteTag deletes a tag.
func (h *Handlers) DeleteTag(c *fiber.Ctx) error {
	if err := h.Deps.Links.DeleteTag(c.UserContext(), viewer(c).Workspace, c.Params("id")); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Tags))
}

// CreateFolder adds a folder (POST /folders' rules; Pro plan).
func (h *Handlers) CreateFolder(c *fiber.Ctx) error {
	raw, typed := jsonBody(c, "name", "description")
	err := viewer(c).Workspace.RequirePlan(models.PlanPro)
	if err == nil {
		var in *links.FolderInput
		if in, err = links.ParseFolderInput(raw, true); err == nil {
			_, err = h.Deps.Links.CreateFolder(c.UserContext(), h.actor(c), in)
		}
	}
	return h.libraryResult(c, "folders", err, typed, "name")
}

// DeleteFolder deletes a folder (Pro plan).
func (h *Handlers) DeleteFolder(c *fiber.Ctx) error {
	ws := viewer(c).Workspace
	if err := ws.RequirePlan(models.PlanPro); err != nil {
		return err
	}
	if err := h.Deps.Links.DeleteFolder(c.UserContext(), h.actor(c), c.Params("id")); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Folders))
}

// folderBadge says what the viewer may do in a folder, and whether the
// workspace at large can reach it.
func folderBadge(f models.Folder, r links.FolderAccessView) string {
	you := "view only"
	if r.LinkWrite {
		you = "can edit"
	}
	if f.AccessLevel == nil {
		return you + " · private"
	}
	return you
}
