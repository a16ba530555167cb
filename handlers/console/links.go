package console

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// linksPageSize is the list's page size.
const linksPageSize = 20

func (h *Handlers) actor(c *fiber.Ctx) links.Actor {
	v := viewer(c)
	return links.Actor{Workspace: v.Workspace, UserID: &v.User.ID, Role: v.Role}
}

// Links lists links with search, filters and pagination. An htmx request
// from the filter form gets only the list.
func (h *Handlers) Links(c *fiber.Ctx) error {
	if to, ok := withoutEmptyParams(c); ok {
		return c.Redirect(to, fiber.StatusFound)
	}
	v, err := h.linksView(c, c.Query("page"))
	if err != nil {
		return err
	}
	if render.IsHTMX(c) && c.Get(render.HeaderTarget) == "links-list" {
		return render.Component(c, fiber.StatusOK, vc.LinksListPart(v.List))
	}
	return h.page(c, fiber.StatusOK, "Links", "links", vc.Links(v))
}

// linkFilters reads the links list's filters from the query string.
func linkFilters(c *fiber.Ctx) vc.LinkFilters {
	return vc.LinkFilters{Search: strings.TrimSpace(c.Query("search")), Domain: c.Query("domain"), Tag: c.Query("tag"),
		Folder: c.Query("folder"), Sort: c.Query("sort"), Archived: c.Query("archived") == "1"}
}

// linkListQuery is the links the filters select, newest first (the list
// pages it; the download takes them all).
func linkListQuery(f vc.LinkFilters) links.ListQuery {
	q := links.ListQuery{Search: f.Search, Domain: f.Domain, FolderID: f.Folder, ShowArchived: f.Archived,
		AllFolders: true, Sort: models.SortCreatedAt}
	if f.Tag != "" {
		q.TagIDs = []string{f.Tag}
	}
	return q
}

func (h *Handlers) linksView(c *fiber.Ctx, pageParam string) (vc.LinksView, error) {
	ctx := c.UserContext()
	f := linkFilters(c)
	page, _ := strconv.Atoi(pageParam)
	if page < 1 {
		page = 1
	}
	if page > links.MaxPage {
		page = links.MaxPage
	}
	q := linkListQuery(f)
	q.Page, q.PageSet, q.PageSize = page, true, linksPageSize
	switch models.LinkSort(f.Sort) {
	case models.SortClicks, models.SortLastClicked, models.SortSaleAmount:
		q.Sort, q.SortSet = models.LinkSort(f.Sort), true
	}
	v := vc.LinksView{CSRF: session(c).CSRF, Filters: f, Export: linksExportForm(f)}
	form, err := h.linkForm(c, nil)
	if err != nil {
		return v, err
	}
	v.Form = form
	v.Domains = append([]vc.Option{{Value: "", Label: "Any domain"}}, selectOpts(form.Domains, f.Domain)...)
	v.Folders = append([]vc.Option{{Value: "", Label: "All folders"}, {Value: "unsorted", Label: "Unsorted", Selected: f.Folder == "unsorted"}}, selectOpts(form.ReadFolders, f.Folder)...)
	v.Tags = append([]vc.Option{{Value: "", Label: "Any tag"}}, selectOpts(form.Tags, f.Tag)...)
	for _, s := range []struct{ v, l string }{{"createdAt", "Newest"}, {"clicks", "Most clicks"}, {"lastClicked", "Last clicked"}, {"saleAmount", "Revenue"}} {
		v.Sorts = append(v.Sorts, vc.Option{Value: s.v, Label: s.l, Selected: string(q.Sort) == s.v})
	}
	ls, err := h.links.List(ctx, h.actor(c), q)
	if err != nil {
		return v, err
	}
	total, err := h.links.Count(ctx, h.actor(c), q)
	if err != nil {
		return v, err
	}
	folders := optionLabels(form.Folders)
	for _, l := range ls {
		v.List.Rows = append(v.List.Rows, h.linkRow(l, folders))
	}
	v.List.Total = total
	v.List.From = (page-1)*linksPageSize + 1
	v.List.To = v.List.From + len(ls) - 1
	pageURL := func(p int) string {
		vals := request.QueryValues(c)
		for k, vs := range vals {
			if len(vs) == 0 || vs[len(vs)-1] == "" {
				vals.Del(k)
			}
		}
		vals.Set("page", strconv.Itoa(p))
		return "/console/links?" + vals.Encode()
	}
	if page > 1 {
		v.List.PrevURL = pageURL(page - 1)
	}
	if int64(page*linksPageSize) < total && page < links.MaxPage {
		v.List.NextURL = pageURL(page + 1)
	}
	return v, nil
}

