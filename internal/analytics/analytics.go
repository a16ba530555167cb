package analytics

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/relinkhq/relink/models"
)

// RowLimit caps every grouped aggregation (spec 4.5).
const RowLimit = 5000

// Counters are the four numbers every /analytics row carries.
type Counters struct {
	Clicks     int64 `json:"clicks"`
	Leads      int64 `json:"leads"`
	Sales      int64 `json:"sales"`
	SaleAmount int64 `json:"saleAmount"`
}

// Row is one grouped /analytics row: its own keys plus the counters.
type Row map[string]any

func (r Row) set(c Counters) Row {
	r["clicks"], r["leads"], r["sales"], r["saleAmount"] = c.Clicks, c.Leads, c.Sales, c.SaleAmount
	return r
}

func kindsOf(ev Event) []kind {
	switch ev {
	case Leads:
		return []kind{kLead}
	case Sales:
		return []kind{kSale}
	case Composite:
		return []kind{kClick, kLead, kSale}
	}
	return []kind{kClick}
}

func (c *Counters) add(k kind, v counts) {
	switch k {
	case kClick:
		c.Clicks += v.n
	case kLead:
		c.Leads += v.n
	default:
		c.Sales += v.n
		c.SaleAmount += v.amount
	}
}

// Analytics answers GET /analytics: a Counters value for groupBy=count, a
// []Row otherwise.
func (e *Engine) Analytics(ctx context.Context, ws *models.Workspace, q *Query) (any, error) {
	s, err := e.prepare(ctx, ws, q)
	if err != nil {
		return nil, err
	}
	switch {
	case q.GroupBy == Count:
		var c Counters
		ms, err := e.measureAll(ctx, s, keySpec{kind: keyTotal})
		if err != nil {
			return nil, err
		}
		for i, k := range kindsOf(q.Event) {
			for _, v := range ms[i] {
				c.add(k, v)
			}
		}
		return c, nil
	case q.GroupBy == Timeseries:
		return e.timeseries(ctx, s)
	case q.GroupBy.LinkAttribute():
		return e.linkAttributes(ctx, s)
	}
	return e.dimension(ctx, s)
}

func (e *Engine) timeseries(ctx context.Context, s *scope) ([]Row, error) {
	buckets := s.win.Buckets()
	byKey := make(map[string]*Counters, len(buckets))
	rows := make([]Row, 0, len(buckets))
	cs := make([]Counters, len(buckets))
	for i, b := range buckets {
		byKey[bucketKey(b)] = &cs[i]
	}
	ms, err := e.measureAll(ctx, s, keySpec{kind: keyTime})
	if err != nil {
		return nil, err
	}
	for i, k := range kindsOf(s.q.Event) {
		for key, v := range ms[i] {
			if c := byKey[key]; c != nil {
				c.add(k, v)
			}
		}
	}
	for i, b := range buckets {
		rows = append(rows, Row{"start": s.win.FormatBucket(b)}.set(cs[i]))
	}
	return rows, nil
}

// dimSpec says how a group-A groupBy reads and folds its dimension.
type dimSpec struct {
	dim  string                // models.AggregateDims key or DimURLQuery; "" = by link
	fold func(v string) string // raw key → output key ("" drops the row)
	row  func(key string) Row  // output key → row keys
}

func dropUnknown(v string) string {
	if v == "Unknown" {
		return ""
	}
	return v
}

func cutQuery(v string) string {
	if i := strings.IndexByte(v, '?'); i >= 0 {
		return v[:i]
	}
	return v
}

func utmParam(name string) func(string) string {
	return func(v string) string {
		i := strings.IndexByte(v, '?')
		if i < 0 {
			return ""
		}
		raw := v[i+1:]
		if j := strings.IndexByte(raw, '#'); j >= 0 {
			raw = raw[:j]
		}
		qs, err := url.ParseQuery(raw)
		if err != nil {
			// keep what parses, like URLSearchParams
			qs = url.Values{}
			for _, kv := range strings.Split(raw, "&") {
				k, val, _ := strings.Cut(kv, "=")
				if k == name {
					if d, err := url.QueryUnescape(val); err == nil {
						qs.Set(k, d)
					}
				}
			}
		}
		return qs.Get(name)
	}
}

