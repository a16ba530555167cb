package console

import (
	"encoding/json"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// foreign turns the link service's 401 for another workspace's link (the
// API's wording) into the console's 404: to a signed-in user it simply is
// not there.
func foreign(err error) error {
	if apierr.Is(err, apierr.Unauthorized) {
		return apierr.New(apierr.NotFound, "Link not found.")
	}
	return err
}

// Link is one link's page: short link, copy, QR, analytics, edit form.
func (h *Handlers) Link(c *fiber.Ctx) error {
	if to, ok := withoutEmptyParams(c); ok {
		return c.Redirect(to, fiber.StatusFound)
	}
	l, err := h.Deps.Links.Get(c.UserContext(), h.actor(c), c.Params("id"))
	if err != nil {
		return foreign(err)
	}
	v, err := h.linkDetail(c, l)
	if err != nil {
		return err
	}
	v.Saved = c.Query("saved") == "1"
	return h.page(c, fiber.StatusOK, l.Domain+"/"+l.Key, "links", vc.Link(v))
}

func (h *Handlers) linkDetail(c *fiber.Ctx, l *models.Link) (vc.LinkDetail, error) {
	v := vc.LinkDetail{CSRF: session(c).CSRF}
	f, err := h.linkForm(c, l)
	if err != nil {
		return v, err
	}
	v.Form = f
	v.Link = h.linkRow(l, optionLabels(f.Folders))
	v.QRURL = "/api/qr?" + url.Values{"url": {v.Link.ShortLink}, "size": {"600"}, "margin": {"2"}}.Encode()
	v.QRName = qrFileName(l)
	if l.FolderID != nil {
		fo, err := h.Deps.Links.FolderAccess(c.UserContext(), h.actor(c), *l.FolderID, models.PermFolderRead)
		if err != nil {
			return v, err
		}
		rights, err := h.Deps.Links.FolderRights(c.UserContext(), h.actor(c), []models.Folder{*fo})
		if err != nil {
			return v, err
		}
		v.ReadOnly, v.FolderName = !rights[fo.ID].LinkWrite, fo.Name
	}
	v.Analytics, err = h.analyticsView(c, route.URL(route.Link, l.ID), request.QueryValues(c), l.ID, false)
	return v, err
}

// qrFileName is the QR download's file name: qr-<domain>-<key>.png with
// every character other than letters, digits, '.', '_' and '-' made '-'
// (a port's ':' and a key's '/' are not allowed in file names everywhere).
func qrFileName(l *models.Link) string {
	name := l.Domain
	if !l.IsRoot() {
		name += "-" + l.Key
	}
	b := []byte(name)
	for i, ch := range b {
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '_' || ch == '-'
		if !ok {
			b[i] = '-'
		}
	}
	return "qr-" + string(b) + ".png"
}

// UpdateLink edits a link through the link service.
func (h *Handlers) UpdateLink(c *fiber.Ctx) error {
	ctx := c.UserContext()
	in, typed, err := formInput(c, links.SchemaUpdate)
	if err == nil {
		_, err = h.Deps.Links.Update(ctx, h.actor(c), c.Params("id"), in)
	}
	if err != nil {
		err = foreign(err)
		if apierr.Is(err, apierr.NotFound) {
			return err
		}
		errs, status, ok := fieldErrors(err, "key")
		if !ok {
			return err
		}
		l, gerr := h.Deps.Links.Get(ctx, h.actor(c), c.Params("id"))
		if gerr != nil {
			return foreign(gerr)
		}
		v, verr := h.linkDetail(c, l)
		if verr != nil {
			return verr
		}
		v.Form = refill(v.Form, typed, errs)
		return h.page(c, status, l.Domain+"/"+l.Key, "links", vc.Link(v))
	}
	return redirect(c, route.URL(route.Link, c.Params("id"))+"?saved=1")
}

// ArchiveLink archives or unarchives a link.
func (h *Handlers) ArchiveLink(c *fiber.Ctx) error {
	raw, _ := json.Marshal(map[string]any{"archived": c.FormValue("archived") == "1"})
	in, err := links.ParseInput(raw, links.SchemaUpdate)
	if err != nil {
		return err
	}
	// Dub's dashboard archives through the bulk endpoint: no link.updated.
	a := h.actor(c)
	a.Silent = true
	if _, err := h.Deps.Links.Update(c.UserContext(), a, c.Params("id"), in); err != nil {
		return foreign(err)
	}
	return redirect(c, route.URL(route.Link, c.Params("id")))
}

// DeleteLink deletes a link and returns to the list.
func (h *Handlers) DeleteLink(c *fiber.Ctx) error {
	// Dub's dashboard deletes through the bulk endpoint: no link.deleted.
	a := h.actor(c)
	a.Silent = true
	if _, err := h.Deps.Links.Remove(c.UserContext(), a, c.Params("id")); err != nil {
		return foreign(err)
	}
	return redirect(c, route.URL(route.Links))
}
