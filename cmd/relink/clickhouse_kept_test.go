package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/internal/testdb"
)

// yourlsDump writes a YOURLS dump of links (key → destination) and their
// clicks (key → times) and returns its path.
func yourlsDump(t *testing.T, links map[string]string, clicks map[string][]time.Time) string {
	t.Helper()
	var b strings.Builder
	id := 0
	for k, u := range links {
		fmt.Fprintf(&b, "INSERT INTO `yourls_url` VALUES ('%s','%s','%s','2025-01-01 00:00:00','::1',%d);\n", k, u, k, len(clicks[k]))
		for _, at := range clicks[k] {
			id++
			fmt.Fprintf(&b, "INSERT INTO `yourls_log` VALUES (%d,'%s','%s','direct','','::1','FR');\n", id, at.UTC().Format(time.DateTime), k)
		}
	}
	p := filepath.Join(t.TempDir(), "yourls.sql")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// times is n instants from at on, a second apart.
func times(at time.Time, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = at.Add(time.Duration(i) * time.Second)
	}
	return out
}

// metricValue reads one counter or gauge from the instance's /metrics.
func (in *instance) metricValue(t *testing.T, token, name string) int64 {
	t.Helper()
	req, _ := http.NewRequest("GET", in.app+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`(?m)^` + name + ` (\d+)$`).FindSubmatch(b)
	if res.StatusCode != 200 || m == nil {
		t.Fatalf("/metrics: %d, no %s in\n%s", res.StatusCode, name, b)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// yearRanking asks GET /analytics for a year of clicks grouped by groupBy
// and gives each row's field → clicks, waiting out the rate limit.
func (in *instance) yearRanking(t *testing.T, key, groupBy, field string) map[string]int {
	t.Helper()
	for range 30 {
		var rows []map[string]any
		switch st := in.call(t, "GET", "/analytics?event=clicks&interval=1y&groupBy="+groupBy, key, nil, &rows); st {
		case 200:
			out := map[string]int{}
			for _, r := range rows {
				out[fmt.Sprint(r[field])] = int(r["clicks"].(float64))
			}
			return out
		case 429:
			time.Sleep(time.Second)
		default:
			t.Fatalf("%s: analytics groupBy=%s: %d", in.name, groupBy, st)
		}
	}
	t.Fatalf("%s: analytics groupBy=%s: rate limited for 30 s", in.name, groupBy)
	return nil
}

// TestServeYearFromKeptSums: `relink serve` on ClickHouse answers a year's
// rankings by URL and by link from the closed four-week blocks' checks and
// sums kept between queries (docs/clickhouse.md, "Rankings by URL hash"),
// and when an import adds clicks to a block already kept, the next answer
// counts them. The clicks come from `relink import yourls-sql` (original
// dates, 2 to 200 days back) and reach ClickHouse through the outbox, as in
// production.
func TestServeYearFromKeptSums(t *testing.T) {
	chtest.Each(t, func(t *testing.T, chURL string) {
		env := map[string]string{"RELINK_DATABASE_URL": testdb.URL(t, "sqlite"), "RELINK_CLICKHOUSE_URL": chURL,
			"RELINK_METRICS_TOKEN": "metrics-token", "RELINK_SHORT_DOMAIN": "go.keep.test"}
		code, stdout, stderr := runMain(t, env, "workspace", "create", "--name", "Keep", "--slug", "keep", "--plan", "business")
		if code != 0 {
			t.Fatalf("workspace create: exit %d: %s", code, stderr)
		}
		_, key := decodeCreated(t, stdout)
		in := startInstance(t, "kept", env) // turns the ClickHouse store on
		now := time.Now().UTC().Truncate(time.Hour)
		day := 24 * time.Hour
		sixty := now.Add(-60 * day)
		const a, b = "https://acme.example/a", "https://acme.example/b"
		importDump := func(links map[string]string, clicks map[string][]time.Time) {
			t.Helper()
			code, stdout, stderr := runMain(t, env, "import", "yourls-sql", yourlsDump(t, links, clicks), "--workspace", "keep", "--domain", "y.keep.test")
			if code != 0 {
				t.Fatalf("import: exit %d\n%s\n%s", code, stdout, stderr)
			}
		}
		importDump(map[string]string{"k1": a, "k2": b, "k3": a}, map[string][]time.Time{
			"k1": append(append(times(now.Add(-100*day), 5), times(sixty, 3)...), times(now.Add(-2*day), 2)...),
			"k2": append(times(now.Add(-200*day), 4), times(now.Add(-day), 1)...),
			"k3": times(now.Add(-70*day), 6),
		})
		want := func(urls, links map[string]int) {
			t.Helper()
			total := 0
			for _, n := range urls {
				total += n
			}
			deadline := time.Now().Add(30 * time.Second)
			for { // the outbox copies the imported clicks to ClickHouse
				got := in.yearRanking(t, key, "top_urls", "url")
				if fmt.Sprint(got) == fmt.Sprint(urls) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("a year's top_urls %v, want %v (%d clicks)", got, urls, total)
				}
				time.Sleep(200 * time.Millisecond)
			}
			if got := in.yearRanking(t, key, "top_links", "key"); fmt.Sprint(got) != fmt.Sprint(links) {
				t.Fatalf("a year's top_links %v, want %v", got, links)
			}
		}
		want(map[string]int{a: 16, b: 5}, map[string]int{"k1": 10, "k2": 5, "k3": 6})
		// Asked again: the closed blocks' checks and sums come from memory.
		// The answer that first matched may have come the whole way from
		// ClickHouse (the URL rows of an hour still arriving: the ranking is
		// exact, nothing is kept from it), so the asks repeat, for at most
		// 30 s, until one round of both is answered from kept sums with
		// nothing read again.
		for deadline := time.Now().Add(30 * time.Second); ; {
			kept, built := in.metricValue(t, "metrics-token", "relink_analytics_sums_kept_total"), in.metricValue(t, "metrics-token", "relink_analytics_sums_built_total")
			want(map[string]int{a: 16, b: 5}, map[string]int{"k1": 10, "k2": 5, "k3": 6})
			nk, nb := in.metricValue(t, "metrics-token", "relink_analytics_sums_kept_total"), in.metricValue(t, "metrics-token", "relink_analytics_sums_built_total")
			if nk == kept+2 && nb == built {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("asked again, %d rankings answered from kept sums and %d closed sums read again; want both kept, none read", nk-kept, nb-built)
			}
		}
		if in.metricValue(t, "metrics-token", "relink_analytics_checks_kept_total") == 0 || in.metricValue(t, "metrics-token", "relink_analytics_kept_sums") == 0 {
			t.Fatal("no closed block's checks or sums kept")
		}
		// Clicks imported into a block already kept (beside k1's, 60 days
		// back) move its totals: the kept sums must not answer for it.
		importDump(map[string]string{"k4": b}, map[string][]time.Time{"k4": times(sixty.Add(30*time.Second), 7)})
		want(map[string]int{a: 16, b: 12}, map[string]int{"k1": 10, "k2": 5, "k3": 6, "k4": 7})
		if in.metricValue(t, "metrics-token", "relink_analytics_checks_stale_total") == 0 {
			t.Fatal("the block the import changed was not checked again")
		}
		in.Stop()
		rebuildPutsKeptRight(t, env, chURL, key, now.Add(-70*day))
	})
}

// rebuildPutsKeptRight: the rollups of k3's clicks (made at at) made wrong
// with their totals unchanged (moved to k1's link) are read and kept by a
// new `relink serve`; `relink clickhouse rebuild-rollups --from` the month
// of their four-week block recomputes them from the raw clicks, and the server's answers are
// right again within its recheck (10 s), without a restart.
func rebuildPutsKeptRight(t *testing.T, env map[string]string, chURL, key string, at time.Time) {
	t.Helper()
	ch, err := chstore.Open(chURL)
	if err != nil {
		t.Fatal(err)
	}
	in := startInstance(t, "restarted", env)
	ids := map[int]string{}
	for id, n := range in.yearRanking(t, key, "top_links", "id") {
		ids[n] = id // k1 10, k2 5, k3 6, k4 7 clicks
	}
	var ws string
	if err := ch.Query(context.Background(), "SELECT any(workspace_id) FROM clicks", func(c []string) error { ws = c[0]; return nil }); err != nil {
		t.Fatal(err)
	}
	// Every rollup row of k3 (its hour, day, week and four-week rows; the
	// four-week row can lie in the month before at's).
	k3 := fmt.Sprintf("workspace_id = %s AND event = 'click' AND dim LIKE 'link%%' AND value = %s", chstore.Quote(ws), chstore.Quote(ids[6]))
	for _, q := range []string{
		"INSERT INTO event_aggregates SELECT workspace_id, event, dim, hour, " + chstore.Quote(ids[10]) + ", sum(count), sum(amount) FROM event_aggregates WHERE " + k3 + " GROUP BY workspace_id, event, dim, hour",
		"INSERT INTO event_aggregates SELECT workspace_id, event, dim, hour, value, -count, -amount FROM event_aggregates WHERE " + k3,
	} {
		if err := ch.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	in.Stop()
	in = startInstance(t, "restarted again", env) // nothing kept: reads the wrong rows
	right := fmt.Sprint(map[string]int{"k1": 10, "k2": 5, "k3": 6, "k4": 7})
	if got := in.yearRanking(t, key, "top_links", "key"); fmt.Sprint(got) != fmt.Sprint(map[string]int{"k1": 16, "k2": 5, "k4": 7}) {
		t.Fatalf("with k3's rollups moved to k1, top_links %v", got)
	}
	if code, stdout, stderr := runMain(t, env, "clickhouse", "rebuild-rollups", "--from", at.AddDate(0, 0, -28).Format("2006-01")); code != 0 {
		t.Fatalf("rebuild-rollups: exit %d\n%s\n%s", code, stdout, stderr)
	}
	deadline := time.Now().Add(30 * time.Second)
	for got := in.yearRanking(t, key, "top_links", "key"); fmt.Sprint(got) != right; got = in.yearRanking(t, key, "top_links", "key") {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the rebuild, top_links %v, want %s", got, right)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if in.metricValue(t, "metrics-token", "relink_analytics_kept_dropped_total") == 0 {
		t.Fatal("the answers came right without the kept sums dropped")
	}
}
