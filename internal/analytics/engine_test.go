package analytics_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/internal/wire/dubjson"
	"github.com/relinkhq/relink/models"
)

var events = []string{"clicks", "leads", "sales", "composite"}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rowKeys are the keys each groupBy's rows carry besides the 4 counters.
var rowKeys = map[analytics.GroupBy][]string{
	analytics.Timeseries:     {"start"},
	analytics.Continents:     {"continent"},
	analytics.Regions:        {"city", "country", "region"},
	analytics.Countries:      {"city", "country", "region"},
	analytics.Cities:         {"city", "country", "region"},
	analytics.Devices:        {"device"},
	analytics.Browsers:       {"browser"},
	analytics.OS:             {"os"},
	analytics.Trigger:        {"trigger"},
	analytics.Triggers:       {"trigger"},
	analytics.Referers:       {"referer"},
	analytics.RefererURLs:    {"refererUrl"},
	analytics.TopFolders:     {"folder", "folderId"},
	analytics.TopLinkTags:    {"tag", "tagId"},
	analytics.TopDomains:     {"domain"},
	analytics.TopLinks:       {"comments", "createdAt", "domain", "folderId", "id", "key", "link", "partnerId", "shortLink", "title", "url"},
	analytics.TopURLs:        {"url"},
	analytics.TopBaseURLs:    {"url"},
	analytics.TopPartners:    {"partner", "partnerId"},
	analytics.TopGroups:      {"group", "groupId"},
	analytics.TopPartnerTags: {"partnerTag", "partnerTagId"},
	analytics.UTMSources:     {"utm_source"},
	analytics.UTMMediums:     {"utm_medium"},
	analytics.UTMCampaigns:   {"utm_campaign"},
	analytics.UTMTerms:       {"utm_term"},
	analytics.UTMContents:    {"utm_content"},
}

// TestEveryGroupByAndEvent runs all 27 groupBys × 4 events over a fixed
// world on both dialects, checking shapes, totals against what was written,
// ordering, and that the aggregate path equals the raw path.
func TestEveryGroupByAndEvent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
		w := newWorld(t, db, "acme", now)
		w.randomEvents(rand.New(rand.NewPCG(1, 2)), 400, now.AddDate(0, 0, -20), now.Add(-time.Hour))
		// A link deleted after its events: counted in totals, dropped from link rows.
		gone := w.links[4]
		if err := db.Exec("DELETE FROM links WHERE id = ?", gone.ID).Error; err != nil {
			t.Fatal(err)
		}
		agg, raw := w.engines()

		// Ground truth straight from the tables.
		var want analytics.Counters
		// interval=30d in New York: from now-30d to the end of today there.
		since, until := now.AddDate(0, 0, -30), time.Date(2026, 3, 16, 3, 59, 59, 999e6, time.UTC)
		db.Raw("SELECT COUNT(*) FROM clicks WHERE workspace_id = ? AND timestamp >= ? AND timestamp <= ?", w.ws.ID, since, until).Scan(&want.Clicks)
		db.Raw("SELECT COUNT(*) FROM lead_events WHERE workspace_id = ? AND timestamp >= ? AND timestamp <= ?", w.ws.ID, since, until).Scan(&want.Leads)
		db.Raw("SELECT COUNT(*), COALESCE(SUM(amount),0) FROM sale_events WHERE workspace_id = ? AND timestamp >= ? AND timestamp <= ?", w.ws.ID, since, until).Row().Scan(&want.Sales, &want.SaleAmount)
		if want.Clicks != 400 || want.Leads == 0 || want.Sales == 0 || int(want.Leads) > w.nLeads || int(want.Sales) > w.nSales {
			t.Fatalf("fixture: %+v (leads %d sales %d)", want, w.nLeads, w.nSales)
		}

		t.Run("link lookups by scan", func(t *testing.T) {
			for _, g := range []analytics.GroupBy{analytics.TopLinks, analytics.TopDomains, analytics.TopFolders, analytics.TopLinkTags, analytics.TopPartners, analytics.TopGroups} {
				qs := "event=composite&groupBy=" + string(g)
				// The raw path maps links to attributes in Go (the aggregate
				// path joins in the database: TestRankedGroupingsFollowCurrentAttributes).
				byID, err := w.query(t, raw, qs)
				if err != nil {
					t.Fatal(err)
				}
				old := analytics.SetManyLinks(0)
				byScan, err := w.query(t, raw, qs)
				analytics.SetManyLinks(old)
				if err != nil {
					t.Fatal(err)
				}
				if a, b := jsonOf(t, byID), jsonOf(t, byScan); a != b || a == "[]" {
					t.Fatalf("%s: by id %s\nby scan %s", g, a, b)
				}
			}
		})
		for _, ev := range events {
			for _, g := range analytics.AllGroupBys {
				qs := "event=" + ev + "&groupBy=" + string(g) + "&interval=30d&timezone=America/New_York"
				t.Run(ev+"/"+string(g), func(t *testing.T) {
					a, err := w.query(t, agg, qs)
					if err != nil {
						t.Fatal(err)
					}
					r, err := w.query(t, raw, qs)
					if err != nil {
						t.Fatal(err)
					}
					if ja, jr := jsonOf(t, a), jsonOf(t, r); ja != jr {
						t.Fatalf("aggregate path differs from raw path\nagg %s\nraw %s", ja, jr)
					}
					exp := want
					switch ev {
					case "clicks":
						exp = analytics.Counters{Clicks: want.Clicks}
					case "leads":
						exp = analytics.Counters{Leads: want.Leads}
					case "sales":
						exp = analytics.Counters{Sales: want.Sales, SaleAmount: want.SaleAmount}
					}
					checkShape(t, w, g, ev, a, exp)
				})
			}
		}
	})
}

