package analytics_test

import (
	"math/rand/v2"
	"net/url"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/internal/wire/dubjson"
	"github.com/relinkhq/relink/models"
)

// TestEventsPaging: pages of /events concatenate to the whole ordered list,
// asc is the reverse of desc, filters apply, and events of a deleted link
// are dropped from pages.
func TestEventsPaging(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
		w := newWorld(t, db, "pages", now)
		w.randomEvents(rand.New(rand.NewPCG(5, 6)), 120, now.AddDate(0, 0, -10), now.Add(-time.Hour))
		e := analytics.NewEngine(db, func() time.Time { return now })
		list := func(qs string) []map[string]any {
			t.Helper()
			v, _ := url.ParseQuery(qs)
			q, err := analytics.Parse(v, analytics.EndpointEvents, now)
			if err != nil {
				t.Fatal(err)
			}
			out, err := e.Events(w.ctx, w.ws, q)
			if err != nil {
				t.Fatal(err)
			}
			return dubjson.Events(w.ws, out)
		}
		ids := func(evs []map[string]any, key string) []string {
			var out []string
			for _, ev := range evs {
				switch key {
				case "click":
					out = append(out, ev["click_id"].(string))
				default:
					out = append(out, ev["eventId"].(string))
				}
			}
			return out
		}
		for _, ev := range []string{"clicks", "leads", "sales"} {
			key := "click"
			if ev != "clicks" {
				key = "event"
			}
			all := list("event=" + ev + "&limit=1000")
			if len(all) == 0 {
				t.Fatalf("%s: no events", ev)
			}
			for i := 1; i < len(all); i++ {
				if all[i-1]["timestamp"].(string) < all[i]["timestamp"].(string) {
					t.Fatalf("%s: not newest first at %d", ev, i)
				}
			}
			var paged []string
			for page := 1; ; page++ {
				p := list("event=" + ev + "&limit=7&page=" + strconv.Itoa(page))
				if len(p) == 0 {
					break
				}
				paged = append(paged, ids(p, key)...)
			}
			if got, want := paged, ids(all, key); !equal(got, want) {
				t.Fatalf("%s: pages %v\nwhole %v", ev, got, want)
			}
			asc := ids(list("event="+ev+"&limit=1000&sortOrder=asc"), key)
			desc := ids(all, key)
			reversed := make([]string, len(desc))
			for i, id := range desc {
				reversed[len(desc)-1-i] = id
			}
			ties := false
			for i := 1; i < len(all); i++ {
				ties = ties || all[i-1]["timestamp"] == all[i]["timestamp"]
			}
			if !equal(asc, reversed) && (!ties || !sameSet(asc, desc)) {
				t.Fatalf("%s: asc %v is not desc %v reversed", ev, asc, desc)
			}
			for _, x := range list("event=" + ev + "&limit=1000&country=US") {
				if x["country"] != "US" {
					t.Fatalf("%s: country filter let %v through", ev, x["country"])
				}
			}
		}
		// Deleting a link drops its events from pages.
		gone := w.links[1].ID
		before := len(list("event=clicks&limit=1000"))
		if err := db.Exec("DELETE FROM links WHERE id = ?", gone).Error; err != nil {
			t.Fatal(err)
		}
		after := list("event=clicks&limit=1000")
		for _, x := range after {
			if x["link_id"] == gone {
				t.Fatal("event of a deleted link listed")
			}
		}
		if len(after) >= before {
			t.Fatalf("%d events before deleting, %d after", before, len(after))
		}
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return equal(x, y)
}
