package export

import (
	"context"
	"strconv"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// linkColumn is one column of the links export, in upstream's order with
// upstream's labels (exportLinksColumns).
type linkColumn struct {
	id, label string
	value     func(svc *links.Service, l *models.Link) string
}

var linkColumns = []linkColumn{
	{"link", "Short link", func(svc *links.Service, l *models.Link) string { return svc.Wire.LinkShort(l) }},
	{"url", "Destination URL", func(_ *links.Service, l *models.Link) string { return l.URL }},
	{"clicks", "Clicks", func(_ *links.Service, l *models.Link) string { return strconv.FormatInt(l.Clicks, 10) }},
	{"leads", "Leads", func(_ *links.Service, l *models.Link) string { return strconv.FormatInt(l.Leads, 10) }},
	{"conversions", "Conversions", func(_ *links.Service, l *models.Link) string { return strconv.FormatInt(l.Conversions, 10) }},
	{"saleAmount", "Revenue", func(_ *links.Service, l *models.Link) string { return FormatUSD(l.SaleAmount) }},
	{"createdAt", "Created at", func(_ *links.Service, l *models.Link) string { return timestamp(l.CreatedAt) }},
	{"id", "Link ID", func(_ *links.Service, l *models.Link) string { return l.ID }},
	{"updatedAt", "Updated at", func(_ *links.Service, l *models.Link) string { return timestamp(l.UpdatedAt) }},
	{"tags", "Tags", func(_ *links.Service, l *models.Link) string {
		names := make([]string, len(l.Tags))
		for i, t := range l.Tags {
			names[i] = t.Name
		}
		return strings.Join(names, ", ")
	}},
	{"archived", "Archived", func(_ *links.Service, l *models.Link) string {
		if l.Archived {
			return "Yes"
		}
		return "No"
	}},
}

// DefaultLinkColumns are upstream's defaults.
const DefaultLinkColumns = "link,url,clicks,createdAt"

// pickLinkColumns keeps the known columns of the comma-separated list in
// upstream's column order, as upstream does (unknown names are dropped).
func pickLinkColumns(list string) []linkColumn {
	want := map[string]bool{}
	for _, id := range strings.Split(list, ",") {
		want[strings.TrimSpace(id)] = true
	}
	var cols []linkColumn
	for _, col := range linkColumns {
		if want[col.id] {
			cols = append(cols, col)
		}
	}
	return cols
}

// Links is the links export (links_export.csv): the links q selects (every
// folder a can read unless q names one) created in created, newest first, with the
// chosen columns (comma-separated ids; "" is DefaultLinkColumns).
func Links(ctx context.Context, svc *links.Service, a links.Actor, q links.ListQuery, created models.LinkCreated, columns string) (Download, error) {
	if columns == "" {
		columns = DefaultLinkColumns
	}
	cols := pickLinkColumns(columns)
	if len(cols) == 0 {
		return Download{}, apierr.New(apierr.Unprocessable, "Select at least one column to export.")
	}
	walk, err := svc.Export(ctx, a, q, created)
	if err != nil {
		return Download{}, err
	}
	header := make([]string, len(cols))
	for i, col := range cols {
		header[i] = col.label
	}
	return CSV("links_export.csv", header, func(ctx context.Context, emit Emit) error {
		return walk(ctx, func(batch []*models.Link) error {
			for _, l := range batch {
				rec := make([]string, len(cols))
				for i, col := range cols {
					rec[i] = col.value(svc, l)
				}
				if err := emit(rec); err != nil {
					return err
				}
			}
			return nil
		})
	}), nil
}

// LinkColumns are the columns a links download offers, in upstream's order.
func LinkColumns() []Column {
	def := map[string]bool{}
	for _, id := range strings.Split(DefaultLinkColumns, ",") {
		def[id] = true
	}
	out := make([]Column, len(linkColumns))
	for i, c := range linkColumns {
		out[i] = Column{ID: c.id, Label: c.label, Default: def[c.id]}
	}
	return out
}
