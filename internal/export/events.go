package export

import (
	"context"
	"net/url"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// eventColumn is one column GET /events/export knows: upstream's label
// (eventsExportColumnNames, else the capitalised id) and its value.
type eventColumn struct {
	label string
	value func(ev *analytics.EventRecord) string
}

// eventColumns are the columns of upstream's events table (every
// event kind's), with upstream's labels and accessors. Where upstream reads
// a key the event object does not have (customerName, region), Relink
// writes what the column's name says.
var eventColumns = map[string]eventColumn{
	"timestamp": {"Date", func(ev *analytics.EventRecord) string { return timestamp(ev.Timestamp) }},
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
		return FormatUSD(ev.Sale.Amount)
	}},
}

// DefaultEventColumns are upstream's events table's visible columns
// per event kind, used when the request names none (upstream refuses a
// request without columns; its dashboard always sends the visible ones).
var DefaultEventColumns = map[analytics.Event]string{
	analytics.Clicks: "timestamp,link,referer,country,device",
	analytics.Leads:  "timestamp,event,link,customer,referer",
	analytics.Sales:  "timestamp,saleAmount,event,customer,referer,link",
}

// pickEventColumns keeps the columns in the order the request names them,
// as upstream. An unknown id becomes an empty column with its capitalised
// name, as upstream's row[c] of a missing key does.
func pickEventColumns(list string) []eventColumn {
	var cols []eventColumn
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if col, ok := eventColumns[id]; ok {
			cols = append(cols, col)
			continue
		}
		cols = append(cols, eventColumn{strings.ToUpper(id[:1]) + id[1:], func(*analytics.EventRecord) string { return "" }})
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

// Events is the events export ({event}_export.csv): every event of the
// kind and filters GET /events takes in vals (its window, filters and sort
// order; page and limit ignored), with the columns vals names in columns
// (comma-separated ids, in their order; without it upstream's visible
// columns for the kind). One event is read before it returns, so that a
// bad filter (an unknown link, a folder without access, a window past the
// plan) is an error here, not a cut file. Rows are read a batch of
// analytics.ExportBatch at a time.
func Events(ctx context.Context, eng analytics.Engine, ws *models.Workspace, vals url.Values, now time.Time) (Download, error) {
	q, err := analytics.Parse(vals, analytics.EndpointEvents, now)
	if err != nil {
		return Download{}, err
	}
	spec := DefaultEventColumns[q.Event]
	if list, ok := vals["columns"]; ok {
		spec = list[len(list)-1]
	}
	cols := pickEventColumns(spec)
	if len(cols) == 0 {
		return Download{}, apierr.Validation("invalid_type", "columns", "Select at least one column to export.")
	}
	probe := *q
	probe.Limit = 1
	if _, err := eng.Events(ctx, ws, &probe); err != nil {
		return Download{}, err
	}
	header := make([]string, len(cols))
	for i, col := range cols {
		header[i] = col.label
	}
	return CSV(string(q.Event)+"_export.csv", header, func(ctx context.Context, emit Emit) error {
		return analytics.EachEvent(ctx, eng, ws, q, func(batch []analytics.EventRecord) error {
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
	}), nil
}

// eventColumnsByKind are upstream's events table's columns per event kind
// (its eventColumns.all), in its order.
var eventColumnsByKind = map[analytics.Event][]string{
	analytics.Clicks: {"timestamp", "trigger", "link", "url", "country", "city", "region", "continent", "device", "browser", "os", "referer", "refererUrl", "clickId", "ip"},
	analytics.Leads: {"timestamp", "event", "link", "url", "customer", "customerName", "customerExternalId", "country", "city", "region", "continent",
		"device", "browser", "os", "referer", "refererUrl", "ip", "clickId", "eventId", "metadata"},
	analytics.Sales: {"timestamp", "saleAmount", "event", "customer", "customerName", "customerExternalId", "link", "url", "invoiceId", "country", "city",
		"region", "continent", "device", "browser", "os", "referer", "refererUrl", "ip", "clickId", "eventId", "metadata"},
}

// Column is one column a download form offers: its id, label, and whether
// upstream shows it by default.
type Column struct {
	ID, Label string
	Default   bool
}

// EventColumns are the columns an events download of kind ev offers.
func EventColumns(ev analytics.Event) []Column {
	def := map[string]bool{}
	for _, id := range strings.Split(DefaultEventColumns[ev], ",") {
		def[id] = true
	}
	var out []Column
	for _, id := range eventColumnsByKind[ev] {
		out = append(out, Column{ID: id, Label: eventColumns[id].label, Default: def[id]})
	}
	return out
}
