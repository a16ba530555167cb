package console

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/render"
	vc "github.com/relinkhq/relink/views/console"
)

func (h *Handlers) keysView(c *fiber.Ctx) (vc.KeysView, error) {
	v := vc.KeysView{CSRF: session(c).CSRF}
	ks, err := h.DB.ListAPIKeys(c.UserContext(), viewer(c).Workspace.ID)
	if err != nil {
		return v, err
	}
	for _, k := range ks {
		row := vc.KeyRow{ID: k.ID, Name: k.Name, Partial: k.PartialKey, Created: date(k.CreatedAt), LastUsed: "Never", Revoked: k.RevokedAt != nil}
		if k.LastUsedAt != nil {
			row.LastUsed = k.LastUsedAt.UTC().Format("Jan 2, 2006 15:04") + " UTC"
		}
		v.Keys = append(v.Keys, row)
	}
	return v, nil
}

// Keys lists the workspace's API keys (partial form only).
func (h *Handlers) Keys(c *fiber.Ctx) error {
	v, err := h.keysView(c)
	if err != nil {
		return err
	}
	return h.page(c, fiber.StatusOK, "API keys", "keys", vc.Keys(v))
}

// CreateKey makes a key and shows its token once, in this response only.
func (h *Handlers) CreateKey(c *fiber.Ctx) error {
	vw := viewer(c)
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" || len(name) > 190 {
		v, err := h.keysView(c)
		if err != nil {
			return err
		}
		v.NewName, v.Error = name, "Give the key a name of 1 to 190 characters."
		return h.page(c, fiber.StatusUnprocessableEntity, "API keys", "keys", vc.Keys(v))
	}
	_, token, err := h.Workspaces.CreateAPIKey(c.UserContext(), vw.Workspace.ID, name, &vw.User.ID)
	if err != nil {
		return err
	}
	v, err := h.keysView(c)
	if err != nil {
		return err
	}
	v.NewToken = token
	return h.page(c, fiber.StatusCreated, "API keys", "keys", vc.Keys(v))
}

// RevokeKey revokes a key of this workspace; htmx gets the list back.
func (h *Handlers) RevokeKey(c *fiber.Ctx) error {
	if err := h.Workspaces.RevokeAPIKey(c.UserContext(), viewer(c).Workspace.ID, c.Params("id")); err != nil {
		return err
	}
	if render.IsHTMX(c) {
		v, err := h.keysView(c)
		if err != nil {
			return err
		}
		return render.Component(c, fiber.StatusOK, vc.KeysTable(v))
	}
	return redirect(c, route.URL(route.Keys))
}
