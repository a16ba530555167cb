package analytics

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
)

// TestClickHouseRankingEqualsFold: ranking top_links, top_urls and
// top_base_urls inside ClickHouse (chRankAll: sum, fold, order, cut at
// RowLimit in one statement), and summing the rollups (four-week rows
// included) and folding in Go, both give exactly the rows and counters of
// the raw rows folded and ranked in Go, on data large enough for the cut:
// more links and URLs than RowLimit, counters tied across the cut,
// "Unknown" and empty URLs, URLs that fold into one base URL, sales ranked
// by amount; over windows with partial hours and subtracted spans, with
// link filters and with an event filter (raw rows only); and again after
// events were stored without their four-week rows, so some blocks'
// four-week rows lack events and must be read as weeks — blocks whose
// checks were kept complete between queries (chchecks.go) among them.
func TestClickHouseRankingEqualsFold(t *testing.T) {
	chtest.Each(t, func(t *testing.T, u string) {
		ctx := context.Background()
		now := time.Date(2026, 3, 30, 9, 37, 12, 0, time.UTC)
		ch := rankingFixture(t, u, now)
		e := &SQLEngine{Now: func() time.Time { return now }, CH: ch}
		ref := &SQLEngine{Now: func() time.Time { return now }, CH: ch, ForceRaw: true}
		links := make([]string, 0, 5500)
		for i := range 5500 {
			links = append(links, fmt.Sprintf("l%d", i))
		}
		cuts := 0
		// compare checks every grouping and window; a later stage (few)
		// checks them over a few windows. (The ranking by URL strings is
		// checked where the hashes do not apply — the 30-day window, the
		// filtered ones — and where the strings are missing.)
		compare := func(stage string, few bool) {
			t.Helper()
			for _, g := range []GroupBy{TopLinks, TopURLs, TopBaseURLs} {
				for _, w := range []struct {
					params  string
					links   []string
					setLink bool
				}{
					{params: "interval=1y"},
					{params: "interval=90d&timezone=Asia/Kolkata"},
					{params: "interval=30d"},
					{params: "interval=all"},
					{params: "start=2025-05-03T07:21:09Z&end=2026-02-11T16:02:44Z"},
					{params: "interval=1y&country=US"}, // raw rows only
					{params: "interval=1y", links: links, setLink: true},
					{params: "interval=1y", setLink: true},
					{params: "interval=1y&linkId=-l1,l2"},
				} {
					if few && w.params != "interval=1y" && w.params != "interval=90d&timezone=Asia/Kolkata" {
						continue
					}
					s := rankScope(t, now, g, w.params, w.links, w.setLink)
					spec := dimSpecs[g]
					key := keySpec{kind: keyDim, dim: spec.dim}
					if g == TopLinks {
						key = keySpec{kind: keyLink}
					}
					want, err := ref.foldDimension(ctx, s, spec, key)
					if err != nil {
						t.Fatal(err)
					}
					folded, err := e.foldDimension(ctx, s, spec, key)
					if err != nil {
						t.Fatal(err)
					}
					got, ok, err := e.chRankAll(ctx, s)
					if err != nil || !ok {
						t.Fatalf("%s %s %s: ranked %v: %v", stage, g, w.params, ok, err)
					}
					for _, k := range kindsOf(s.q.Event) {
						if len(want[k].keys) == RowLimit {
							cuts++
						}
						for name, r := range map[string]ranked{"ranked in ClickHouse": got[k], "folded in Go": folded[k]} {
							if !slices.Equal(r.keys, want[k].keys) {
								t.Fatalf("%s: %s %s (%d links set %v), %s %s: %d keys, the raw rows %d; first difference at %d",
									stage, g, w.params, len(w.links), w.setLink, k.table, name, len(r.keys), len(want[k].keys), firstDiff(r.keys, want[k].keys))
							}
							for _, key := range want[k].keys {
								if r.vals[key] != want[k].vals[key] {
									t.Fatalf("%s: %s %s, %s %s %q: %+v, want %+v", stage, g, w.params, k.table, name, key, r.vals[key], want[k].vals[key])
								}
							}
						}
					}
				}
			}
		}
		compare("four-week rows complete", false)
		if e.spanReads[fourWeekly].Load() == 0 {
			t.Fatal("no four-week rows read")
		}
		keptStages(t, ch, e, now, compare)
		otherDimsKept(t, e, ref, now)
		builds := e.closedBuilds.Load()
		if e.urlHashRanks.Load() == 0 || e.urlSpansUnhashed.Load() != 0 || e.urlHashMisses.Load() != 0 {
			t.Fatalf("after the rebuild: %d rankings by URL hash, %d spans read from the strings, %d hashes missing; want some, 0, 0",
				e.urlHashRanks.Load(), e.urlSpansUnhashed.Load(), e.urlHashMisses.Load())
		}
		// Events stored without the four-week views (as before migration
		// 01580): their blocks' four-week rows lack them, and those blocks
		// are read as weeks.
		storeWithoutFourWeekViews(t, ch, now)
		compare("four-week rows missing events", false)
		if e.checksStale.Load() == 0 || e.closedBuilds.Load() == builds {
			t.Fatal("no kept block, or no kept closed sums, found changed after events were added to them")
		}
		urlHashStages(t, ch, e, compare)
		if cuts < 20 {
			t.Fatalf("only %d rankings were cut at RowLimit", cuts)
		}
	})
}