func checkShape(t *testing.T, w *world, g analytics.GroupBy, ev string, res any, exp analytics.Counters) {
	t.Helper()
	if g == analytics.Count {
		if res.(analytics.Counters) != exp {
			t.Fatalf("count = %+v, want %+v", res, exp)
		}
		return
	}
	rows := res.([]dubjson.Row)
	var sum analytics.Counters
	for i, r := range rows {
		var keys []string
		for k := range r {
			switch k {
			case "clicks", "leads", "sales", "saleAmount":
				continue
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !reflect.DeepEqual(keys, rowKeys[g]) {
			t.Fatalf("row %d keys %v, want %v", i, keys, rowKeys[g])
		}
		c := analytics.Counters{Clicks: r["clicks"].(int64), Leads: r["leads"].(int64), Sales: r["sales"].(int64), SaleAmount: r["saleAmount"].(int64)}
		if ev != "composite" && ((ev != "clicks" && c.Clicks != 0) || (ev != "leads" && c.Leads != 0) || (ev != "sales" && (c.Sales != 0 || c.SaleAmount != 0))) {
			t.Fatalf("row %d has counters of other events: %+v", i, c)
		}
		sum.Clicks += c.Clicks
		sum.Leads += c.Leads
		sum.Sales += c.Sales
		sum.SaleAmount += c.SaleAmount
		if i > 0 {
			prev := rows[i-1]
			main := map[string]string{"clicks": "clicks", "leads": "leads", "sales": "saleAmount", "composite": "clicks"}[ev]
			if ev == "composite" && g.LinkAttribute() {
				main = "saleAmount"
			}
			if g != analytics.Timeseries && prev[main].(int64) < r[main].(int64) {
				t.Fatalf("rows not ordered by %s at %d", main, i)
			}
			if g == analytics.Timeseries && prev["start"].(string) >= r["start"].(string) {
				t.Fatalf("buckets not ascending at %d", i)
			}
		}
		switch g {
		case analytics.Countries:
			if r["region"] != "*" || r["city"] != "*" || r["country"] == "Unknown" {
				t.Fatalf("country row %v", r)
			}
		case analytics.Regions:
			if !strings.HasPrefix(r["region"].(string), r["country"].(string)+"-") || r["city"] != "*" || strings.HasSuffix(r["region"].(string), "-Unknown") {
				t.Fatalf("region row %v", r)
			}
		case analytics.Continents:
			if !strings.Contains(" AF AN AS EU NA OC SA ", " "+r["continent"].(string)+" ") {
				t.Fatalf("continent row %v", r)
			}
		case analytics.Triggers, analytics.Trigger:
			if r["trigger"] != "link" && r["trigger"] != "qr" {
				t.Fatalf("trigger row %v", r)
			}
		case analytics.TopLinks:
			if r["id"] == w.links[4].ID {
				t.Fatal("deleted link listed in top_links")
			}
			for _, l := range w.links {
				short := "https://" + l.Domain + "/" + l.Key
				if l.Key == models.RootKey {
					short = "https://" + l.Domain
				}
				if l.ID == r["id"] && (r["createdAt"] != l.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z") || r["url"] != l.URL ||
					r["domain"] != l.Domain || r["key"] != l.Key || r["shortLink"] != short) {
					t.Fatalf("top_links row %v for link %+v", r, l)
				}
			}
		case analytics.UTMCampaigns:
			if r["utm_campaign"] != "spring sale" {
				t.Fatalf("utm_campaign not decoded: %v", r)
			}
		}
	}
	switch g {
	case analytics.Timeseries:
		if sum != exp {
			t.Fatalf("timeseries sums to %+v, want %+v", sum, exp)
		}
		if len(rows) != 31 || !strings.HasSuffix(rows[0]["start"].(string), "T00:00:00.000-0500") {
			t.Fatalf("%d buckets, first %v", len(rows), rows[0]["start"])
		}
	case analytics.Devices, analytics.Browsers, analytics.OS, analytics.Triggers, analytics.Trigger, analytics.Referers, analytics.RefererURLs, analytics.TopURLs, analytics.TopBaseURLs:
		// every event has exactly one known value here
		if ev != "composite" && sum != exp {
			t.Fatalf("rows sum to %+v, want %+v", sum, exp)
		}
	case analytics.Countries, analytics.Regions, analytics.Cities, analytics.Continents:
		// Unknown (no geo) is dropped, so the rows hold less than the total
		if sum.Clicks > exp.Clicks || sum.Leads > exp.Leads || sum.Sales > exp.Sales || (len(rows) == 0) {
			t.Fatalf("rows sum to %+v of %+v", sum, exp)
		}
	case analytics.TopPartnerTags:
		if len(rows) != 0 {
			t.Fatalf("partner tags: %v", rows)
		}
	default:
		if g.LinkAttribute() || g == analytics.TopLinks || strings.HasPrefix(string(g), "utm_") {
			if len(rows) == 0 {
				t.Fatalf("no rows")
			}
		}
	}
}

// TestAggregateEqualsRaw is the property test: random data, random queries
// (filters, link filters, windows, zones with half-hour offsets and DST
// changes), and the planner must answer exactly like the raw tables.
func TestAggregateEqualsRaw(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		now := time.Date(2026, 3, 30, 9, 37, 12, 0, time.UTC) // straddles DST changes in March
		// A current ClickHouse (chDB) too, on one SQL dialect: the
		// ClickHouse engine reads only links and tags from SQL.
		kinds := []string{chtest.ClickHouse}
		if db.Dialect == "sqlite" {
			kinds = chtest.Kinds
		}
		w := newWorldOn(t, db, "prop", now, kinds)
		rng := rand.New(rand.NewPCG(7, 11))
		w.randomEvents(rng, 600, now.AddDate(0, 0, -45), now.Add(time.Hour))
		agg, raw := w.engines()
		impls := w.implementations(agg)
		zones := []string{"UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Asia/Kathmandu",
			"Australia/Adelaide", "America/St_Johns", "Australia/Lord_Howe", "Pacific/Chatham", "Pacific/Kiritimati"}
		intervals := []string{"24h", "7d", "30d", "90d", "1y", "mtd", "qtd", "ytd", "all"}
		linkFilters := []string{"", "domain=prop.link", "domain=-beta.link", "tagId=" + w.tags[0], "tagId=-" + w.tags[0],
			"folderId=" + w.fold, "partnerId=" + w.part, "root=true", "root=false", "linkId=" + w.links[0].ID,
			"linkId=-" + w.links[1].ID, "tenantId=-x", "groupId=" + w.group}
		eventFilters := []string{"", "", "", "country=US", "country=-US,DE", "device=mobile", "browser=chrome",
			"trigger=qr", "referer=google.com", "utm_source=news", "region=US-CA", "continent=EU",
			"saleType=new", "saleType=recurring", "query=" + "metadata['plan']:pro", "os=iOS"}
		queries := 300 // make test: 150 of the same sequence (docs/testing.md)
		if !testdb.Long() {
			queries = 150
		}
		for i := 0; i < queries; i++ {
			g := analytics.AllGroupBys[rng.IntN(len(analytics.AllGroupBys))]
			parts := []string{"event=" + events[rng.IntN(4)], "groupBy=" + string(g), "timezone=" + zones[rng.IntN(len(zones))]}
			if rng.IntN(3) == 0 {
				s := now.AddDate(0, 0, -rng.IntN(50)).Add(-time.Duration(rng.IntN(86400)) * time.Second)
				e := s.Add(time.Duration(rng.IntN(20*86400)) * time.Second)
				parts = append(parts, "start="+s.Format(time.RFC3339), "end="+e.Format(time.RFC3339))
			} else {
				parts = append(parts, "interval="+intervals[rng.IntN(len(intervals))])
			}
			if f := linkFilters[rng.IntN(len(linkFilters))]; f != "" {
				parts = append(parts, f)
			}
			if f := eventFilters[rng.IntN(len(eventFilters))]; f != "" && rng.IntN(2) == 0 {
				parts = append(parts, f)
			}
			qs := strings.Join(parts, "&")
			w.sameAnswer(t, w.query, qs, raw, sampled(impls, i))
		}
		w.lateEvents(t, rng, raw, impls, agg)
		// Event pages: the same events in the same order from every engine.
		for _, ev := range []string{"clicks", "leads", "sales"} {
			for _, f := range []string{"", "&country=US", "&partnerId=" + w.part, "&sortOrder=asc&page=2&limit=5", "&interval=all&timezone=Asia/Kolkata"} {
				w.sameAnswer(t, w.events, "event="+ev+"&limit=50"+f, raw, impls)
			}
		}
		// Filters the per-dimension aggregates apply themselves.
		before, _ := agg.Reads()
		n := 0
		for _, f := range []struct{ filter, groupBy string }{
			{"country=US", "countries"}, {"country=-US,DE", "countries"}, {"device=mobile", "devices"},
			{"browser=chrome", "browsers"}, {"trigger=qr", "triggers"}, {"qr=true", "trigger"},
			{"referer=google.com", "referers"}, {"continent=-EU", "continents"}, {"os=iOS,Android", "os"},
		} {
			for _, g := range []string{"count", "timeseries", f.groupBy} {
				for _, ev := range events {
					for _, tz := range []string{"UTC", "Europe/Berlin", "Asia/Kolkata"} {
						qs := "event=" + ev + "&groupBy=" + g + "&" + f.filter + "&interval=30d&timezone=" + tz
						n++
						w.sameAnswer(t, w.query, qs, raw, sampled(impls, n))
					}
				}
			}
		}
		if after, _ := agg.Reads(); after-before < 200 {
			t.Fatalf("filtered queries read the aggregates only %d times", after-before)
		}
		w.urlRankingsByHash(t, raw, impls)
		if a, _ := agg.Reads(); a < int64(80*queries/300) {
			t.Fatalf("only %d reads of the aggregates in %d queries", a, queries)
		}
		if a, r := raw.Reads(); a != 0 || r == 0 {
			t.Fatalf("raw engine read aggregates %d times", a)
		}
		// The signed week/day/hour covers were exercised, subtraction included.
		h, d, wk, neg := agg.SpanReads()
		t.Logf("aggregate range reads: %d hourly, %d daily, %d weekly, %d subtracted", h, d, wk, neg)
		if h == 0 || d == 0 || wk < 20 || neg < 20 {
			t.Fatalf("aggregate range reads: %d hourly, %d daily, %d weekly, %d subtracted", h, d, wk, neg)
		}
		// The ClickHouse engines answered from their rollups the same way.
		for name, e := range impls {
			ch, ok := e.(*analytics.SQLEngine)
			if !ok || !strings.HasPrefix(name, "clickhouse") {
				continue
			}
			a, _ := ch.Reads()
			h, d, wk, neg := ch.SpanReads()
			fw := ch.FourWeekReads()
			t.Logf("%s rollup reads: %d; range reads: %d hourly, %d daily, %d weekly, %d four-week, %d subtracted", name, a, h, d, wk, fw, neg)
			if k := int64(chShare()); a < 80/k || h == 0 || d == 0 || wk < 20/k || fw == 0 || neg < 20/k {
				t.Fatalf("%s rollup reads %d: %d hourly, %d daily, %d weekly, %d four-week, %d subtracted", name, a, h, d, wk, fw, neg)
			}
		}
	})
}

