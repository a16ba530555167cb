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
	name, daily, weekly string
	cols                []int
}

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
		d := aggDim{name: name, daily: name + DaySuffix, weekly: name + WeekSuffix}
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

// AggregateFolder sums events into event-aggregate rows, like the per-batch
// hooks (FoldAggregates), but across any number of calls: bulk loaders
// (relink demo) fold a whole run and write each row once. Take hands out the
// rows of finished days so memory stays bounded when events arrive in time
// order. Not safe for concurrent use.
type AggregateFolder struct {
	sums   map[aggKey]*EventAggregate
	joined map[joinKey]string // composite values, built once
	cols   aggColumnsArray
}

// NewAggregateFolder returns an empty folder.
func NewAggregateFolder() *AggregateFolder {
	return &AggregateFolder{sums: map[aggKey]*EventAggregate{}, joined: map[joinKey]string{}}
}

func (f *AggregateFolder) add(ws, ev, dim, value string, hour time.Time, n, amount int64) {
	k := aggKey{ws, ev, dim, value, hour.Unix()}
	a := f.sums[k]
	if a == nil {
		a = &EventAggregate{WorkspaceID: ws, Event: ev, Dim: dim, Hour: hour, Value: value}
		f.sums[k] = a
	}
	a.Count += n
	a.Amount += amount
}

// addEvent folds one event whose column values are in f.cols (aggColumns
// order).
func (f *AggregateFolder) addEvent(ws, ev, linkID string, at time.Time, amount int64) {
	f.addEvents(ws, ev, linkID, at.UTC().Truncate(time.Hour), 1, amount)
}

// addEvents folds n events of one link in one UTC hour whose column values
// are all f.cols, with amount their sum.
func (f *AggregateFolder) addEvents(ws, ev, linkID string, hour time.Time, n, amount int64) {
	day, week := DayStart(hour), WeekStart(hour)
	f.add(ws, ev, DimTotal, "", hour, n, amount)
	f.add(ws, ev, DimLink, linkID, hour, n, amount)
	f.add(ws, ev, DimLink+DaySuffix, linkID, day, n, amount)
	f.add(ws, ev, DimLink+WeekSuffix, linkID, week, n, amount)
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
		f.add(ws, ev, d.name, v, hour, n, amount)
		f.add(ws, ev, d.daily, v, day, n, amount)
		f.add(ws, ev, d.weekly, v, week, n, amount)
	}
	q := URLQuery(f.cols[aggURLColumn])
	f.add(ws, ev, DimURLQuery, q, hour, n, amount)
	f.add(ws, ev, DimURLQuery+DaySuffix, q, day, n, amount)
	f.add(ws, ev, DimURLQuery+WeekSuffix, q, week, n, amount)
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
	groups := make(map[clickGroup]int64, 16)
	var order []clickGroup
	for i := range cs {
		c := &cs[i]
		k := clickGroup{c.WorkspaceID, c.LinkID, c.Timestamp.Unix() / 3600,
			aggColumnsArray{c.Continent, c.Country, c.Region, c.City, c.Device, c.Browser, c.OS, c.Trigger, c.Referer, c.RefererURL, c.URL}}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k]++
	}
	for _, k := range order {
		f.cols = k.cols
		f.addEvents(k.ws, AggClick, k.link, time.Unix(k.hour*3600, 0).UTC(), groups[k], 0)
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
	for k, a := range f.sums {
		done := k.hour < day
		if strings.HasSuffix(k.dim, WeekSuffix) {
			done = k.hour+week <= day
		}
		if done {
			out = append(out, *a)
			delete(f.sums, k)
		}
	}
	sortAggregates(out)
	return out
}

// TakeAll removes and returns every row, sorted by primary key.
func (f *AggregateFolder) TakeAll() []EventAggregate {
	out := make([]EventAggregate, 0, len(f.sums))
	for _, a := range f.sums {
		out = append(out, *a)
	}
	clear(f.sums)
	sortAggregates(out)
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