// keptStages follows TestClickHouseRankingEqualsFold's first stage: asked
// again, the URL rankings add the closed blocks' sums kept (chclosed.go)
// and the checks kept (chchecks.go); then sales imported into a closed
// block with all their rollups leave its cover as it was and move only its
// totals, so the closed sums kept before must not answer; last, a
// workspace with more URL strings than are kept ranks with the join in
// ClickHouse (compare holds every stage's answers to the raw rows).
func keptStages(t *testing.T, ch *chstore.Client, e *SQLEngine, now time.Time, compare func(stage string, few bool)) {
	t.Helper()
	compare("four-week rows complete, asked again", true)
	if e.checksKept.Load() == 0 || e.closedKept.Load() == 0 {
		t.Fatalf("kept between queries: %d blocks' checks, %d URL rankings' closed sums; want some of each", e.checksKept.Load(), e.closedKept.Load())
	}
	if err := ch.Exec(context.Background(), "INSERT INTO sale_events (workspace_id, ts, event_id, link_id, url, amount) SELECT 'ws', toInt64("+
		fmt.Sprint(now.UnixMicro()-250*86400000000)+") + toInt64(number), concat('imp', toString(number)), 'l19', 'https://s.example/p19', 5000 FROM numbers(3)"); err != nil {
		t.Fatal(err)
	}
	compare("sales imported into a closed block", true)
	rebuildStage(t, ch, e, now, compare)
	// A workspace with more URL strings than are kept ranks with the join
	// in ClickHouse, and stays exact.
	defer func(n int) { maxNames = n }(maxNames)
	maxNames = 100
	forgetNames(e)
	compare("more URL strings than are kept", true)
	if !e.names.tooMany("ws") {
		t.Fatal("a workspace with more URL strings than maxNames is not marked")
	}
	forgetNames(e)
}

