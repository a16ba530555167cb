package api

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
)

// eventExportColumn is one column GET /events/export knows: upstream's label
// (eventsExportColumnNames, else the capitalised id) and its value.
type eventExportColumn struct {
	label string
	value func(ev *analytics.EventRecord) string
}

// eventExportColumns are the columns of upstream's events table (every
// event kind's), with upstream's labels and accessors. Where upstream reads
// a key the event object does not have (customerName, region), Relink
// writes what the column's name says.
var eventExportColumns = map[string]eventExportColumn{
	"timestamp": {"Date", func(ev *analytics.EventRecord) string { return request.Timestamp(ev.Timestamp) }},
	"trigger":   {"Event", func(ev *analytics.EventRecord) string { return ev.Click.Trigger }},
	"event":     {"Event", func(ev *analytics.EventRecord) string { return ev.EventName }},
	"link": {"Link", func(ev *analytics.EventRecord) string {
		if ev.Link.Key == "_root" {
			return ev.Link.Domain
		}
		return ev.Link.Domain + "/" + ev.Link.Key
	}},
	"url":     {"Destination URL", func(ev *analytics.EventRecord) string { return ev.Click.URL }},
	"country": {"Country", func(ev *analytics.EventRecord) string { return countryName(ev.Click.Country) }},
	"city":    {"City", func(ev *analytics.EventRecord) string { return ev.Click.City }},
	"region": {"Region", func(ev *analytics.EventRecord) string {
		if ev.Click.Region == "" {
			return ""
		}
		return ev.Click.Country + "-" + ev.Click.Region
	}},
	"continent":  {"Continent", func(ev *analytics.EventRecord) string { return ev.Click.Continent }},
	"device":     {"Device", func(ev *analytics.EventRecord) string { return ev.Click.Device }},
	"browser":    {"Browser", func(ev *analytics.EventRecord) string { return ev.Click.Browser }},
	"os":         {"OS", func(ev *analytics.EventRecord) string { return ev.Click.OS }},
	"referer":    {"Referrer", func(ev *analytics.EventRecord) string { return ev.Click.Referer }},
	"refererUrl": {"Referrer URL", func(ev *analytics.EventRecord) string { return ev.Click.RefererURL }},
	"ip":         {"Ip", func(ev *analytics.EventRecord) string { return ev.Click.IP }},
	"clickId":    {"Click ID", func(ev *analytics.EventRecord) string { return ev.Click.ID }},
	"eventId":    {"EventId", func(ev *analytics.EventRecord) string { return ev.ID }},
	"customer": {"Customer", func(ev *analytics.EventRecord) string {
		if ev.Kind == analytics.Clicks {
			return ""
		}
		if ev.Customer.Email != "" {
			return ev.Customer.Name + " <" + ev.Customer.Email + ">"
		}
		return ev.Customer.Name
	}},
	"customerName":       {"CustomerName", func(ev *analytics.EventRecord) string { return ev.Customer.Name }},
	"customerExternalId": {"CustomerExternalId", func(ev *analytics.EventRecord) string { return ev.Customer.ExternalID }},
	"metadata":           {"Metadata", func(ev *analytics.EventRecord) string { return string(ev.Metadata) }},
	"invoiceId":          {"Invoice ID", func(ev *analytics.EventRecord) string { return ev.Sale.InvoiceID }},
	"saleAmount": {"Sale Amount", func(ev *analytics.EventRecord) string {
		if ev.Kind != analytics.Sales {
			return ""
		}
		return formatUSD(ev.Sale.Amount)
	}},
}

// defaultEventExportColumns are upstream's events table's visible columns
// per event kind, used when the request names none (upstream refuses a
// request without columns; its dashboard always sends the visible ones).
var defaultEventExportColumns = map[analytics.Event]string{
	analytics.Clicks: "timestamp,link,referer,country,device",
	analytics.Leads:  "timestamp,event,link,customer,referer",
	analytics.Sales:  "timestamp,saleAmount,event,customer,referer,link",
}

// pickEventColumns keeps the columns in the order the request names them,
// as upstream. An unknown id becomes an empty column with its capitalised
// name, as upstream's row[c] of a missing key does.
func pickEventColumns(list string) []eventExportColumn {
	var cols []eventExportColumn
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if col, ok := eventExportColumns[id]; ok {
			cols = append(cols, col)
			continue
		}
		cols = append(cols, eventExportColumn{strings.ToUpper(id[:1]) + id[1:], func(*analytics.EventRecord) string { return "" }})
	}
	return cols
}

// countryName is the English name of an ISO country code, as upstream's
// COUNTRIES table writes it; an unknown code stays as it is.
func countryName(code string) string {
	if len(code) != 2 {
		return code
	}
	r, err := language.ParseRegion(code)
	if err != nil {
		return code
	}
	if n := display.English.Regions().Name(r); n != "" && n != "Unknown Region" {
		return n
	}
	return code
}

// ExportEvents answers GET /events/export: every event of the kind and
// filters GET /events takes (its window, filters and sort order; page and
// limit ignored) as CSV with the chosen columns, named {event}_export.csv.
// Upstream answers 202 and emails a file past 1,000 events; Relink streams
// every row, a batch of analytics.ExportBatch at a time.
func (h *Handlers) ExportEvents(c *fiber.Ctx) error {
	vals := queryValues(c)
	q, err := analytics.Parse(vals, analytics.EndpointEvents, h.Now())
	if err != nil {
		return err
	}
	list, ok := vals["columns"]
	spec := defaultEventExportColumns[q.Event]
	if ok {
		spec = list[len(list)-1]
	}
	cols := pickEventColumns(spec)
	if len(cols) == 0 {
		return apierr.Validation("invalid_type", "columns", "Select at least one column to export.")
	}
	ws := request.Workspace(c)
	// One event is read before the answer starts, so that a bad filter (an
	// unknown link, a folder without access, a window past the plan) is a
	// 4xx, not a cut file.
	probe := *q
	probe.Limit = 1
	if _, err := h.Analytics.Events(c.UserContext(), ws, &probe); err != nil {
		return err
	}
	header := make([]string, len(cols))
	for i, col := range cols {
		header[i] = col.label
	}
	csvStream(c, string(q.Event)+"_export.csv", header, func(ctx context.Context, emit func([]string) error) error {
		return analytics.EachEvent(ctx, h.Analytics, ws, q, func(batch []analytics.EventRecord) error {
			for i := range batch {
				rec := make([]string, len(cols))
				for j, col := range cols {
					rec[j] = col.value(&batch[i])
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
