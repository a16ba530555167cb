// Package analytics turns GET /analytics and GET /events query strings into
// one validated Query, plans how to answer it (hourly event aggregates when
// the filters allow, the raw event tables otherwise) and runs it. There is no
// HTTP in here: handlers parse the query string into url.Values and call
// Parse, then hand the Query to an Engine.
package analytics

import (
	"context"
	"time"
	_ "time/tzdata" // IANA zones everywhere, even on hosts without zoneinfo
)

// Endpoint says which API a query came from; the schemas differ slightly.
type Endpoint int

// The two endpoints sharing the parser.
const (
	EndpointAnalytics Endpoint = iota
	EndpointEvents
)

// Event is the event type a query counts.
type Event string

// Event types. Composite is /analytics only.
const (
	Clicks    Event = "clicks"
	Leads     Event = "leads"
	Sales     Event = "sales"
	Composite Event = "composite"
)

// GroupBy is the shape of an /analytics answer.
type GroupBy string

// The 27 groupBy values (spec 4.5); Trigger is folded into Triggers by Parse.
const (
	Count          GroupBy = "count"
	Timeseries     GroupBy = "timeseries"
	Continents     GroupBy = "continents"
	Regions        GroupBy = "regions"
	Countries      GroupBy = "countries"
	Cities         GroupBy = "cities"
	Devices        GroupBy = "devices"
	Browsers       GroupBy = "browsers"
	OS             GroupBy = "os"
	Trigger        GroupBy = "trigger"
	Triggers       GroupBy = "triggers"
	Referers       GroupBy = "referers"
	RefererURLs    GroupBy = "referer_urls"
	TopFolders     GroupBy = "top_folders"
	TopLinkTags    GroupBy = "top_link_tags"
	TopDomains     GroupBy = "top_domains"
	TopLinks       GroupBy = "top_links"
	TopURLs        GroupBy = "top_urls"
	TopBaseURLs    GroupBy = "top_base_urls"
	TopPartners    GroupBy = "top_partners"
	TopGroups      GroupBy = "top_groups"
	TopPartnerTags GroupBy = "top_partner_tags"
	UTMSources     GroupBy = "utm_sources"
	UTMMediums     GroupBy = "utm_mediums"
	UTMCampaigns   GroupBy = "utm_campaigns"
	UTMTerms       GroupBy = "utm_terms"
	UTMContents    GroupBy = "utm_contents"
)

// AllGroupBys lists every accepted groupBy in the SDK's order.
var AllGroupBys = []GroupBy{Count, Timeseries, Continents, Regions, Countries, Cities, Devices,
	Browsers, OS, Trigger, Triggers, Referers, RefererURLs, TopFolders, TopLinkTags, TopDomains,
	TopLinks, TopURLs, TopBaseURLs, TopPartners, TopGroups, TopPartnerTags, UTMSources, UTMMediums,
	UTMCampaigns, UTMTerms, UTMContents}

// LinkAttribute reports a group-B grouping: keyed by the link's current
// attributes, counting only events of non-deleted links.
func (g GroupBy) LinkAttribute() bool {
	switch g {
	case TopFolders, TopLinkTags, TopDomains, TopPartners, TopGroups, TopPartnerTags:
		return true
	}
	return false
}

// Dimension reports a group-A grouping (one key per event row).
func (g GroupBy) Dimension() bool {
	return g != Count && g != Timeseries && !g.LinkAttribute()
}

// Interval is a preset window.
type Interval string

// The nine presets.
const (
	Interval24h Interval = "24h"
	Interval7d  Interval = "7d"
	Interval30d Interval = "30d"
	Interval90d Interval = "90d"
	Interval1y  Interval = "1y"
	IntervalMTD Interval = "mtd"
	IntervalQTD Interval = "qtd"
	IntervalYTD Interval = "ytd"
	IntervalAll Interval = "all"
)

// Intervals lists the presets in the schema's order.
var Intervals = []Interval{Interval24h, Interval7d, Interval30d, Interval90d, Interval1y,
	IntervalMTD, IntervalQTD, IntervalYTD, IntervalAll}

// Granularity is a timeseries bucket size.
type Granularity string

// Bucket sizes (minute exists upstream but is never chosen).
const (
	Hour  Granularity = "hour"
	Day   Granularity = "day"
	Month Granularity = "month"
)

// Filter is one multi-value parameter: IN (Values) or, when Negate, NOT IN.
// The zero value (no values) means "no filter".
type Filter struct {
	Values []string
	Negate bool
}

// Set reports whether the filter restricts anything.
func (f Filter) Set() bool { return len(f.Values) > 0 }

// Match evaluates the filter against one value in Go.
func (f Filter) Match(v string) bool {
	if !f.Set() {
		return true
	}
	in := false
	for _, x := range f.Values {
		if x == v {
			in = true
			break
		}
	}
	return in != f.Negate
}

// SaleType restricts sales to first or repeat purchases (spec 7.3).
type SaleType string

// Sale types.
const (
	SaleNew       SaleType = "new"
	SaleRecurring SaleType = "recurring"
)

// Query is one validated /analytics or /events request.
type Query struct {
	Endpoint Endpoint
	Event    Event
	GroupBy  GroupBy // Count for /events (unused there)

	// FolderAccess, when set, is asked whether the caller may read the
	// folder checked in spec 4.3 (the first folderId, else the resolved
	// link's): upstream's verifyFolderAccess with folders.read
	// (spec/parity.md §13.3). The engine checks the folder exists first.
	FolderAccess func(ctx context.Context, folderID string) error `json:"-"`

	// Link resolution inputs (spec 4.3).
	Key        string
	ExternalID string

	// Link-level filters.
	Domain       Filter
	LinkID       Filter
	TenantID     Filter
	TagID        Filter
	FolderID     Filter
	PartnerTagID Filter
	GroupID      Filter
	PartnerID    Filter
	ProgramID    string
	Root         *bool

	// Event-level filters.
	CustomerID  string
	Country     Filter
	City        Filter
	Region      string // subdivision code RR of a "CC-RR" region filter; Country then holds [CC]
	Continent   Filter
	Device      Filter
	Browser     Filter
	OS          Filter
	Trigger     Filter
	Referer     Filter
	RefererURL  Filter
	URL         Filter
	UTMSource   Filter
	UTMMedium   Filter
	UTMCampaign Filter
	UTMTerm     Filter
	UTMContent  Filter
	SaleType    SaleType
	Metadata    []Condition // leads and sales only

	// Time.
	Interval Interval // "" when not given (the window then defaults to 30d)
	Start    *time.Time
	End      *time.Time
	TZ       *time.Location

	// /events paging.
	Page      int
	Limit     int
	SortOrder string // "asc" | "desc"
}

// LinkFiltered reports whether a link-level filter other than linkId is set:
// such queries only count events of existing links matching it.
func (q *Query) LinkFiltered() bool {
	return q.Domain.Set() || q.TenantID.Set() || q.TagID.Set() || q.FolderID.Set() ||
		q.PartnerTagID.Set() || q.GroupID.Set() || q.PartnerID.Set() || q.ProgramID != "" || q.Root != nil
}

// EffectiveInterval is the preset in force (30d when none was given).
func (q *Query) EffectiveInterval() Interval {
	if q.Interval == "" {
		return Interval30d
	}
	return q.Interval
}
