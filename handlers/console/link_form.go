package console

import (
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// linkForm is the create/edit form with the workspace's domains, folders and
// tags; l fills it for editing.
func (h *Handlers) linkForm(c *fiber.Ctx, l *models.Link) (vc.LinkForm, error) {
	ws := viewer(c).Workspace
	ctx := c.UserContext()
	f := vc.LinkForm{CSRF: session(c).CSRF, TagIDs: map[string]bool{}}
	def := h.Deps.Links.DefaultDomain()
	f.Domains = []vc.Option{{Value: def, Label: def}}
	ds, err := h.DB.WorkspaceDomains(ctx, ws.ID)
	if err != nil {
		return f, err
	}
	offered := false
	for _, d := range ds {
		f.Domains = append(f.Domains, vc.Option{Value: d.Slug, Label: d.Slug})
		if d.Primary && l == nil { // a new link starts on the primary domain, as the API's default
			f.Domain = d.Slug
		}
		offered = offered || (l != nil && d.Slug == l.Domain)
	}
	// A link on a domain that is neither the default nor one of the
	// workspace's (the default short domain changed since, a domain
	// removed) is still offered its own domain, selected: saving the form
	// must not move the link to the first domain of the list.
	if l != nil && !offered && !h.Deps.Links.IsDefaultDomain(l.Domain) {
		f.Domains = append(f.Domains, vc.Option{Value: l.Domain, Label: l.Domain})
	}
	// Links go only into folders where the user may write them.
	f.Folders = []vc.Option{{Value: "", Label: "No folder"}}
	fs, rights, err := h.visibleFolders(c)
	if err != nil {
		return f, err
	}
	for _, fo := range fs {
		if rights[fo.ID].LinkWrite || (l != nil && l.FolderID != nil && *l.FolderID == fo.ID) {
			f.Folders = append(f.Folders, vc.Option{Value: fo.ID, Label: fo.Name})
		}
	}
	f.ReadFolders = []vc.Option{}
	for _, fo := range fs {
		f.ReadFolders = append(f.ReadFolders, vc.Option{Value: fo.ID, Label: fo.Name})
	}
	ts, err := h.DB.ListTags(ctx, ws.ID, models.TagFilter{Limit: 500})
	if err != nil {
		return f, err
	}
	for _, t := range ts {
		f.Tags = append(f.Tags, vc.Option{Value: t.ID, Label: t.Name})
	}
	if l != nil {
		f.ID, f.URL, f.Domain, f.Key, f.Archived = l.ID, l.URL, l.Domain, l.Key, l.Archived
		if l.FolderID != nil {
			f.FolderID = *l.FolderID
		}
		if l.Comments != nil {
			f.Comments = *l.Comments
		}
		for _, t := range l.Tags {
			f.TagIDs[t.ID] = true
		}
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		if l.ExpiresAt != nil {
			f.ExpiresAt = l.ExpiresAt.UTC().Format("2006-01-02T15:04")
		}
		f.ExpiredURL, f.Password = str(l.ExpiredURL), str(l.Password)
		f.UTMSource, f.UTMMedium, f.UTMCampaign = str(l.UTMSource), str(l.UTMMedium), str(l.UTMCampaign)
	}
	f.Domains = selectOpts(f.Domains, f.Domain)
	f.Folders = selectOpts(f.Folders, f.FolderID)
	return f, nil
}

// formInput turns the posted form into the API's JSON body, so the link
// rules (links.ParseInput, links.Service) are the API's own.
func formInput(c *fiber.Ctx, schema links.Schema) (*links.Input, vc.LinkForm, error) {
	args := c.Request().PostArgs()
	f := vc.LinkForm{URL: strings.TrimSpace(c.FormValue("url")), Domain: c.FormValue("domain"), Key: strings.TrimSpace(c.FormValue("key")),
		FolderID: c.FormValue("folderId"), Comments: c.FormValue("comments"), TagIDs: map[string]bool{},
		ExpiresAt: strings.TrimSpace(c.FormValue("expiresAt")), ExpiredURL: strings.TrimSpace(c.FormValue("expiredUrl")),
		Password: c.FormValue("password"), UTMSource: strings.TrimSpace(c.FormValue("utm_source")),
		UTMMedium: strings.TrimSpace(c.FormValue("utm_medium")), UTMCampaign: strings.TrimSpace(c.FormValue("utm_campaign"))}
	body := map[string]any{"url": f.URL}
	// No domain posted: a new link gets the API's default (the primary
	// domain), an edited one keeps its own.
	if f.Domain != "" {
		body["domain"] = f.Domain
	}
	// Optional fields: set when given; on edit an emptied field is cleared.
	for name, val := range map[string]string{"expiresAt": f.ExpiresAt, "expiredUrl": f.ExpiredURL, "password": f.Password,
		"utm_source": f.UTMSource, "utm_medium": f.UTMMedium, "utm_campaign": f.UTMCampaign} {
		switch {
		case val != "":
			body[name] = val
		case schema == links.SchemaUpdate:
			body[name] = nil
		}
	}
	if f.Key != "" || schema == links.SchemaUpdate {
		body["key"] = f.Key
	}
	if f.FolderID != "" {
		body["folderId"] = f.FolderID
	} else if schema == links.SchemaUpdate {
		body["folderId"] = nil
	}
	if f.Comments != "" {
		body["comments"] = f.Comments
	} else if schema == links.SchemaUpdate {
		body["comments"] = nil
	}
	tags := []string{}
	for _, t := range args.PeekMulti("tagIds") {
		tags = append(tags, string(t))
		f.TagIDs[string(t)] = true
	}
	body["tagIds"] = tags
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, f, err
	}
	in, err := links.ParseInput(raw, schema)
	return in, f, err
}

// refill keeps what the user typed in a form that failed.
func refill(base, typed vc.LinkForm, errs vc.FieldErrors) vc.LinkForm {
	base.URL, base.Domain, base.Key, base.FolderID, base.Comments, base.TagIDs = typed.URL, typed.Domain, typed.Key, typed.FolderID, typed.Comments, typed.TagIDs
	base.ExpiresAt, base.ExpiredURL, base.Password = typed.ExpiresAt, typed.ExpiredURL, typed.Password
	base.UTMSource, base.UTMMedium, base.UTMCampaign = typed.UTMSource, typed.UTMMedium, typed.UTMCampaign
	base.Domains = selectOpts(base.Domains, typed.Domain)
	base.Folders = selectOpts(base.Folders, typed.FolderID)
	base.Errors = errs
	return base
}
