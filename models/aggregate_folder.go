package models

import (
	"sort"
	"strings"
	"time"
)

// aggColumns are the event columns the aggregate dimensions read, in a fixed
// order; aggDims lists every dimension of AggregateDims with the indexes of
// its columns, sorted by name.
var aggColumns = []string{"continent", "country", "region", "city", "device", "browser", "os", "trigger", "referer", "referer_url", "url"}

type aggDim struct {
	name                  string
	hourly, daily, weekly uint8 // foldDims indexes
	cols                  []int
}

// foldDims names the dimensions a foldKey holds by index: keys with small
// integers instead of the dimension's and the event's names hash two
// strings instead of four (most of a varied batch's folding time).
var foldDims []string

func foldDim(name string) uint8 {
	foldDims = append(foldDims, name)
	if len(foldDims) > 255 {
		panic("models: too many aggregate dimensions")
	}
	return uint8(len(foldDims) - 1)
}

var (
	foldTotal    = foldDim(DimTotal)
	foldLink     = foldDim(DimLink)
	foldLinkDay  = foldDim(DimLink + DaySuffix)
	foldLinkWeek = foldDim(DimLink + WeekSuffix)
	foldQuery    = foldDim(DimURLQuery)
	foldQueryDay = foldDim(DimURLQuery + DaySuffix)
	foldQueryWk  = foldDim(DimURLQuery + WeekSuffix)
)

// aggURLColumn is the index of "url" in aggColumns.
const aggURLColumn = 10

