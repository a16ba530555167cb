package analytics

import (
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/models"
)

// kind is one event table.
type kind struct {
	agg   string // models.AggClick …
	table string
}

var (
	kClick = kind{models.AggClick, "clicks"}
	kLead  = kind{models.AggLead, "lead_events"}
	kSale  = kind{models.AggSale, "sale_events"}
)

// where accumulates an SQL condition list with its arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return "1=1"
	}
	return strings.Join(w.conds, " AND ")
}

// in adds col IN / NOT IN for a filter.
func (w *where) in(col string, f Filter) {
	if !f.Set() {
		return
	}
	if f.Negate {
		w.add(col+" NOT IN ?", f.Values)
	} else {
		w.add(col+" IN ?", f.Values)
	}
}

// dialect helpers
type dialect string

func (d dialect) contains(col string) string {
	if d == "postgres" {
		return "strpos(" + col + ", ?) > 0"
	}
	return "instr(" + col + ", ?) > 0"
}

// truncTime renders an event timestamp truncated to the UTC hour
// ("2006-01-02 15") or minute ("2006-01-02 15:04") as text, the same on
// both dialects (SQLite stores times as UTC text).
func (d dialect) truncTime(col string, minute bool) string {
	if d == "postgres" {
		if minute {
			return "to_char(" + col + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')"
		}
		return "to_char(" + col + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24')"
	}
	if minute {
		return "substr(" + col + ", 1, 16)"
	}
	return "substr(" + col + ", 1, 13)"
}

func parseTrunc(s string) (time.Time, bool) {
	layout := "2006-01-02 15"
	if len(s) == 16 {
		layout = "2006-01-02 15:04"
	}
	t, err := time.Parse(layout, s)
	return t, err == nil
}

// metadataValue is the SQL of a metadata key's value as the evaluator sees
// it: the value when it is a JSON string, else ”.
func (d dialect) metadataValue(key string) (string, []any) {
	if d == "postgres" {
		return "(CASE WHEN jsonb_typeof(metadata::jsonb -> ?) = 'string' THEN metadata::jsonb ->> ? ELSE '' END)", []any{key, key}
	}
	p := `$."` + key + `"`
	return "(CASE WHEN json_valid(metadata) AND json_type(metadata, ?) = 'text' THEN json_extract(metadata, ?) ELSE '' END)", []any{p, p}
}

// numeric is the SQL of a value converted to a number, NULL when it is not
// one (Numeric's rule), with its arguments: expr (whose arguments are args)
// appears more than once, so its arguments do too. The PostgreSQL pattern
// spells its optional parts {0,1}: a ? there would be read as a
// placeholder.
func (d dialect) numeric(expr string, args []any) (string, []any) {
	repeat := func(n int) []any {
		out := make([]any, 0, n*len(args))
		for range n {
			out = append(out, args...)
		}
		return out
	}
	if d == "postgres" {
		return "(CASE WHEN " + expr + ` ~ '^\s*[-+]{0,1}([0-9]+\.{0,1}[0-9]*|\.[0-9]+)([eE][-+]{0,1}[0-9]+){0,1}\s*$' THEN CAST(` + expr + " AS DOUBLE PRECISION) END)", repeat(2)
	}
	return "(CASE WHEN trim(" + expr + ") <> '' AND trim(" + expr + ") GLOB '*[0-9]*' AND trim(" + expr + ") NOT GLOB '*[^0-9.eE+-]*' THEN CAST(trim(" + expr + ") AS REAL) END)", repeat(4)
}

