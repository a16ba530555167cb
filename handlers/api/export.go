package api

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// exportTimeout bounds a whole streamed export; each batch is a short query.
const exportTimeout = 10 * time.Minute

// csvStream answers with a CSV attachment whose rows produce writes: the
// header row first, then whatever produce emits, flushed batch by batch so
// that a million rows never sit in memory. produce runs after the handler
// returns, so it gets its own context; an error there can no longer change
// the status: it is logged, and the body ends with a last line saying the
// export is incomplete, so a reader never takes a cut file for a whole one.
func csvStream(c *fiber.Ctx, filename string, header []string, produce func(ctx context.Context, emit func([]string) error) error) {
	c.Set(fiber.HeaderContentType, "application/csv")
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf("attachment; filename=%s", filename))
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
		defer cancel()
		cw := csv.NewWriter(w)
		_ = cw.Write(header)
		rows := 0
		err := produce(ctx, func(rec []string) error {
			for i, v := range rec {
				rec[i] = neutralizeFormula(v)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
			rows++
			if rows%500 == 0 {
				cw.Flush()
				if err := w.Flush(); err != nil {
					return fmt.Errorf("client went away: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			slog.Error("export stopped early", "file", filename, "rows", rows, "err", err)
			_ = cw.Write([]string{"# export incomplete: " + err.Error()})
		}
		cw.Flush()
		_ = w.Flush()
	})
}

// neutralizeFormula keeps spreadsheets from running a cell as a formula, as
// upstream's export does: a leading =, +, -, @, tab or line break gets a '.
func neutralizeFormula(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r\n", rune(v[0])) {
		return "'" + v
	}
	return v
}

// linkExportColumn is one column of GET /links/export, in upstream's order
// with upstream's labels (exportLinksColumns).
type linkExportColumn struct {
	id, label string
	value     func(h *Handlers, l *models.Link) string
}

var linkExportColumns = []linkExportColumn{
	{"link", "Short link", func(h *Handlers, l *models.Link) string { return h.Links.ShortLink(l) }},
	{"url", "Destination URL", func(_ *Handlers, l *models.Link) string { return l.URL }},
	{"clicks", "Clicks", func(_ *Handlers, l *models.Link) string { return strconv.FormatInt(l.Clicks, 10) }},
	{"leads", "Leads", func(_ *Handlers, l *models.Link) string { return strconv.FormatInt(l.Leads, 10) }},
	{"conversions", "Conversions", func(_ *Handlers, l *models.Link) string { return strconv.FormatInt(l.Conversions, 10) }},
	{"saleAmount", "Revenue", func(_ *Handlers, l *models.Link) string { return formatUSD(l.SaleAmount) }},
	{"createdAt", "Created at", func(_ *Handlers, l *models.Link) string { return request.Timestamp(l.CreatedAt) }},
	{"id", "Link ID", func(_ *Handlers, l *models.Link) string { return l.ID }},
	{"updatedAt", "Updated at", func(_ *Handlers, l *models.Link) string { return request.Timestamp(l.UpdatedAt) }},
	{"tags", "Tags", func(_ *Handlers, l *models.Link) string {
		names := make([]string, len(l.Tags))
		for i, t := range l.Tags {
			names[i] = t.Name
		}
		return strings.Join(names, ", ")
	}},
	{"archived", "Archived", func(_ *Handlers, l *models.Link) string {
		if l.Archived {
			return "Yes"
		}
		return "No"
	}},
}

// defaultLinkExportColumns are upstream's defaults.
const defaultLinkExportColumns = "link,url,clicks,createdAt"

// formatUSD writes cents as upstream's currency formatter does for USD:
// $1,234.56, -$5.00.
func formatUSD(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	whole := strconv.FormatInt(cents/100, 10)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, whole, cents%100)
}

// pickLinkColumns keeps the known columns of the comma-separated list in
// upstream's column order, as upstream does (unknown names are dropped).
func pickLinkColumns(list string) []linkExportColumn {
	want := map[string]bool{}
	for _, id := range strings.Split(list, ",") {
		want[strings.TrimSpace(id)] = true
	}
	var cols []linkExportColumn
	for _, col := range linkExportColumns {
		if want[col.id] {
			cols = append(cols, col)
		}
	}
	return cols
}

// ExportLinks answers GET /links/export: the links the list's filters select
// (every folder's unless folderId names one), created between start and end
// (whole days, as upstream), as CSV with the chosen columns. Upstream answers
// 202 and emails a file past 1,000 links; Relink streams every row.
func (h *Handlers) ExportLinks(c *fiber.Ctx) error {
	q, err := parseLinkQuery(c)
	if err != nil {
		return err
	}
	cols := pickLinkColumns(c.Query("columns", defaultLinkExportColumns))
	if len(cols) == 0 {
		return apierr.New(apierr.Unprocessable, "Select at least one column to export.")
	}
	created, err := exportCreatedRange(c)
	if err != nil {
		return err
	}
	walk, err := h.Links.Export(c.UserContext(), actor(c), q, created)
	if err != nil {
		return err
	}
	header := make([]string, len(cols))
	for i, col := range cols {
		header[i] = col.label
	}
	csvStream(c, "links_export.csv", header, func(ctx context.Context, emit func([]string) error) error {
		return walk(ctx, func(batch []*models.Link) error {
			for _, l := range batch {
				rec := make([]string, len(cols))
				for i, col := range cols {
					rec[i] = col.value(h, l)
				}
				if err := emit(rec); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return nil
}

// exportCreatedRange reads start and end (ISO dates or date-times) as the
// first and last day of creation, whole days in UTC as upstream.
func exportCreatedRange(c *fiber.Ctx) (models.LinkCreated, error) {
	var r models.LinkCreated
	start, err := request.ParseTime("start", c.Query("start"), time.UTC)
	if err != nil {
		return r, err
	}
	end, err := request.ParseTime("end", c.Query("end"), time.UTC)
	if err != nil {
		return r, err
	}
	if start != nil {
		s := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
		r.From = &s
	}
	if end != nil {
		e := time.Date(end.Year(), end.Month(), end.Day(), 23, 59, 59, 999_000_000, time.UTC)
		r.To = &e
	}
	if r.From != nil && r.To != nil && r.From.After(*r.To) {
		return r, apierr.New(apierr.Unprocessable, "The end date must be after the start date.")
	}
	return r, nil
}