var aggDims = func() []aggDim {
	idx := map[string]int{}
	for i, c := range aggColumns {
		idx[c] = i
	}
	if aggColumns[aggURLColumn] != "url" {
		panic("models: aggURLColumn is not the url column")
	}
	var out []aggDim
	for name, cols := range AggregateDims {
		d := aggDim{name: name}
		for _, c := range cols {
			i, ok := idx[c]
			if !ok {
				panic("models: aggregate column " + c + " missing from aggColumns")
			}
			d.cols = append(d.cols, i)
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	for i := range out {
		d := &out[i]
		d.hourly, d.daily, d.weekly = foldDim(d.name), foldDim(d.name+DaySuffix), foldDim(d.name+WeekSuffix)
	}
	return out
}()

// aggColumnsArray sizes the per-event column array.
type aggColumnsArray [11]string

// joinKey is a composite value's parts: region's two and city's three are
// told apart by n (a city with no name has the parts of its region).
type joinKey struct {
	n     int
	parts [3]string
}

type aggKey struct {
	ws, ev, dim, value string
	hour               int64
}

// foldKey is an AggregateFolder row's key: dim indexes foldDims, ev the
// folder's events.
type foldKey struct {
	ws, value string
	hour      int64
	dim, ev   uint8
}

// AggregateFolder sums events into event-aggregate rows, like the per-batch
// hooks (FoldAggregates), but across any number of calls: bulk loaders
// (relink demo) fold a whole run and write each row once. Take hands out the
// rows of finished days so memory stays bounded when events arrive in time
// order. Not safe for concurrent use.
type AggregateFolder struct {
	// counts and amounts per row: value maps, one hash per addition
	// (m[k] += n) and no allocation per row; amounts only where not 0.
	counts  map[foldKey]int64
	amounts map[foldKey]int64
	events  []string           // foldKey.ev names
	joined  map[joinKey]string // composite values, built once
	cols    aggColumnsArray
}

// NewAggregateFolder returns an empty folder.
func NewAggregateFolder() *AggregateFolder {
	return &AggregateFolder{counts: map[foldKey]int64{}, amounts: map[foldKey]int64{}, joined: map[joinKey]string{}}
}

// event is ev's index in f.events.
func (f *AggregateFolder) event(ev string) uint8 {
	for i, e := range f.events {
		if e == ev {
			return uint8(i)
		}
	}
	if len(f.events) == 255 {
		panic("models: too many aggregate events")
	}
	f.events = append(f.events, ev)
	return uint8(len(f.events) - 1)
}

func (f *AggregateFolder) add(ws string, ev, dim uint8, value string, hour int64, n, amount int64) {
	k := foldKey{ws: ws, value: value, hour: hour, dim: dim, ev: ev}
	f.counts[k] += n
	if amount != 0 {
		f.amounts[k] += amount
	}
}

// row is the aggregate row of key k.
func (f *AggregateFolder) row(k foldKey) EventAggregate {
	return EventAggregate{WorkspaceID: k.ws, Event: f.events[k.ev], Dim: foldDims[k.dim], Hour: time.Unix(k.hour, 0).UTC(), Value: k.value,
		Count: f.counts[k], Amount: f.amounts[k]}
}

// addEvent folds one event whose column values are in f.cols (aggColumns
// order).
func (f *AggregateFolder) addEvent(ws, ev, linkID string, at time.Time, amount int64) {
	f.addEvents(ws, ev, linkID, at.UTC().Truncate(time.Hour), 1, amount)
}

// addEvents folds n events of one link in one UTC hour whose column values
// are all f.cols, with amount their sum.
func (f *AggregateFolder) addEvents(ws, event, linkID string, at time.Time, n, amount int64) {
	ev := f.event(event)
	hour, day, week := at.Unix(), DayStart(at).Unix(), WeekStart(at).Unix()
	f.add(ws, ev, foldTotal, "", hour, n, amount)
	f.add(ws, ev, foldLink, linkID, hour, n, amount)
	f.add(ws, ev, foldLinkDay, linkID, day, n, amount)
	f.add(ws, ev, foldLinkWeek, linkID, week, n, amount)
	for i := range aggDims {
		d := &aggDims[i]
		var v string
		switch len(d.cols) {
		case 1:
			v = f.cols[d.cols[0]]
		default:
			k := joinKey{n: len(d.cols)}
			for j, c := range d.cols {
				k.parts[j] = f.cols[c]
			}
			var ok bool
			if v, ok = f.joined[k]; !ok {
				v = strings.Join(k.parts[:k.n], KeySep)
				f.joined[k] = v
			}
		}
		f.add(ws, ev, d.hourly, v, hour, n, amount)
		f.add(ws, ev, d.daily, v, day, n, amount)
		f.add(ws, ev, d.weekly, v, week, n, amount)
	}
	q := URLQuery(f.cols[aggURLColumn])
	f.add(ws, ev, foldQuery, q, hour, n, amount)
	f.add(ws, ev, foldQueryDay, q, day, n, amount)
	f.add(ws, ev, foldQueryWk, q, week, n, amount)
}

// AddEvents folds events given with a column map (the hooks' form).
func (f *AggregateFolder) AddEvents(evs []AggregateEvent) {
	for i := range evs {
		e := &evs[i]
		for j, c := range aggColumns {
			f.cols[j] = e.Column(c)
		}
		f.addEvent(e.WorkspaceID, e.Event, e.LinkID, e.Timestamp, e.Amount)
	}
}

// clickGroup is what the clicks of one group share: the workspace, link,
// UTC hour and every aggregated column.
type clickGroup struct {
	ws, link string
	hour     int64
	cols     aggColumnsArray
}

// AddClicks folds stored clicks (what AggregateClicks aggregates). Clicks
// that share their workspace, link, hour and every aggregated column are
// counted first and folded once per group: a batch's clicks repeat the same
// few values, and the ~40 rows each group adds to were most of the hook's
// CPU when they were added click by click (bench/README.md, "The cost of a
// stored click").
func (f *AggregateFolder) AddClicks(cs []Click) {
	// A group's index in order: one hash of the key per click.
	groups := make(map[clickGroup]int, 16)
	var order []clickGroup
	var counts []int64
	for i := range cs {
		c := &cs[i]
		k := clickGroup{c.WorkspaceID, c.LinkID, c.Timestamp.Unix() / 3600,
			aggColumnsArray{c.Continent, c.Country, c.Region, c.City, c.Device, c.Browser, c.OS, c.Trigger, c.Referer, c.RefererURL, c.URL}}
		g, ok := groups[k]
		if !ok {
			g = len(order)
			groups[k] = g
			order, counts = append(order, k), append(counts, 0)
		}
		counts[g]++
	}
	for g, k := range order {
		f.cols = k.cols
		f.addEvents(k.ws, AggClick, k.link, time.Unix(k.hour*3600, 0).UTC(), counts[g], 0)
	}
}

func (f *AggregateFolder) setAttrs(a *ClickAttrs) {
	f.cols = aggColumnsArray{a.Continent, a.Country, a.Region, a.City, a.Device, a.Browser, a.OS, a.Trigger, a.Referer, a.RefererURL, a.URL}
}

// AddLeads folds stored lead events (what EventAggregator.AddLeads
// aggregates).
func (f *AggregateFolder) AddLeads(evs []LeadEvent) {
	for i := range evs {
		e := &evs[i]
		f.setAttrs(&e.ClickAttrs)
		f.addEvent(e.WorkspaceID, AggLead, e.LinkID, e.Timestamp, 0)
	}
}

// AddSales folds stored sale events (what EventAggregator.AddSales
// aggregates).
func (f *AggregateFolder) AddSales(evs []SaleEvent) {
	for i := range evs {
		e := &evs[i]
		f.setAttrs(&e.ClickAttrs)
		f.addEvent(e.WorkspaceID, AggSale, e.LinkID, e.Timestamp, e.Amount)
	}
}

// TakeBefore removes and returns the rows of the UTC days before the day of
// t (hourly and daily rows alike) and of the weeks that ended by then,
// sorted by primary key. Once every event before that day has been folded,
// these rows are final.
func (f *AggregateFolder) TakeBefore(t time.Time) []EventAggregate {
	t = t.UTC()
	day := DayStart(t).Unix()
	const week = int64(7 * 24 * 3600)
	var out []EventAggregate
	for k := range f.counts {
		done := k.hour < day
		if strings.HasSuffix(foldDims[k.dim], WeekSuffix) {
			done = k.hour+week <= day
		}
		if done {
			out = append(out, f.row(k))
			delete(f.counts, k)
			delete(f.amounts, k)
		}
	}
	sortAggregates(out)
	return out
}

// TakeAll removes and returns every row, sorted by primary key.
func (f *AggregateFolder) TakeAll() []EventAggregate {
	out := f.TakeUnsorted()
	sortAggregates(out)
	return out
}

// TakeUnsorted removes and returns every row in no particular order, for
// writers that take no row locks (ClickHouse).
func (f *AggregateFolder) TakeUnsorted() []EventAggregate {
	out := make([]EventAggregate, 0, len(f.counts))
	for k := range f.counts {
		out = append(out, f.row(k))
	}
	clear(f.counts)
	clear(f.amounts)
	return out
}

// sortAggregates orders rows by primary key so concurrent writers take row
// locks in the same order.
func sortAggregates(out []EventAggregate) {
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		switch {
		case a.WorkspaceID != b.WorkspaceID:
			return a.WorkspaceID < b.WorkspaceID
		case a.Event != b.Event:
			return a.Event < b.Event
		case a.Dim != b.Dim:
			return a.Dim < b.Dim
		case !a.Hour.Equal(b.Hour):
			return a.Hour.Before(b.Hour)
		}
		return a.Value < b.Value
	})
}
