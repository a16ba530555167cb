package chstore

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/models"
)

// TestClickIngestUpgrade: a database with migration 01550's click view
// (an existing install) moves over to clicks_ingest (01570): the view is
// gone, the clicks it counted keep their rollups, new clicks are counted
// once (on a current ClickHouse a view left on clicks would count the
// rows clicks_ingest routes there a second time), and the rollups equal
// what the rebuild computes from the raw rows.
func TestClickIngestUpgrade(t *testing.T) {
	chtest.Each(t, func(t *testing.T, u string) {
		ctx := context.Background()
		c, err := Open(u)
		if err != nil {
			t.Fatal(err)
		}
		quiet := slog.New(slog.DiscardHandler)
		if err := c.migrate(ctx, quiet, 1570); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
		mk := func(id string, at time.Time, country string) models.Click {
			return models.Click{ClickID: id, Timestamp: at, WorkspaceID: "ws_up", LinkID: "link_up", URL: "https://x.test/?a=1", Country: country}
		}
		// The old binary inserts into clicks; 01550's view counts them.
		old := []any{ClickRow(new(mk("old1", at, "US"))), ClickRow(new(mk("old2", at.Add(time.Minute), "DE")))}
		if err := c.Insert(ctx, "clicks", old); err != nil {
			t.Fatal(err)
		}
		if err := c.Migrate(ctx, quiet); err != nil {
			t.Fatal(err)
		}
		tables := map[string]bool{}
		if err := c.Query(ctx, "SELECT name FROM system.tables WHERE database = currentDatabase()", func(cols []string) error {
			tables[cols[0]] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if tables["clicks_aggregates"] || !tables["clicks_ingest"] || !tables["clicks_ingest_1_raw"] || !tables["clicks_ingest_2_rollups"] {
			t.Fatalf("tables after the upgrade: %v", tables)
		}
		batch := []models.Click{mk("new1", at.Add(2*time.Minute), "US"), mk("new2", at.Add(2*time.Hour), "FR")}
		for range 2 {
			if err := c.InsertClicks(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
		// The old clicks have no four-week rows (01580 copies no old
		// events); the rebuild computes them.
		checkRollupTotals(t, c, "ws_up", 4, 2)
		notFourWeek := "dim NOT LIKE '%" + models.FourWeekSuffix + "'"
		want := rollupsTextWhere(t, c, notFourWeek)
		if err := (&Rebuild{CH: c, Restart: true}).Run(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rollupsTextWhere(t, c, notFourWeek); got != want {
			t.Fatalf("rollups after the upgrade:\n%s\nrebuilt from the raw rows:\n%s", want, got)
		}
		checkRollupTotals(t, c, "ws_up", 4, 4)
		// Migrating again changes nothing.
		if err := c.Migrate(ctx, quiet); err != nil {
			t.Fatal(err)
		}
		if err := c.InsertClicks(ctx, []models.Click{mk("new3", at.Add(3*time.Hour), "US")}); err != nil {
			t.Fatal(err)
		}
		checkRollupTotals(t, c, "ws_up", 5, 5)
	})
}

// checkRollupTotals requires each of the 40 click rollups (dimension ×
// grain) of workspace ws to sum to the raw clicks, n.
func checkRollupTotals(t *testing.T, c *Client, ws string, n, fourWeek int) {
	t.Helper()
	ctx := context.Background()
	var raw string
	if err := c.Query(ctx, "SELECT count() FROM clicks WHERE workspace_id = "+Quote(ws), func(cols []string) error { raw = cols[0]; return nil }); err != nil {
		t.Fatal(err)
	}
	if raw != fmt.Sprint(n) {
		t.Fatalf("clicks holds %s rows of %s, want %d", raw, ws, n)
	}
	dims := 0
	if err := c.Query(ctx, "SELECT dim, sum(count) FROM event_aggregates WHERE event = 'click' AND workspace_id = "+Quote(ws)+" GROUP BY dim ORDER BY dim", func(cols []string) error {
		dims++
		want := raw
		if strings.HasSuffix(cols[0], models.FourWeekSuffix) {
			want = fmt.Sprint(fourWeek) // none for clicks stored before 01580
		}
		if cols[1] != want {
			return fmt.Errorf("rollup %s counts %s clicks of %s, want %s (the raw table %s)", cols[0], cols[1], ws, want, raw)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if dims != 42 {
		t.Fatalf("%d click rollups, want 42 (40 and the link and URL four-week rows)", dims)
	}
}

// rollupsText is the whole of event_aggregates, summed per key, as text.
func rollupsText(t *testing.T, c *Client) string {
	t.Helper()
	return rollupsTextWhere(t, c, "1")
}

// rollupsTextWhere is rollupsText of the rows meeting cond.
func rollupsTextWhere(t *testing.T, c *Client, cond string) string {
	t.Helper()
	var b strings.Builder
	err := c.Query(context.Background(), "SELECT workspace_id, event, dim, toString(hour), value, sum(count), sum(amount) FROM event_aggregates WHERE "+cond+" GROUP BY workspace_id, event, dim, hour, value HAVING sum(count) != 0 ORDER BY workspace_id, event, dim, hour, value",
		func(cols []string) error { b.WriteString(strings.Join(cols, "|") + "\n"); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestClickRollupsMatchRebuild: the rollups Relink sums in Go (clickRollups)
// are the ones the rebuild's SQL (migration 01550's SELECT) computes from
// the raw rows, for hostile text, URLs with and without a query string,
// several workspaces and links, and hours on day, week and month edges;
// retried and overlapping batches leave every rollup equal to the raw
// count.
func TestClickRollupsMatchRebuild(t *testing.T) {
	chtest.Each(t, func(t *testing.T, u string) {
		ctx := context.Background()
		c, err := Open(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		texts := []string{"", "US", "it's", "tab\there", "new\nline", "ünïcødé ✓", "sep\x1fin", `back\slash`, "nul\x00byte", `\N`, "a?b"}
		urls := []string{"https://x.test/", "https://x.test/p?utm_source=ü&b=1", "https://x.test/?", "https://ü.test/ä?q=ß?2", "", "?only"}
		// 2026-11-29 is a Sunday, 2026-11-30 a Monday; 2026-12-01 starts a month.
		times := []time.Time{
			time.Date(2026, 11, 29, 23, 59, 59, 999999000, time.UTC), time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
			time.Date(2026, 11, 30, 23, 30, 0, 1000, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
			time.Date(2026, 12, 7, 1, 2, 3, 0, time.UTC), time.Date(2026, 10, 31, 22, 0, 0, 0, time.UTC),
		}
		var all []models.Click
		for i := range 300 {
			s := func(k int) string { return texts[(i*7+k*13+i/5)%len(texts)] }
			all = append(all, models.Click{ClickID: fmt.Sprintf("rc%04d", i), Timestamp: times[i%len(times)].Add(time.Duration(i/len(times)) * time.Second),
				WorkspaceID: []string{"ws_r1", "ws_r2"}[i%2], LinkID: fmt.Sprintf("link_%d", i%3), URL: urls[(i/2)%len(urls)],
				Continent: s(1), Country: s(2), Region: s(3), City: s(4), Device: s(5), Browser: s(6), OS: s(7),
				Trigger: s(8), Referer: s(9), RefererURL: s(10), Domain: s(11), Key: s(12), IdentityHash: s(13), IP: s(14),
				Latitude: s(15), Longitude: s(16), DeviceVendor: s(17), DeviceModel: s(18), BrowserVersion: s(19), Engine: s(20),
				EngineVersion: s(21), OSVersion: s(22), CPUArchitecture: s(23), UA: s(24), Bot: i%3 == 0, QR: i%4 == 0,
				UTMSource: s(25), UTMMedium: s(26), UTMCampaign: s(27), UTMTerm: s(28), UTMContent: s(29)})
		}
		// Batches: the first 200, the first 200 again (a retry), 150–300
		// (a replay overlapping the stored ones, as ClickRow values: the
		// backfill's and the outbox's form), then all of it.
		for i, b := range [][]models.Click{all[:200], all[:200], all[150:], all} {
			if i == 2 {
				rows := make([]any, len(b))
				for j := range b {
					rows[j] = ClickRow(&b[j])
				}
				if err := c.InsertOnce(ctx, "clicks", rows); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := c.InsertClicks(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		checkRawRows(t, c, all)
		checkRollupTotals(t, c, "ws_r1", 150, 150)
		checkRollupTotals(t, c, "ws_r2", 150, 150)
		// Leads and sales with the same URLs, through their tables' views.
		for i, u := range urls {
			for _, q := range []string{
				fmt.Sprintf("INSERT INTO lead_events (workspace_id, ts, event_id, url) VALUES ('ws_r1', %d, 'le%d', %s)", times[i%len(times)].UnixMicro(), i, Quote(u)),
				fmt.Sprintf("INSERT INTO sale_events (workspace_id, ts, event_id, url, amount) VALUES ('ws_r2', %d, 'se%d', %s, %d)", times[(i+1)%len(times)].UnixMicro(), i, Quote(u), 100+i),
			} {
				if err := c.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
		}
		want, wantHashes, wantURLs := rollupsText(t, c), urlHashesText(t, c), urlsText(t, c)
		checkURLHashes(t, c)
		if err := (&Rebuild{CH: c, Restart: true}).Run(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rollupsText(t, c); got != want {
			t.Fatalf("rollups summed in Go:\n%s\nrebuilt by SQL from the raw rows:\n%s", want, got)
		}
		// The URL hashes the views wrote (clicks_ingest's, the leads' and
		// the sales') are the ones the rebuild computes from the rollups,
		// and the views stored every URL's string.
		if got := urlHashesText(t, c); got != wantHashes {
			t.Fatalf("url_aggregates written by the views:\n%s\nrebuilt from the rollups:\n%s", wantHashes, got)
		}
		if got := urlsText(t, c); got != wantURLs {
			t.Fatalf("urls written by the views:\n%s\nafter the rebuild:\n%s", wantURLs, got)
		}
		checkURLHashes(t, c)
	})
}

// urlHashesText is the whole of url_aggregates (migration 01590), summed
// per key, as text.
func urlHashesText(t *testing.T, c *Client) string {
	t.Helper()
	var b strings.Builder
	err := c.Query(context.Background(), "SELECT workspace_id, event, dim, toString(hour), value_hash, base_hash, sum(count), sum(amount) FROM url_aggregates GROUP BY workspace_id, event, dim, hour, value_hash, base_hash HAVING sum(count) != 0 ORDER BY workspace_id, event, dim, hour, value_hash",
		func(cols []string) error { b.WriteString(strings.Join(cols, "|") + "\n"); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// urlsText is the distinct rows of urls as text.
func urlsText(t *testing.T, c *Client) string {
	t.Helper()
	var b strings.Builder
	err := c.Query(context.Background(), "SELECT DISTINCT workspace_id, value_hash, name FROM urls ORDER BY workspace_id, value_hash, name",
		func(cols []string) error { b.WriteString(strings.Join(cols, "|") + "\n"); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkURLHashes requires url_aggregates to count, per workspace, event
// and URL grain, as many events as event_aggregates' URL rows, each hash
// of a URL and of its cut at '?' to have its string in urls, and each
// string of urls to hash to its value_hash.
func checkURLHashes(t *testing.T, c *Client) {
	t.Helper()
	ctx := context.Background()
	var rolled, hashed []string
	for q, out := range map[string]*[]string{
		"SELECT workspace_id, event, dim, sum(count) AS n FROM event_aggregates WHERE dim IN " + urlDims + " GROUP BY workspace_id, event, dim ORDER BY workspace_id, event, dim": &rolled,
		"SELECT workspace_id, event, dim, sum(count) AS n FROM url_aggregates GROUP BY workspace_id, event, dim ORDER BY workspace_id, event, dim":                                &hashed,
	} {
		if err := c.Query(ctx, q, func(cols []string) error { *out = append(*out, strings.Join(cols, "|")); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(rolled, "\n") != strings.Join(hashed, "\n") || len(rolled) == 0 {
		t.Fatalf("URL rows of event_aggregates:\n%s\nof url_aggregates:\n%s", strings.Join(rolled, "\n"), strings.Join(hashed, "\n"))
	}
	var bad []string
	if err := c.Query(ctx, "SELECT 'no string', toString(h) FROM (SELECT DISTINCT workspace_id, arrayJoin([value_hash, base_hash]) AS h FROM url_aggregates WHERE dim != 'total') "+
		"WHERE (workspace_id, h) NOT IN (SELECT workspace_id, value_hash FROM urls) UNION ALL "+
		"SELECT 'wrong hash', name FROM urls WHERE cityHash64(name) != value_hash", func(cols []string) error {
		bad = append(bad, strings.Join(cols, " "))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("urls: %v", bad)
	}
}

// checkRawRows requires clicks to hold each click of want with every
// column as ClickRow gives it (by column name, so the order of the
// TabSeparated insert is checked too).
func checkRawRows(t *testing.T, c *Client, want []models.Click) {
	t.Helper()
	b, err := json.Marshal(ClickRow(&want[0]))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	cols := make([]string, 0, len(m))
	for k := range m {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	if len(cols) != 36 {
		t.Fatalf("ClickRow has %d columns", len(cols))
	}
	got := map[string][]string{}
	if err := c.Query(context.Background(), "SELECT click_id, "+strings.Join(cols, ", ")+" FROM clicks", func(row []string) error {
		got[row[0]] = row[1:]
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		b, _ := json.Marshal(ClickRow(&want[i]))
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		row, ok := got[want[i].ClickID]
		if !ok {
			t.Fatalf("click %s missing", want[i].ClickID)
		}
		for j, col := range cols {
			w := fmt.Sprint(m[col])
			if f, ok := m[col].(float64); ok {
				w = strconv.FormatFloat(f, 'f', -1, 64)
			}
			if row[j] != w {
				t.Fatalf("click %s: %s is %q, want %q", want[i].ClickID, col, row[j], w)
			}
		}
	}
}