func single(field string) func(string) Row {
	return func(k string) Row { return Row{field: k} }
}

var validEnum = map[string]map[string]bool{
	"continent": {"AF": true, "AN": true, "AS": true, "EU": true, "NA": true, "OC": true, "SA": true},
	"trigger":   {"qr": true, "link": true, "pageview": true, "deeplink": true},
}

func enumOnly(field string) func(string) string {
	return func(v string) string {
		if validEnum[field][v] {
			return v
		}
		return ""
	}
}

func split(v string) []string { return strings.Split(v, models.KeySep) }

// geoFold is the one rule of the geo groupings (analytics.md §4.5, issue 13):
// a row whose own value is unknown ("" or "Unknown") is dropped, as
// countries and continents drop theirs. For the composite keys of regions
// (country, region) and cities (country, region, city) that value is the
// last part, so "US-Unknown" regions and unknown cities count nowhere.
func geoFold(parts int) func(string) string {
	return func(v string) string {
		p := split(v)
		if len(p) != parts || dropUnknown(p[parts-1]) == "" {
			return ""
		}
		return v
	}
}

var dimSpecs = map[GroupBy]dimSpec{
	Continents: {dim: "continent", fold: enumOnly("continent"), row: single("continent")},
	Regions: {dim: "region", fold: geoFold(2), row: func(k string) Row {
		p := split(k)
		return Row{"country": p[0], "region": p[0] + "-" + p[1], "city": "*"}
	}},
	Countries: {dim: "country", fold: dropUnknown, row: func(k string) Row { return Row{"country": k, "region": "*", "city": "*"} }},
	Cities: {dim: "city", fold: geoFold(3), row: func(k string) Row {
		p := split(k)
		return Row{"country": p[0], "region": p[0] + "-" + p[1], "city": p[2]}
	}},
	Devices:      {dim: "device", fold: dropUnknown, row: single("device")},
	Browsers:     {dim: "browser", fold: dropUnknown, row: single("browser")},
	OS:           {dim: "os", fold: dropUnknown, row: single("os")},
	Triggers:     {dim: "trigger", fold: enumOnly("trigger"), row: single("trigger")},
	Referers:     {dim: "referer", fold: dropUnknown, row: single("referer")},
	RefererURLs:  {dim: "referer_url", fold: func(v string) string { return dropUnknown(cutQuery(v)) }, row: single("refererUrl")},
	TopURLs:      {dim: "url", fold: dropUnknown, row: single("url")},
	TopBaseURLs:  {dim: "url", fold: func(v string) string { return dropUnknown(cutQuery(v)) }, row: single("url")},
	UTMSources:   {dim: models.DimURLQuery, fold: utmParam("utm_source"), row: single("utm_source")},
	UTMMediums:   {dim: models.DimURLQuery, fold: utmParam("utm_medium"), row: single("utm_medium")},
	UTMCampaigns: {dim: models.DimURLQuery, fold: utmParam("utm_campaign"), row: single("utm_campaign")},
	UTMTerms:     {dim: models.DimURLQuery, fold: utmParam("utm_term"), row: single("utm_term")},
	UTMContents:  {dim: models.DimURLQuery, fold: utmParam("utm_content"), row: single("utm_content")},
	TopLinks:     {fold: func(v string) string { return v }},
}

// ranked is one kind's rows for a grouping, best first, cut at RowLimit.
type ranked struct {
	keys []string
	vals map[string]counts
}

func rank(k kind, m map[string]counts) ranked {
	keys := make([]string, 0, len(m))
	for key, v := range m {
		if v.n > 0 || v.amount != 0 {
			keys = append(keys, key)
		}
	}
	main := func(v counts) int64 {
		if k == kSale {
			return v.amount
		}
		return v.n
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := main(m[keys[i]]), main(m[keys[j]])
		if a != b {
			return a > b
		}
		return keys[i] < keys[j]
	})
	if len(keys) > RowLimit {
		keys = keys[:RowLimit]
	}
	return ranked{keys: keys, vals: m}
}

