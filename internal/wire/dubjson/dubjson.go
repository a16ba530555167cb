// Package dubjson is the analytics part of the wire format (internal/wire):
// it shapes the analytics engine's typed answers into Dub's wire JSON
// (spec/analytics.md §4-6): the rows of GET /analytics and the event
// objects of GET /events. The API face writes these for /analytics and
// /events, the embed face for a partner's events (referrals.PartnerEvent,
// which has no IP address to write). The engine itself never sees a JSON
// key.
//
// Rows and events are maps on purpose: encoding/json writes map keys in
// sorted order, which is the byte-for-byte shape the SDK suites and the Go
// tests were written against.
package dubjson

import (
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/wire"
)

// Row is one grouped /analytics row: its own keys plus the four counters.
type Row map[string]any

func (r Row) set(c analytics.Counters) Row {
	r["clicks"], r["leads"], r["sales"], r["saleAmount"] = c.Clicks, c.Leads, c.Sales, c.SaleAmount
	return r
}

// Analytics is the JSON value of an /analytics answer: the counters object
// for groupBy=count, an array of rows otherwise.
func Analytics(res *analytics.Result) any {
	switch res.GroupBy {
	case analytics.Count:
		return res.Total
	case analytics.Timeseries:
		return Timeseries(res.Buckets)
	}
	return Groups(res.GroupBy, res.Groups)
}

// Timeseries is the rows of groupBy=timeseries.
func Timeseries(bs []analytics.Bucket) []Row {
	rows := make([]Row, 0, len(bs))
	for _, b := range bs {
		rows = append(rows, Row{"start": b.Format()}.set(b.Counters))
	}
	return rows
}

// singleKey is the row key of the groupings whose rows carry one value.
var singleKey = map[analytics.GroupBy]string{
	analytics.Continents: "continent", analytics.Devices: "device", analytics.Browsers: "browser",
	analytics.OS: "os", analytics.Trigger: "trigger", analytics.Triggers: "trigger",
	analytics.Referers: "referer", analytics.RefererURLs: "refererUrl", analytics.TopURLs: "url",
	analytics.TopBaseURLs: "url", analytics.UTMSources: "utm_source", analytics.UTMMediums: "utm_medium",
	analytics.UTMCampaigns: "utm_campaign", analytics.UTMTerms: "utm_term", analytics.UTMContents: "utm_content",
	analytics.TopDomains: "domain",
}

// Groups is the rows of every grouping but count and timeseries.
func Groups(g analytics.GroupBy, gs []analytics.Group) []Row {
	rows := make([]Row, 0, len(gs))
	for i := range gs {
		rows = append(rows, groupRow(g, &gs[i]).set(gs[i].Counters))
	}
	return rows
}

func groupRow(g analytics.GroupBy, r *analytics.Group) Row {
	if k, ok := singleKey[g]; ok {
		return Row{k: r.Key}
	}
	switch g {
	case analytics.Countries:
		return Row{"country": r.Country, "region": "*", "city": "*"}
	case analytics.Regions:
		return Row{"country": r.Country, "region": r.Region, "city": "*"}
	case analytics.Cities:
		return Row{"country": r.Country, "region": r.Region, "city": r.City}
	case analytics.TopLinks:
		return topLinkRow(r.Link)
	case analytics.TopFolders:
		f := r.Folder
		return Row{"folderId": f.ID, "folder": map[string]any{"id": f.ID, "name": f.Name, "accessLevel": f.AccessLevel}}
	case analytics.TopLinkTags:
		t := r.Tag
		return Row{"tagId": t.ID, "tag": map[string]any{"id": t.ID, "name": t.Name, "color": t.Color}}
	case analytics.TopPartners:
		p := r.Partner
		return Row{"partnerId": p.ID, "partner": map[string]any{"id": p.ID, "name": p.Name, "email": p.Email,
			"image": p.Image, "payoutsEnabledAt": optTime(p.PayoutsEnabledAt), "country": p.Country}}
	case analytics.TopGroups:
		pg := r.PartnerGroup
		return Row{"groupId": pg.ID, "group": map[string]any{"id": pg.ID, "name": pg.Name, "slug": pg.Slug, "color": nil}}
	}
	return Row{}
}

func topLinkRow(l *analytics.TopLink) Row {
	r := make(Row, 15) // room for the counters
	r["link"], r["id"], r["domain"], r["key"], r["shortLink"] = l.ID, l.ID, l.Domain, l.Key, l.ShortLink()
	r["url"], r["title"], r["comments"], r["folderId"] = l.URL, l.Title, l.Comments, l.FolderID
	r["partnerId"], r["createdAt"] = l.PartnerID, wire.Timestamp(l.CreatedAt)
	return r
}

func optTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return wire.Timestamp(*t)
}