// urlRankingsByHash ranks top_urls and top_base_urls unfiltered on every
// engine: the ClickHouse engines rank them by the URLs' hashes (migration
// 01590) over the windows with a whole four-week block (1y, all), every
// span hashed (the events went in through Relink's writers) and every
// string found.
func (w *world) urlRankingsByHash(t *testing.T, raw *analytics.SQLEngine, impls map[string]analytics.Engine) {
	t.Helper()
	for _, g := range []string{"top_urls", "top_base_urls"} {
		for _, ev := range events {
			for _, iv := range []string{"interval=30d&timezone=Asia/Kolkata", "interval=1y&timezone=UTC", "interval=all&timezone=America/St_Johns"} {
				w.sameAnswer(t, w.query, "event="+ev+"&groupBy="+g+"&"+iv, raw, impls)
			}
		}
	}
	for name, e := range impls {
		if ch, ok := e.(*analytics.SQLEngine); ok && strings.HasPrefix(name, "clickhouse") {
			ranks, unhashed, misses := ch.URLHashReads()
			t.Logf("%s: %d URL rankings by hash", name, ranks)
			if ranks < 16 || unhashed != 0 || misses != 0 {
				t.Fatalf("%s: %d URL rankings by hash, %d spans read from the strings, %d strings missing; want at least 16, 0, 0", name, ranks, unhashed, misses)
			}
		}
	}
}

