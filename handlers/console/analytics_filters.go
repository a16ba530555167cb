package console

import (
	"context"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// maxFilterOptions bounds a filter select.
const maxFilterOptions = 100

// valueSelect is a filter select: "Any", the values present (most events
// first), and the current value even when absent from the window.
func valueSelect(label, name, cur string, g analytics.GroupBy, rows []analytics.Group) vc.SelectProps {
	noun := label // "OS", "UTM source" keep their capitals; "Country" → "country"
	if len(noun) > 1 && noun[1] >= 'a' && noun[1] <= 'z' {
		noun = strings.ToLower(noun[:1]) + noun[1:]
	}
	sel := vc.SelectProps{Label: label, Name: name, Options: []vc.Option{{Value: "", Label: "Any " + noun}}}
	seen := false
	for i, r := range rows {
		if i == maxFilterOptions {
			break
		}
		val, text, icon := groupLabel(g, r)
		if icon != "" {
			text = icon + " " + text
		}
		seen = seen || val == cur
		sel.Options = append(sel.Options, vc.Option{Value: val, Label: text, Selected: val == cur})
	}
	if cur != "" && !seen {
		sel.Options = append(sel.Options, vc.Option{Value: cur, Label: cur, Selected: true})
	}
	return sel
}

// groupLabel is a top-list row's filter value, label and icon: countries
// by name with their flag, cities with their country's flag, links as
// their short link without the scheme.
func groupLabel(g analytics.GroupBy, r analytics.Group) (val, label, icon string) {
	switch g {
	case analytics.Countries:
		return r.Key, geo.CountryName(r.Key), geo.Flag(r.Key)
	case analytics.Cities:
		return r.City, r.City, geo.Flag(r.Country)
	case analytics.TopLinks:
		return r.Link.ID, strings.TrimPrefix(strings.TrimPrefix(r.Link.ShortLink(), "https://"), "http://"), ""
	}
	return r.Key, r.Key, ""
}

// filterSelects are the dashboard's domain and tag filters.
func (h *Handlers) filterSelects(c *fiber.Ctx, vals url.Values) ([]vc.SelectProps, error) {
	ws := viewer(c).Workspace
	ctx := c.UserContext()
	def := h.Deps.Links.DefaultDomain()
	domains := []vc.Option{{Value: "", Label: "Any domain"}, {Value: def, Label: def, Selected: vals.Get("domain") == def}}
	ds, err := h.DB.WorkspaceDomains(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		domains = append(domains, vc.Option{Value: d.Slug, Label: d.Slug, Selected: vals.Get("domain") == d.Slug})
	}
	tags := []vc.Option{{Value: "", Label: "Any tag"}}
	ts, err := h.DB.ListTags(ctx, ws.ID, models.TagFilter{Limit: 500})
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		tags = append(tags, vc.Option{Value: t.ID, Label: t.Name, Selected: vals.Get("tagId") == t.ID})
	}
	return []vc.SelectProps{{Label: "Domain", Name: "domain", Options: domains}, {Label: "Tag", Name: "tagId", Options: tags}}, nil
}

// folderReader is the analytics folder check for the signed-in user.
func (h *Handlers) folderReader(c *fiber.Ctx) func(context.Context, string) error {
	return request.FolderReader(h.Deps.Links, h.actor(c))
}