func selectOpts(opts []vc.Option, selected string) []vc.Option {
	out := make([]vc.Option, len(opts))
	for i, o := range opts {
		out[i] = vc.Option{Value: o.Value, Label: o.Label, Selected: o.Value == selected}
	}
	return out
}

// optionLabels maps options' values to their labels (folder ids to names).
func optionLabels(opts []vc.Option) map[string]string {
	m := make(map[string]string, len(opts))
	for _, o := range opts {
		if o.Value != "" {
			m[o.Value] = o.Label
		}
	}
	return m
}

// linkRow is a link as the list and its page show it; folders names the
// workspace's folders by id.
func (h *Handlers) linkRow(l *models.Link, folders map[string]string) vc.LinkRow {
	short := h.links.ShortLink(l)
	r := vc.LinkRow{ID: l.ID, ShortLink: short, Display: l.Domain + "/" + l.Key, URL: l.URL, Created: date(l.CreatedAt),
		Clicks: l.Clicks, Leads: l.Leads, Sales: l.Sales, Archived: l.Archived, ClicksText: thousands(l.Clicks) + " clicks"}
	if l.Clicks == 1 {
		r.ClicksText = "1 click"
	}
	if l.IsRoot() {
		r.Display, r.Root = l.Domain, true
	}
	if l.FolderID != nil {
		r.Folder = folders[*l.FolderID]
	}
	for _, t := range l.Tags {
		r.Tags = append(r.Tags, vc.TagChip{Name: t.Name, Color: t.Color})
	}
	return r
}

// linkForm is the create/edit form with the workspace's domains, folders and
// tags; l fills it for editing.
func (h *Handlers) linkForm(c *fiber.Ctx, l *models.Link) (vc.LinkForm, error) {
	ws := viewer(c).Workspace
	ctx := c.UserContext()
	f := vc.LinkForm{CSRF: session(c).CSRF, TagIDs: map[string]bool{}}
	def := h.links.DefaultDomain()
	f.Domains = []vc.Option{{Value: def, Label: def}}
	ds, err := h.db.WorkspaceDomains(ctx, ws.ID)
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
	if l != nil && !offered && !h.links.IsDefaultDomain(l.Domain) {
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
	ts, err := h.db.ListTags(ctx, ws.ID, models.TagFilter{Limit: 500})
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

// CreateLink creates a link through the link service and opens its page.
func (h *Handlers) CreateLink(c *fiber.Ctx) error {
	in, typed, err := formInput(c, links.SchemaCreate)
	var l *models.Link
	if err == nil {
		l, err = h.links.Create(c.UserContext(), h.actor(c), in)
	}
	if err != nil {
		errs, status, ok := fieldErrors(err, "key")
		if !ok {
			return err
		}
		v, verr := h.linksView(c, "1")
		if verr != nil {
			return verr
		}
		v.Form = refill(v.Form, typed, errs)
		return h.page(c, status, "Links", "links", vc.Links(v))
	}
	return redirect(c, "/console/links/"+l.ID)
}

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
	l, err := h.links.Get(c.UserContext(), h.actor(c), c.Params("id"))
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
		fo, err := h.links.FolderAccess(c.UserContext(), h.actor(c), *l.FolderID, models.PermFolderRead)
		if err != nil {
			return v, err
		}
		rights, err := h.links.FolderRights(c.UserContext(), h.actor(c), []models.Folder{*fo})
		if err != nil {
			return v, err
		}
		v.ReadOnly, v.FolderName = !rights[fo.ID].LinkWrite, fo.Name
	}
	v.Analytics, err = h.analyticsView(c, "/console/links/"+l.ID, request.QueryValues(c), l.ID, false)
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
		_, err = h.links.Update(ctx, h.actor(c), c.Params("id"), in)
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
		l, gerr := h.links.Get(ctx, h.actor(c), c.Params("id"))
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
	return redirect(c, "/console/links/"+c.Params("id")+"?saved=1")
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
	if _, err := h.links.Update(c.UserContext(), a, c.Params("id"), in); err != nil {
		return foreign(err)
	}
	return redirect(c, "/console/links/"+c.Params("id"))
}

// DeleteLink deletes a link and returns to the list.
func (h *Handlers) DeleteLink(c *fiber.Ctx) error {
	// Dub's dashboard deletes through the bulk endpoint: no link.deleted.
	a := h.actor(c)
	a.Silent = true
	if _, err := h.links.Remove(c.UserContext(), a, c.Params("id")); err != nil {
		return foreign(err)
	}
	return redirect(c, "/console/links")
}