// lateEvents checks the sealed vectors (vectors.go): the rankings above
// built and read them; events written afterwards into sealed days and weeks
// (a spool replayed after an outage, an import) make them stale, and the
// answers still equal the raw path's because they are rebuilt.
func (w *world) lateEvents(t *testing.T, rng *rand.Rand, raw *analytics.SQLEngine, impls map[string]analytics.Engine, agg *analytics.SQLEngine) {
	t.Helper()
	n := 0
	ask := func() {
		for _, g := range []string{"top_links", "top_urls", "top_base_urls"} {
			for _, ev := range events {
				for _, iv := range []string{"7d", "30d", "90d", "1y"} {
					n++
					w.sameAnswer(t, w.query, "event="+ev+"&groupBy="+g+"&interval="+iv, raw, sampled(impls, n))
				}
			}
		}
	}
	ask()
	reads, builds, stale := agg.VectorStats()
	t.Logf("vectors: %d read, %d built, %d stale", reads, builds, stale)
	if reads == 0 || builds == 0 || builds >= reads {
		t.Fatalf("vectors: %d read, %d built: the rankings did not reuse them", reads, builds)
	}
	w.randomEvents(rng, 120, w.now.AddDate(0, 0, -40), w.now.AddDate(0, 0, -2))
	w.syncClickHouse()
	ask()
	_, _, after := agg.VectorStats()
	if after-stale < 10 {
		t.Fatalf("late events made %d vectors stale", after-stale)
	}
}