// eventFilters adds the event-level filters of q for one event kind.
func eventFilters(w *where, d dialect, q *Query, k kind, wsID string) {
	if q.CustomerID != "" {
		if k == kClick {
			w.add("click_id IN (SELECT click_id FROM lead_events WHERE workspace_id = ? AND customer_id = ?)", wsID, q.CustomerID)
		} else {
			w.add("customer_id = ?", q.CustomerID)
		}
	}
	w.in("country", q.Country)
	if q.Region != "" {
		w.add("region = ?", q.Region)
	}
	w.in("city", q.City)
	w.in("continent", q.Continent)
	w.in("device", q.Device)
	w.in("browser", q.Browser)
	w.in("os", q.OS)
	w.in("trigger", q.Trigger)
	w.in("referer", q.Referer)
	w.in(d.cutQuery("referer_url"), q.RefererURL)
	w.in(d.cutQuery("url"), q.URL)
	for _, u := range []struct {
		param string
		f     Filter
	}{{"utm_source", q.UTMSource}, {"utm_medium", q.UTMMedium}, {"utm_campaign", q.UTMCampaign}, {"utm_term", q.UTMTerm}, {"utm_content", q.UTMContent}} {
		if !u.f.Set() {
			continue
		}
		var ors []string
		var args []any
		for _, v := range u.f.Values {
			ors = append(ors, d.contains("url"))
			args = append(args, u.param+"="+url.QueryEscape(v))
		}
		cond := "(" + strings.Join(ors, " OR ") + ")"
		if u.f.Negate {
			cond = "NOT " + cond
		}
		w.add(cond, args...)
	}
	if k == kSale && q.SaleType != "" {
		op := "="
		if q.SaleType == SaleRecurring {
			op = ">"
		}
		w.add("timestamp " + op + " (SELECT MIN(s2.timestamp) FROM sale_events s2 WHERE s2.workspace_id = sale_events.workspace_id AND s2.link_id = sale_events.link_id AND s2.customer_id = sale_events.customer_id)")
	}
	if k != kClick {
		for _, c := range q.Metadata {
			if !c.IsMetadata() {
				continue
			}
			expr, args := d.metadataValue(c.Key())
			switch c.Op {
			case OpEq:
				w.add(expr+" = ?", append(args, c.Value)...)
			case OpNe:
				w.add(expr+" <> ?", append(args, c.Value)...)
			default:
				b, ok := Numeric(c.Value)
				if !ok {
					w.add("1 = 0")
					continue
				}
				op := map[Op]string{OpGt: ">", OpLt: "<", OpGte: ">=", OpLte: "<="}[c.Op]
				num, numArgs := d.numeric(expr, args)
				w.add(num+" "+op+" ?", append(numArgs, b)...)
			}
		}
	}
}

// hasEventFilters reports whether q filters event rows of kind k on
// anything the aggregates do not key (so only the raw table can answer).
func hasEventFilters(q *Query, k kind) bool {
	if q.CustomerID != "" || q.Country.Set() || q.Region != "" || q.City.Set() || q.Continent.Set() ||
		q.Device.Set() || q.Browser.Set() || q.OS.Set() || q.Trigger.Set() || q.Referer.Set() ||
		q.RefererURL.Set() || q.URL.Set() || q.UTMSource.Set() || q.UTMMedium.Set() ||
		q.UTMCampaign.Set() || q.UTMTerm.Set() || q.UTMContent.Set() {
		return true
	}
	if k == kSale && q.SaleType != "" {
		return true
	}
	if k != kClick {
		for _, c := range q.Metadata {
			if c.IsMetadata() {
				return true
			}
		}
	}
	return false
}

// dimFilter is an event-level filter that the per-dimension aggregates can
// apply themselves: a filter on one single-column dimension.
type dimFilter struct {
	dim string
	f   Filter
}

// aggregateFilter returns the query's event-level filter for kind k when it
// is the only one and is on a single-column aggregate dimension.
func aggregateFilter(q *Query, k kind) (*dimFilter, bool) {
	if q.CustomerID != "" || q.Region != "" || q.City.Set() || q.RefererURL.Set() || q.URL.Set() ||
		q.UTMSource.Set() || q.UTMMedium.Set() || q.UTMCampaign.Set() || q.UTMTerm.Set() || q.UTMContent.Set() ||
		(k == kSale && q.SaleType != "") {
		return nil, false
	}
	if k != kClick {
		for _, c := range q.Metadata {
			if c.IsMetadata() {
				return nil, false
			}
		}
	}
	var found *dimFilter
	for _, c := range []dimFilter{{"country", q.Country}, {"continent", q.Continent}, {"device", q.Device},
		{"browser", q.Browser}, {"os", q.OS}, {"trigger", q.Trigger}, {"referer", q.Referer}} {
		if !c.f.Set() {
			continue
		}
		if found != nil {
			return nil, false
		}
		found = &c
	}
	return found, found != nil
}
