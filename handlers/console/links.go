package console

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/handlers/request"
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
	ls, err := h.Deps.Links.List(ctx, h.actor(c), q)
	if err != nil {
		return v, err
	}
	total, err := h.Deps.Links.Count(ctx, h.actor(c), q)
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
		return route.URL(route.Links) + "?" + vals.Encode()
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
	short := h.Deps.Links.Wire.LinkShort(l)
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

// CreateLink creates a link through the link service and opens its page.
func (h *Handlers) CreateLink(c *fiber.Ctx) error {
	in, typed, err := formInput(c, links.SchemaCreate)
	var l *models.Link
	if err == nil {
		l, err = h.Deps.Links.Create(c.UserContext(), h.actor(c), in)
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
	return redirect(c, route.URL(route.Link, l.ID))
}