// otherDimsKept: a dim without four-week rows (countries) over a year
// keeps its closed blocks' sums too (keepsDim: the blocks' totals read
// alone key them), and answers as the raw rows do when asked again; with
// fewer values than minKeptValues it is marked after the first answer and
// read as before (no totals, nothing kept).
func otherDimsKept(t *testing.T, e, ref *SQLEngine, now time.Time) {
	t.Helper()
	ctx := context.Background()
	ask := func(stage string) {
		t.Helper()
		for _, params := range []string{"interval=1y", "interval=1y&device=Desktop", "interval=90d&timezone=Asia/Kolkata"} {
			s := rankScope(t, now, Countries, params, nil, false)
			key := keySpec{kind: keyDim, dim: dimSpecs[Countries].dim}
			want, err := ref.foldDimension(ctx, s, dimSpecs[Countries], key)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.foldDimension(ctx, s, dimSpecs[Countries], key)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: countries %s: %v, the raw rows %v", stage, params, got, want)
			}
		}
	}
	defer func(n int) { minKeptValues = n }(minKeptValues)
	minKeptValues = 0
	ask("countries, first")
	kept := e.closedKept.Load()
	ask("countries, asked again")
	if e.closedKept.Load() < kept+3 {
		t.Fatalf("countries asked again: %d answers from kept sums, want 3", e.closedKept.Load()-kept)
	}
	minKeptValues = 1000
	e.fewValues.Clear()
	e.closedVals.clear()
	ask("countries, few values: first")
	builds, kept := e.closedBuilds.Load(), e.closedKept.Load()
	ask("countries, few values: asked again")
	if e.closedBuilds.Load() != builds || e.closedKept.Load() != kept {
		t.Fatalf("countries (3 values) still kept: %d sums read, %d answered from them", e.closedBuilds.Load()-builds, e.closedKept.Load()-kept)
	}
}

// rankScope is the scope of composite (clicks, leads and sales by amount)
// grouped by g over the window params, at now, in workspace ws.
func rankScope(t *testing.T, now time.Time, g GroupBy, params string, links []string, setLink bool) *scope {
	t.Helper()
	v, err := url.ParseQuery("event=composite&groupBy=" + string(g) + "&" + params)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse(v, EndpointAnalytics, now)
	if err != nil {
		t.Fatal(err)
	}
	return &scope{wsID: "ws", q: q, win: q.Resolve(now, now.AddDate(-2, 0, 0)), d: "sqlite", links: links, linksSet: setLink}
}

