package analytics

import (
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/interval"
)

// Parse validates a query string into a Query. Checks run in the schema's
// parameter order (spec 4.1 / 6.1) and the first failure is returned as a
// 422 *apierr.Error with the spec's message. A repeated key's last value
// wins; unknown keys are ignored. now is the request time (relative dates).
func Parse(vals url.Values, ep Endpoint, now time.Time) (*Query, error) {
	p := params{input.Query{Vals: vals}}
	q := &Query{Endpoint: ep, Event: Clicks, GroupBy: Count, TZ: time.UTC, Page: 1, Limit: 100, SortOrder: "desc"}

	if err := p.kind(q, ep); err != nil {
		return nil, err
	}
	q.Domain = p.multi("domain")
	q.Key = p.str("key")
	q.LinkID = p.multi("linkId")
	q.ExternalID = p.str("externalId")
	q.TenantID = p.multi("tenantId")
	q.TagID = p.multi("tagId")
	q.FolderID = p.multi("folderId")
	q.PartnerTagID = p.multi("partnerTagId")
	q.GroupID = p.multi("groupId")
	q.PartnerID = p.multi("partnerId")
	q.CustomerID = p.str("customerId")

	if err := p.window(q, now); err != nil {
		return nil, err
	}

	p.eventFilters(q)

	root, err := p.boolean("root")
	if err != nil {
		return nil, err
	}
	q.Root = root
	if v, ok := p.get("saleType"); ok {
		switch st := SaleType(v); st {
		case SaleNew, SaleRecurring:
			q.SaleType = st
		default:
			return nil, apierr.Validation("invalid_value", "saleType", `Invalid option: expected one of "new"|"recurring"`)
		}
	}
	if v, ok := p.get("query"); ok {
		if len([]rune(v)) > MaxQueryLen {
			return nil, apierr.Validation("too_big", "query", "Too big: expected string to have <=10000 characters")
		}
		q.Metadata = ParseMetadataQuery(v)
	}
	q.ProgramID = p.str("programId")
	if tagIDs := p.multi("tagIds"); ep == EndpointAnalytics && !q.TagID.Set() {
		q.TagID = tagIDs
	}
	qr, err := p.boolean("qr")
	if err != nil {
		return nil, err
	}
	if qr != nil && *qr && !q.Trigger.Set() {
		q.Trigger = Filter{Values: []string{"qr"}}
	}

	if ep == EndpointEvents {
		if err := p.paging(q); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// kind reads event and groupBy (groupBy is ignored by /events).
func (p params) kind(q *Query, ep Endpoint) error {
	// event
	if v, ok := p.get("event"); ok {
		switch e := Event(v); e {
		case Clicks, Leads, Sales:
			q.Event = e
		case Composite:
			if ep == EndpointEvents {
				return invalidEventsEvent()
			}
			q.Event = e
		default:
			if ep == EndpointEvents {
				return invalidEventsEvent()
			}
			return apierr.Validation("invalid_value", "event", "Invalid event type. Valid event types are: clicks, leads, sales")
		}
	}
	// groupBy (ignored by /events)
	if v, ok := p.get("groupBy"); ok && ep == EndpointAnalytics {
		g := GroupBy(v)
		if !validGroupBy(g) {
			return apierr.Validation("invalid_value", "groupBy", "Invalid type value. Valid values are: count, timeseries, continents, regions, countries, cities, devices, browsers, os, triggers, referers, referer_urls, top_folders, top_link_tags, top_domains, top_links, top_urls, top_base_urls, top_partners, top_groups, top_partner_tags, utm_sources, utm_mediums, utm_campaigns, utm_terms, utm_contents.")
		}
		if g == Trigger {
			g = Triggers
		}
		q.GroupBy = g
	}
	return nil
}

// window reads interval, start, end and timezone.
func (p params) window(q *Query, now time.Time) error {
	// interval, start, end, timezone
	if v, ok := p.get("interval"); ok {
		i := Interval(v)
		if !validInterval(i) {
			return apierr.Validation("invalid_value", "interval", `Invalid option: expected one of "24h"|"7d"|"30d"|"90d"|"1y"|"mtd"|"qtd"|"ytd"|"all"`)
		}
		q.Interval = i
	}
	if v, ok := p.get("start"); ok {
		t, ok := ParseDate(v, now)
		if !ok {
			return apierr.Validation("custom", "start", "Invalid date")
		}
		if msg := interval.Bounds("start", t); msg != "" {
			return apierr.Validation("custom", "start", msg)
		}
		q.Start = &t
	}
	if v, ok := p.get("end"); ok {
		t, ok := ParseDate(v, now)
		if !ok {
			return apierr.Validation("custom", "end", "Invalid date")
		}
		if msg := interval.Bounds("end", t); msg != "" {
			return apierr.Validation("custom", "end", msg)
		}
		q.End = &t
	}
	q.TZ = loadZone(p.str("timezone"))
	return nil
}

func invalidEventsEvent() error {
	return apierr.Validation("invalid_value", "event", `Invalid option: expected one of "clicks"|"leads"|"sales"`)
}

func validGroupBy(g GroupBy) bool {
	for _, x := range AllGroupBys {
		if x == g {
			return true
		}
	}
	return false
}

func validInterval(i Interval) bool {
	for _, x := range Intervals {
		if x == i {
			return true
		}
	}
	return false
}

// loadZone resolves an IANA name; anything unknown is UTC (spec 3.2).
func loadZone(name string) *time.Location {
	if name == "" || name == "Local" || len(name) > 64 {
		return time.UTC
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// capitalized upper-cases the first letter of every space-separated word of
// each value (upstream's device/browser/os normalisation, spec 2.2); for os
// the exact value "iOS" is kept.
func capitalized(f Filter, keepIOS bool) Filter {
	for i, v := range f.Values {
		if keepIOS && v == "iOS" {
			continue
		}
		words := strings.Split(v, " ")
		for j, w := range words {
			if w == "" {
				continue
			}
			r := []rune(w)
			r[0] = []rune(strings.ToUpper(string(r[0])))[0]
			words[j] = string(r)
		}
		f.Values[i] = strings.Join(words, " ")
	}
	return f
}

// params reads the query string with the one input reader
// (internal/input); multi and paging are the analytics-specific parts.
type params struct{ input.Query }

func (p params) get(key string) (string, bool) { return p.Get(key) }

func (p params) str(key string) string { return p.Str(key) }

func (p params) boolean(key string) (*bool, error) { return p.Bool(key) }

// multi parses the advanced-filter syntax (spec 2.1).
func (p params) multi(key string) Filter {
	v := p.str(key)
	if v == "" {
		return Filter{}
	}
	var f Filter
	if strings.HasPrefix(v, "-") {
		f.Negate = true
		v = v[1:]
	}
	for _, x := range strings.Split(v, ",") {
		if x != "" {
			f.Values = append(f.Values, x)
		}
	}
	if len(f.Values) == 0 {
		return Filter{}
	}
	return f
}

// paging reads /events' page, limit, sortBy, sortOrder and order.
func (p params) paging(q *Query) error {
	if v, ok := p.get("page"); ok {
		n, err := positiveInt(v, "page", "Page")
		if err != nil {
			return err
		}
		q.Page = n
	}
	if v, ok := p.get("limit"); ok {
		n, err := positiveInt(v, "limit", "Page size")
		if err != nil {
			return err
		}
		if n > 1000 {
			return apierr.Validation("too_big", "limit", "Max page size is 1000.")
		}
		q.Limit = n
	}
	if v, ok := p.get("sortBy"); ok && v != "timestamp" {
		return apierr.Validation("invalid_value", "sortBy", `Invalid input: expected "timestamp"`)
	}
	order := func(key string) (string, error) {
		v, ok := p.get(key)
		if !ok {
			return "", nil
		}
		if v != "asc" && v != "desc" {
			return "", apierr.Validation("invalid_value", key, `Invalid option: expected one of "asc"|"desc"`)
		}
		return v, nil
	}
	so, err := order("sortOrder")
	if err != nil {
		return err
	}
	if so != "" {
		q.SortOrder = so
	}
	o, err := order("order")
	if err != nil {
		return err
	}
	if o != "" && o != "desc" {
		q.SortOrder = o
	}
	return nil
}

// positiveInt is input.PositiveInt, with /events' own message for a
// limit over the maximum page size.
func positiveInt(v, field, label string) (int, error) {
	n, err := input.PositiveInt(v, field, label)
	if err != nil && field == "limit" && apierr.Is(err, apierr.Unprocessable) && strings.HasPrefix(apierr.As(err).Message, "too_big") {
		return 0, apierr.Validation("too_big", "limit", "Max page size is 1000.")
	}
	return n, err
}

// eventFilters reads the event-level filters (spec 2.1, 2.2).
func (p params) eventFilters(q *Query) {
	q.Country = p.multi("country")
	q.City = p.multi("city")
	if r := p.str("region"); r != "" {
		cc, rr, _ := strings.Cut(r, "-")
		q.Country = Filter{Values: []string{cc}}
		q.Region = rr
	}
	q.Continent = p.multi("continent")
	q.Device = capitalized(p.multi("device"), false)
	q.Browser = capitalized(p.multi("browser"), false)
	q.OS = capitalized(p.multi("os"), true)
	q.Trigger = p.multi("trigger")
	q.Referer = p.multi("referer")
	q.RefererURL = p.multi("refererUrl")
	q.URL = p.multi("url")
	q.UTMSource = p.multi("utm_source")
	q.UTMMedium = p.multi("utm_medium")
	q.UTMCampaign = p.multi("utm_campaign")
	q.UTMTerm = p.multi("utm_term")
	q.UTMContent = p.multi("utm_content")
}