// combine joins the per-kind rankings: a single kind keeps its order;
// composite is driven by the click keys (spec 4.2), each other kind
// contributing only from within its own top list.
func combine(ev Event, per map[kind]ranked, orderBySaleAmount bool) ([]string, map[string]*Counters) {
	out := map[string]*Counters{}
	var keys []string
	kinds := kindsOf(ev)
	driver := per[kinds[0]]
	for _, key := range driver.keys {
		c := &Counters{}
		c.add(kinds[0], driver.vals[key])
		out[key] = c
		keys = append(keys, key)
	}
	for _, k := range kinds[1:] {
		r := per[k]
		for _, key := range r.keys {
			if c := out[key]; c != nil {
				c.add(k, r.vals[key])
			}
		}
	}
	if ev == Composite && orderBySaleAmount {
		sort.SliceStable(keys, func(i, j int) bool { return out[keys[i]].SaleAmount > out[keys[j]].SaleAmount })
	}
	return keys, out
}

func (e *Engine) dimension(ctx context.Context, s *scope) ([]Row, error) {
	spec := dimSpecs[s.q.GroupBy]
	key := keySpec{kind: keyDim, dim: spec.dim}
	if s.q.GroupBy == TopLinks {
		key = keySpec{kind: keyLink}
	}
	per := map[kind]ranked{}
	ms, err := e.measureAll(ctx, s, key)
	if err != nil {
		return nil, err
	}
	for i, k := range kindsOf(s.q.Event) {
		folded := make(map[string]counts, len(ms[i]))
		for raw, v := range ms[i] {
			fk := spec.fold(raw)
			if fk == "" {
				continue
			}
			o := folded[fk]
			o.n += v.n
			o.amount += v.amount
			folded[fk] = o
		}
		per[k] = rank(k, folded)
	}
	keys, cs := combine(s.q.Event, per, false)
	rows := make([]Row, 0, len(keys))
	if s.q.GroupBy == TopLinks {
		links, err := e.topLinks(ctx, s.wsID, keys)
		if err != nil {
			return nil, err
		}
		for _, id := range keys {
			l := links[id]
			if l == nil {
				continue // deleted links are dropped
			}
			rows = append(rows, topLinkRow(l, e.shortLink(l.Domain, l.Key)).set(*cs[id]))
		}
		return rows, nil
	}
	for _, k := range keys {
		rows = append(rows, spec.row(k).set(*cs[k]))
	}
	return rows, nil
}

// topLink is the part of a link a top_links row shows.
type topLink struct {
	ID, Domain, Key, URL string
	Title, Comments      *string
	FolderID, PartnerID  *string
	CreatedAt            time.Time
}

// topLinks loads the workspace's existing links among ids: by id for a
// few, by one scan of the workspace's links for many.
func (e *Engine) topLinks(ctx context.Context, wsID string, ids []string) (map[string]*topLink, error) {
	out := make(map[string]*topLink, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	q := e.DB.WithContext(ctx).Table("links").Select("id, domain, key, url, title, comments, folder_id, partner_id, created_at").Where("workspace_id = ?", wsID)
	if len(ids) <= manyLinks {
		q = q.Where("id IN ?", ids)
	}
	// Scanned by hand: reflection over a thousand links cost more than the query.
	rows, err := q.Rows()
	if err != nil {
		return nil, fmt.Errorf("load top links: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		l := &topLink{}
		if err := rows.Scan(&l.ID, &l.Domain, &l.Key, &l.URL, &l.Title, &l.Comments, &l.FolderID, &l.PartnerID, &l.CreatedAt); err != nil {
			return nil, fmt.Errorf("load top links: %w", err)
		}
		out[l.ID] = l
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load top links: %w", err)
	}
	return out, nil
}

func topLinkRow(l *topLink, short string) Row {
	r := make(Row, 15) // room for the counters
	r["link"], r["id"], r["domain"], r["key"], r["shortLink"] = l.ID, l.ID, l.Domain, l.Key, short
	r["url"], r["title"], r["comments"], r["folderId"] = l.URL, l.Title, l.Comments, l.FolderID
	r["partnerId"], r["createdAt"] = l.PartnerID, isoMillis(l.CreatedAt)
	return r
}

// manyLinks is where link lookups switch from an id list to one scan of
// the workspace's links.
var manyLinks = 200