// rebuildStage: a closed month's rollups made wrong with their totals
// unchanged (every click's link rows moved to l0, its URL rows to one URL)
// are read and kept after a restart; `relink clickhouse rebuild-rollups`
// then recomputes them from the raw rows, the totals the same as before.
// The kept checks and sums must be dropped (chRebuilds) for compare to
// hold the answers to the raw rows again.
func rebuildStage(t *testing.T, ch *chstore.Client, e *SQLEngine, now time.Time, compare func(stage string, few bool)) {
	t.Helper()
	ctx := context.Background()
	defer func(d time.Duration) { keptRecheck = d }(keptRecheck)
	keptRecheck = 0
	e.dropKept() // as a restart would
	month := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	in := fmt.Sprintf("workspace_id = 'ws' AND event = 'click' AND toYYYYMM(hour) = %s", month.Format("200601"))
	var hash, base string
	if err := ch.Query(ctx, "SELECT toString(value_hash), toString(base_hash) FROM url_aggregates WHERE "+in+" AND dim = 'url' ORDER BY value_hash LIMIT 1", func(c []string) error {
		hash, base = c[0], c[1]
		return nil
	}); err != nil || hash == "" {
		t.Fatalf("no URL row in %s: %v", month.Format("2006-01"), err)
	}
	links, urls := in+" AND dim LIKE 'link%' AND value != 'l0'", in+" AND dim != 'total' AND value_hash != "+hash
	for _, q := range []string{
		"INSERT INTO event_aggregates SELECT workspace_id, event, dim, hour, 'l0', sum(count), sum(amount) FROM event_aggregates WHERE " + links + " GROUP BY workspace_id, event, dim, hour",
		"INSERT INTO event_aggregates SELECT workspace_id, event, dim, hour, value, -count, -amount FROM event_aggregates WHERE " + links,
		"INSERT INTO url_aggregates SELECT workspace_id, event, dim, hour, toUInt64(" + hash + "), toUInt64(" + base + "), sum(count), sum(amount) FROM url_aggregates WHERE " + urls + " GROUP BY workspace_id, event, dim, hour",
		"INSERT INTO url_aggregates SELECT workspace_id, event, dim, hour, value_hash, base_hash, -count, -amount FROM url_aggregates WHERE " + urls,
	} {
		if err := ch.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	builds := e.closedBuilds.Load()
	for _, g := range []GroupBy{TopLinks, TopURLs} {
		got, ok, err := e.chRankAll(ctx, rankScope(t, now, g, "interval=1y", nil, false))
		if err != nil || !ok {
			t.Fatalf("%s with wrong rollups: ranked %v: %v", g, ok, err)
		}
		if r := got[kClick]; g == TopLinks && (len(r.keys) == 0 || r.keys[0] != "l0") {
			t.Fatalf("the clicks moved to l0 do not rank it first: %v", r.keys[:min(3, len(r.keys))])
		}
	}
	if e.closedBuilds.Load() == builds {
		t.Fatal("the wrong rollups' closed sums were not read to be kept")
	}
	if err := (&chstore.Rebuild{CH: ch, From: month, Restart: true}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	compare("a rebuild put kept rollups right", true)
	if e.keptDropped.Load() == 0 {
		t.Fatal("the rebuild did not drop what was kept")
	}
}

// forgetNames drops the URL strings e keeps, and which workspaces had too
// many, as a restart would.
func forgetNames(e *SQLEngine) {
	e.names.mu.Lock()
	defer e.names.mu.Unlock()
	e.names.m, e.names.big = nil, nil
}

// urlHashStages follows TestClickHouseRankingEqualsFold's stages with the
// URL hashes' (migration 01590): rollups written without their hashes (the
// clicks storeWithoutFourWeekViews wrote straight into event_aggregates)
// make their spans read from the strings; URL strings lost from urls make
// the rankings fall back to the strings. (That the rebuild computes the
// hashes and the strings, the first stage shows: the fixture's clicks have
// theirs from the rebuild alone.) compare checks every stage's answers
// against the raw rows.
func urlHashStages(t *testing.T, ch *chstore.Client, e *SQLEngine, compare func(stage string, few bool)) {
	t.Helper()
	ctx := context.Background()
	// The clicks stored straight into event_aggregates have no
	// url_aggregates rows: their spans are read from the strings.
	if e.urlSpansUnhashed.Load() == 0 {
		t.Fatal("no span read from the URL strings after rollups were written without their hashes")
	}
	// URL strings lost from urls: the rankings that meet one fall back
	// to the strings, and stay exact. (The strings the engine keeps would
	// still answer: they are dropped, as a restart would.)
	if err := ch.Exec(ctx, "TRUNCATE TABLE urls"); err != nil {
		t.Fatal(err)
	}
	forgetNames(e)
	compare("URL strings missing", true)
	if e.urlHashMisses.Load() == 0 {
		t.Fatal("no ranking met a missing URL string")
	}
}

// rankingFixture is a migrated ClickHouse database with 40,000 clicks over
// the 400 days before now, a lead on every third and a sale on every fifth:
// event n on link l(n % 6000) and URL p(n % 7000), with a query string on
// every third and "Unknown" or "" on a few.
func rankingFixture(t *testing.T, u string, now time.Time) *chstore.Client {
	t.Helper()
	ctx := context.Background()
	ch, err := chstore.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	nowUS := now.UnixMicro()
	const n = 40000
	const span = int64(400 * 24 * time.Hour / time.Microsecond)
	// Event n: link l(n % 6000), URL p(n % 7000) with a query string on
	// every third, "Unknown" or "" on a few; spread over 400 days.
	attrs := fmt.Sprintf(`'ws' AS workspace_id, toInt64(%d) - toInt64(cityHash64(number) %% %d) AS ts,
		concat('l', toString(number %% 6000)) AS link_id,
		multiIf(number %% 997 = 0, 'Unknown', number %% 991 = 0, '',
			concat('https://s.example/p', toString(number %% 7000), if(number %% 3 = 0, concat('?utm_source=s', toString(number %% 5)), ''))) AS url,
		['US', 'DE', 'FR'][1 + number %% 3] AS country`, nowUS, span)
	for _, q := range []string{
		"INSERT INTO clicks (workspace_id, ts, click_id, link_id, url, country) SELECT workspace_id, ts, concat('c', toString(number)), link_id, url, country FROM (SELECT number, " + attrs + " FROM system.numbers LIMIT " + fmt.Sprint(n) + ")",
		"INSERT INTO lead_events (workspace_id, ts, event_id, click_id, link_id, url, country) SELECT workspace_id, ts, concat('e', toString(number)), concat('c', toString(number)), link_id, url, country FROM (SELECT number, " + attrs + " FROM system.numbers LIMIT " + fmt.Sprint(n) + ") WHERE number % 3 = 0",
		"INSERT INTO sale_events (workspace_id, ts, event_id, click_id, link_id, url, country, amount) SELECT workspace_id, ts, concat('s', toString(number)), concat('c', toString(number)), link_id, url, country, toInt64(100 + number % 7) FROM (SELECT number, " + attrs + " FROM system.numbers LIMIT " + fmt.Sprint(n) + ") WHERE number % 5 = 0",
	} {
		if err := ch.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// Clicks inserted straight into the raw table have no rollups (Relink
	// sums them on its insert path): the rebuild computes every rollup from
	// the raw rows.
	if err := (&chstore.Rebuild{CH: ch, Restart: true}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	return ch
}

// storeWithoutFourWeekViews stores events without their four-week rows, as
// before migration 01580: clicks 200 days before now with every other
// rollup of their link and URL (the hour, day and week rows and the hourly
// total), and sales 300 days before now while their four-week view is
// detached.
func storeWithoutFourWeekViews(t *testing.T, ch *chstore.Client, now time.Time) {
	t.Helper()
	ctx := context.Background()
	at := fmt.Sprint(now.UnixMicro() - 200*86400000000)
	week := "toDateTime(intDiv(intDiv(ts, 1000000) - 345600, 604800) * 604800 + 345600)"
	for _, q := range []string{
		"INSERT INTO clicks (workspace_id, ts, click_id, link_id, url) SELECT 'ws', toInt64(" + at + ") + toInt64(number), concat('late', toString(number)), 'l17', 'https://s.example/p17' FROM numbers(50)",
		"INSERT INTO event_aggregates SELECT workspace_id, 'click', tupleElement(d, 1) AS dim, tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value, toInt64(count()), toInt64(0) FROM clicks ARRAY JOIN [" +
			"('total', toDateTime(intDiv(ts, 3600000000) * 3600), ''), ('link', toDateTime(intDiv(ts, 3600000000) * 3600), link_id), ('link@day', toDateTime(intDiv(ts, 86400000000) * 86400), link_id), ('link@week', " + week + ", link_id), " +
			"('url', toDateTime(intDiv(ts, 3600000000) * 3600), url), ('url@day', toDateTime(intDiv(ts, 86400000000) * 86400), url), ('url@week', " + week + ", url)] AS d " +
			"WHERE click_id LIKE 'late%' GROUP BY workspace_id, dim, hour, value",
		"DETACH TABLE sale_events_aggregates_4week",
		"INSERT INTO sale_events (workspace_id, ts, event_id, link_id, url, amount) SELECT 'ws', toInt64(" + fmt.Sprint(now.UnixMicro()-300*86400000000) + ") + toInt64(number), concat('late', toString(number)), 'l18', 'https://s.example/p18', 999 FROM numbers(5)",
		"ATTACH TABLE sale_events_aggregates_4week",
	} {
		if err := ch.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
