package models_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/relinkhq/relink/models"
)

// TestAggregateFolderMatchesFold: the folder, fed in pieces with rows taken
// day by day, gives FoldAggregates' rows over the whole input.
func TestAggregateFolderMatchesFold(t *testing.T) {
	t0 := time.Date(2026, 3, 29, 20, 0, 0, 0, time.UTC)
	var cs []models.Click
	var evs []models.AggregateEvent
	for i := range 500 {
		c := models.Click{WorkspaceID: "w", LinkID: fmt.Sprint("l", i%7), Timestamp: t0.Add(time.Duration(i*i) * time.Second),
			Continent: "EU", Country: fmt.Sprint("C", i%3), Region: fmt.Sprint("R", i%5), City: fmt.Sprint("Y", i%4), Device: "Mobile",
			Browser: "B", OS: "O", Trigger: "qr", Referer: "r", RefererURL: "ru", URL: fmt.Sprint("u", i%9)}
		cs = append(cs, c)
		evs = append(evs, models.AggregateEvent{WorkspaceID: c.WorkspaceID, Event: models.AggClick, LinkID: c.LinkID, Timestamp: c.Timestamp,
			Columns: map[string]string{"continent": c.Continent, "country": c.Country, "region": c.Region, "city": c.City, "device": c.Device,
				"browser": c.Browser, "os": c.OS, "trigger": c.Trigger, "referer": c.Referer, "referer_url": c.RefererURL, "url": c.URL}})
	}
	want := models.FoldAggregates(evs)
	f := models.NewAggregateFolder()
	var got []models.EventAggregate
	for start := 0; start < len(cs); start += 37 {
		part := cs[start:min(start+37, len(cs))]
		f.AddClicks(part)
		got = append(got, f.TakeBefore(part[len(part)-1].Timestamp)...)
	}
	got = append(got, f.TakeAll()...)
	sort.Slice(got, func(i, j int) bool {
		a, b := got[i], got[j]
		if a.Dim != b.Dim {
			return a.Dim < b.Dim
		}
		if !a.Hour.Equal(b.Hour) {
			return a.Hour.Before(b.Hour)
		}
		return a.Value < b.Value
	})
	if len(got) != len(want) {
		t.Fatalf("%d rows, FoldAggregates %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: folder %+v, FoldAggregates %+v", i, got[i], want[i])
		}
	}
}

// TestAggregateFolderCompositeValues: region is country and region, city
// country, region and city, joined with KeySep, also when the city is
// empty (its parts are then region's and an empty one: a cache of joined
// values keyed by the parts alone gave region the city's value).
func TestAggregateFolderCompositeValues(t *testing.T) {
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	f := models.NewAggregateFolder()
	f.AddClicks([]models.Click{
		{WorkspaceID: "w", LinkID: "l", Timestamp: at, Country: "US", Region: "CA"},
		{WorkspaceID: "w", LinkID: "l", Timestamp: at, Country: "US", Region: "CA", City: "SF"},
	})
	got := map[string]int64{}
	for _, a := range f.TakeAll() {
		if a.Dim == "region" || a.Dim == "city" {
			got[a.Dim+"="+a.Value] += a.Count
		}
	}
	sep := models.KeySep
	want := map[string]int64{"region=US" + sep + "CA": 2, "city=US" + sep + "CA" + sep: 1, "city=US" + sep + "CA" + sep + "SF": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("composite rows %v, want %v", got, want)
	}
}
