package analytics

import (
	"context"
	"net/url"
	"sort"
	"strings"

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

// Analytics answers GET /analytics: Total for groupBy=count, Buckets for
// timeseries, Groups otherwise.
func (e *SQLEngine) Analytics(ctx context.Context, ws *models.Workspace, q *Query) (*Result, error) {
	s, err := e.prepare(ctx, ws, q)
	if err != nil {
		return nil, err
	}
	res := &Result{GroupBy: q.GroupBy}
	switch {
	case q.GroupBy == Count:
		ms, err := e.measureAll(ctx, s, keySpec{kind: keyTotal})
		if err != nil {
			return nil, err
		}
		for i, k := range kindsOf(q.Event) {
			for _, v := range ms[i] {
				res.Total.add(k, v)
			}
		}
	case q.GroupBy == Timeseries:
		res.Buckets, err = e.timeseries(ctx, s)
	case q.GroupBy.LinkAttribute():
		res.Groups, err = e.linkAttributes(ctx, s)
	default:
		res.Groups, err = e.dimension(ctx, s)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (e *SQLEngine) timeseries(ctx context.Context, s *scope) ([]Bucket, error) {
	buckets := s.win.Buckets()
	byKey := make(map[string]*Counters, len(buckets))
	rows := make([]Bucket, len(buckets))
	for i, b := range buckets {
		rows[i].Start = b.In(s.win.TZ)
		byKey[bucketKey(b)] = &rows[i].Counters
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
	return rows, nil
}

// dimSpec says how a group-A groupBy reads and folds its dimension.
type dimSpec struct {
	dim  string                     // models.AggregateDims key or DimURLQuery; "" = by link
	fold func(v string) string      // raw key → output key ("" drops the row)
	geo  func(key string, g *Group) // output key → the geo fields; nil for other groupings
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

// geoFold is the one rule of the geo groupings (spec/analytics.md §4.5, issue 13):
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
	Continents: {dim: "continent", fold: enumOnly("continent")},
	Regions: {dim: "region", fold: geoFold(2), geo: func(k string, g *Group) {
		p := split(k)
		g.Country, g.Region = p[0], p[0]+"-"+p[1]
	}},
	Countries: {dim: "country", fold: dropUnknown, geo: func(k string, g *Group) { g.Country = k }},
	Cities: {dim: "city", fold: geoFold(3), geo: func(k string, g *Group) {
		p := split(k)
		g.Country, g.Region, g.City = p[0], p[0]+"-"+p[1], p[2]
	}},
	Devices:      {dim: "device", fold: dropUnknown},
	Browsers:     {dim: "browser", fold: dropUnknown},
	OS:           {dim: "os", fold: dropUnknown},
	Triggers:     {dim: "trigger", fold: enumOnly("trigger")},
	Referers:     {dim: "referer", fold: dropUnknown},
	RefererURLs:  {dim: "referer_url", fold: func(v string) string { return dropUnknown(cutQuery(v)) }},
	TopURLs:      {dim: "url", fold: dropUnknown},
	TopBaseURLs:  {dim: "url", fold: func(v string) string { return dropUnknown(cutQuery(v)) }},
	UTMSources:   {dim: models.DimURLQuery, fold: utmParam("utm_source")},
	UTMMediums:   {dim: models.DimURLQuery, fold: utmParam("utm_medium")},
	UTMCampaigns: {dim: models.DimURLQuery, fold: utmParam("utm_campaign")},
	UTMTerms:     {dim: models.DimURLQuery, fold: utmParam("utm_term")},
	UTMContents:  {dim: models.DimURLQuery, fold: utmParam("utm_content")},
	TopLinks:     {fold: func(v string) string { return v }},
}

// ranked is one kind's rows for a grouping, best first, cut at RowLimit,
// and their counters (vals holds at least the keys').
type ranked struct {
	keys []string
	vals map[string]counts
}

// rank ranks a map of counters as rankSums does.
func rank(k kind, m map[string]counts) ranked {
	return rankSums(k, []sumList{listOf(m)}, nil, true)
}

// listOf is m as a sumList.
func listOf(m map[string]counts) sumList {
	l := sumList{keys: make([]string, 0, len(m)), vals: make([]counts, 0, len(m))}
	for key, v := range m {
		l.keys, l.vals = append(l.keys, key), append(l.vals, v)
	}
	return l
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

func (e *SQLEngine) dimension(ctx context.Context, s *scope) ([]Group, error) {
	spec := dimSpecs[s.q.GroupBy]
	key := keySpec{kind: keyDim, dim: spec.dim}
	if s.q.GroupBy == TopLinks {
		key = keySpec{kind: keyLink}
	}
	per, done, err := e.rankAll(ctx, s)
	if err != nil {
		return nil, err
	}
	if !done {
		if per, err = e.foldDimension(ctx, s, spec, key); err != nil {
			return nil, err
		}
	}
	keys, cs := combine(s.q.Event, per, false)
	rows := make([]Group, 0, len(keys))
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
			l.Short = e.Wire.ShortLink(l.Domain, l.Key)
			rows = append(rows, Group{Key: id, Counters: *cs[id], Link: l})
		}
		return rows, nil
	}
	for _, k := range keys {
		g := Group{Key: k, Counters: *cs[k]}
		if spec.geo != nil {
			spec.geo(k, &g)
		}
		rows = append(rows, g)
	}
	return rows, nil
}

// foldDimension sums the grouping's dimension per value and folds the
// values into the grouping's keys in Go, ranking each kind.
func (e *SQLEngine) foldDimension(ctx context.Context, s *scope, spec dimSpec, key keySpec) (map[kind]ranked, error) {
	per := map[kind]ranked{}
	ms, err := e.measureAll(ctx, s, key)
	if err != nil {
		return nil, err
	}
	for i, k := range kindsOf(s.q.Event) {
		if foldsToItself(spec.fold, ms[i]) { // top_links, and URLs without "Unknown"
			per[k] = rank(k, ms[i])
			continue
		}
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
	return per, nil
}

// foldsToItself reports whether fold keeps every key of m as it is, so m
// needs no copy (25,000 URLs per kind in a composite top_urls).
func foldsToItself(fold func(string) string, m map[string]counts) bool {
	for raw := range m {
		if fk := fold(raw); fk != raw || fk == "" { // "" is dropped
			return false
		}
	}
	return true
}

// manyLinks is where link lookups switch from an id list to one scan of
// the workspace's links.
var manyLinks = 200
