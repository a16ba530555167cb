package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// exportFixture is acme's link with n clicks in the last hour, three to a
// timestamp (so the keyset pages cross equal timestamps), and one lead and
// one sale on the newest click.
type exportFixture struct {
	*fixture
	linkID, newest string
	n              int
}

func newExportFixture(t *testing.T, db *models.DB, n int) *exportFixture {
	t.Helper()
	f := &exportFixture{fixture: newFixture(t, db), n: n}
	e := f.linkEnv
	f.linkID = e.ok(200, "acme", "POST", "/links", `{"url":"https://dest.example.com/x","domain":"acme.link","key":"x","trackConversion":true}`).json(t)["id"].(string)
	ws := e.ws["acme"]
	base := time.Now().UTC().Add(-30 * time.Minute).Truncate(time.Second)
	clicks := make([]models.Click, n)
	for i := range clicks {
		clicks[i] = models.Click{ClickID: fmt.Sprintf("c%05d", i), Timestamp: base.Add(-time.Duration(i/3) * time.Second),
			WorkspaceID: ws.ID, LinkID: f.linkID, Domain: "acme.link", Key: "x", URL: "https://dest.example.com/x",
			Country: "US", Continent: "NA", Region: "CA", City: "San Francisco", Device: "Desktop", Browser: "Chrome",
			OS: "Mac OS", Trigger: "link", Referer: "(direct)", RefererURL: "(direct)"}
		if i%2 == 1 {
			clicks[i].Country, clicks[i].Continent = "DE", "EU"
		}
	}
	if _, err := db.RecordClicks(context.Background(), clicks, models.AggregateClicks); err != nil {
		t.Fatal(err)
	}
	// c00000..c00002 share the newest timestamp; the highest id sorts first.
	f.newest = "c00002"
	e.ok(200, "acme", "POST", "/track/lead", `{"clickId":"`+f.newest+`","eventName":"Sign up","customerExternalId":"u_1","customerName":"Ada","customerEmail":"ada@example.com","mode":"wait"}`)
	e.ok(200, "acme", "POST", "/track/sale", `{"customerExternalId":"u_1","amount":123456,"eventName":"Purchase","invoiceId":"=inv_1"}`)
	return f
}

func TestExportEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newExportFixture(t, db, 2503)
		e := f.linkEnv

		r := e.ok(200, "acme", "GET", "/events/export?interval=24h&columns=timestamp,link,country,region,clickId,nope", "")
		if cd := r.header.Get("Content-Disposition"); cd != "attachment; filename=clicks_export.csv" {
			t.Errorf("Content-Disposition %q", cd)
		}
		rows := readCSV(t, r)
		if got := strings.Join(rows[0], "|"); got != "Date|Link|Country|Region|Click ID|Nope" {
			t.Errorf("header %q", got)
		}
		if len(rows)-1 != f.n {
			t.Fatalf("%d rows, want every click (%d)", len(rows)-1, f.n)
		}
		seen := map[string]bool{}
		prev := ""
		for _, row := range rows[1:] {
			if seen[row[4]] {
				t.Fatalf("click %s exported twice", row[4])
			}
			seen[row[4]] = true
			if prev != "" && row[0] > prev {
				t.Fatalf("not newest first: %s after %s", row[0], prev)
			}
			prev = row[0]
		}
		first := rows[1]
		if first[1] != "acme.link/x" || first[2] != "United States" || first[3] != "US-CA" || first[4] != f.newest || first[5] != "" {
			t.Errorf("first row %q", first)
		}
		if rows[2][2] != "Germany" {
			t.Errorf("second row's country %q", rows[2][2])
		}

		// Oldest first, default columns (upstream's visible columns).
		rows = readCSV(t, e.ok(200, "acme", "GET", "/events/export?interval=24h&sortOrder=asc", ""))
		if got := strings.Join(rows[0], "|"); got != "Date|Link|Referrer|Country|Device" || len(rows)-1 != f.n || rows[1][0] > rows[len(rows)-1][0] {
			t.Errorf("asc export: header %q, %d rows", got, len(rows)-1)
		}

		rows = readCSV(t, e.ok(200, "acme", "GET", "/events/export?event=sales&interval=24h&columns=saleAmount,event,customer,invoiceId,link,clickId", ""))
		want := "$1,234.56|Purchase|Ada <ada@example.com>|'=inv_1|acme.link/x|" + f.newest
		if len(rows) != 2 || strings.Join(rows[1], "|") != want {
			t.Errorf("sales export %q, want one row %s", rows, want)
		}
		rows = readCSV(t, e.ok(200, "acme", "GET", "/events/export?event=leads&interval=24h&columns=event,customerName,customerExternalId", ""))
		if len(rows) != 2 || strings.Join(rows[1], "|") != "Sign up|Ada|u_1" {
			t.Errorf("leads export %q", rows)
		}

		// Filters as GET /events: another link has none of these clicks. (A
		// second key: the analytics rate limit is per key.)
		e.scopedKey("acme2", "acme", "apis.all")
		e.scopedKey("acme3", "acme", "apis.all")
		other := e.ok(200, "acme", "POST", "/links", `{"url":"https://dest.example.com/y","domain":"acme.link","key":"y"}`).json(t)["id"].(string)
		if rows := readCSV(t, e.ok(200, "acme2", "GET", "/events/export?interval=24h&linkId="+other, "")); len(rows) != 1 {
			t.Errorf("linkId filter: %d rows", len(rows)-1)
		}
		if rows := readCSV(t, e.ok(200, "acme2", "GET", "/events/export?interval=24h&country=DE&columns=country", "")); len(rows)-1 != f.n/2 {
			t.Errorf("country filter: %d rows, want %d", len(rows)-1, f.n/2)
		}
		// Another workspace sees none of them.
		if rows := readCSV(t, e.ok(200, "other", "GET", "/events/export?interval=24h", "")); len(rows) != 1 {
			t.Errorf("other workspace: %d rows", len(rows)-1)
		}

		e.expectErr(e.do("acme3", "GET", "/events/export?event=composite", ""), 422, "unprocessable_entity", `invalid_value: event: Invalid option: expected one of "clicks"|"leads"|"sales"`)
		e.expectErr(e.do("acme3", "GET", "/events/export?domain=acme.link&key=nope", ""), 404, "not_found", "Link not found.")
		e.expectErr(e.do("acme3", "GET", "/events/export?columns=,", ""), 422, "unprocessable_entity", "invalid_type: columns: Select at least one column to export.")
		if r := e.do("pro", "GET", "/events/export", ""); r.status != 403 {
			t.Errorf("pro plan: %d %s", r.status, r.body)
		}
		if r := e.do("", "GET", "/events/export", ""); r.status != 401 {
			t.Errorf("no key: %d", r.status)
		}
	})
}

// EachEvent hands the events over in batches of at most ExportBatch: the
// export never holds more than one batch, however many events there are.
func TestEachEventStreamsBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newExportFixture(t, db, 2503)
		e := f.linkEnv
		eng := e.srv.Services().Analytics
		if _, ok := eng.(analytics.EventWalker); !ok {
			t.Fatal("the SQL engine does not stream events")
		}
		q, err := analytics.Parse(map[string][]string{"interval": {"24h"}}, analytics.EndpointEvents, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int
		total, held := 0, 0
		err = analytics.EachEvent(t.Context(), eng, e.ws["acme"], q, func(b []analytics.EventRecord) error {
			sizes = append(sizes, len(b))
			total += len(b)
			held = max(held, len(b))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if total != f.n || held > analytics.ExportBatch || len(sizes) != 3 {
			t.Errorf("%d events in batches %v (largest %d)", total, sizes, held)
		}
		// An error from the consumer stops the walk.
		calls := 0
		stop := fmt.Errorf("stop")
		err = analytics.EachEvent(t.Context(), eng, e.ws["acme"], q, func([]analytics.EventRecord) error { calls++; return stop })
		if err != stop || calls != 1 {
			t.Errorf("err %v after %d batches", err, calls)
		}
	})
}

// readZip opens an analytics export.
func readZip(t *testing.T, r linkResp) map[string][][]string {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/zip" {
		t.Fatalf("Content-Type %q: %s", ct, r.body)
	}
	if cd := r.header.Get("Content-Disposition"); cd != "attachment; filename=analytics_export.zip" {
		t.Errorf("Content-Disposition %q", cd)
	}
	zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		t.Fatalf("zip: %v", err)
	}
	out := map[string][][]string{}
	for _, f := range zr.File {
		// Files carry the export's date (issue 33 item 6: not 1980).
		if d := time.Since(f.Modified); d < -time.Hour || d > 24*time.Hour {
			t.Errorf("%s dated %v", f.Name, f.Modified)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out[f.Name] = rows
	}
	return out
}

func TestExportAnalytics(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newExportFixture(t, db, 10)
		e := f.linkEnv
		files := readZip(t, e.ok(200, "acme", "GET", "/analytics/export?interval=24h", ""))
		for _, name := range []string{"timeseries.csv", "countries.csv", "continents.csv", "devices.csv", "top_links.csv", "top_domains.csv", "referers.csv"} {
			if files[name] == nil {
				t.Errorf("%s missing from %v", name, zipNames(files))
			}
		}
		if files["triggers.csv"] == nil {
			t.Errorf("triggers.csv missing from %v", zipNames(files))
		}
		for _, name := range []string{"count.csv", "top_partners.csv", "utm_sources.csv", "trigger.csv"} {
			if files[name] != nil {
				t.Errorf("%s in the zip (count is never exported; empty groupings are skipped; trigger is triggers' old name)", name)
			}
		}
		countries := files["countries.csv"]
		if got := strings.Join(countries[0], "|"); got != "city|country|region|clicks|leads|sales|saleAmount" {
			t.Errorf("countries header %q", got)
		}
		byCountry := map[string]string{}
		for _, r := range countries[1:] {
			byCountry[r[1]] = strings.Join(r, "|")
		}
		// Business plan: the composite event (clicks, leads, sales, revenue).
		if byCountry["US"] != "*|US|*|5|1|1|123456" || byCountry["DE"] != "*|DE|*|5|0|0|0" {
			t.Errorf("countries %q", countries)
		}
		if got := strings.Join(files["top_links.csv"][0], "|"); !strings.Contains(got, "shortLink") || !strings.HasSuffix(got, "clicks|leads|sales|saleAmount") {
			t.Errorf("top_links header %q", got)
		}

		// Once every 30 seconds per workspace, as upstream.
		e.expectErr(e.do("acme", "GET", "/analytics/export?interval=24h", ""), 429, "rate_limit_exceeded", "Analytics export is limited to once every 30 seconds. Please try again shortly.")
		// Bad input is a 4xx before any byte of the zip (as upstream, the
		// limit is counted first).
		e.workspace("biz2", models.PlanBusiness)
		e.expectErr(e.do("biz2", "GET", "/analytics/export?interval=nope", ""), 422, "unprocessable_entity", `invalid_value: interval: Invalid option: expected one of "24h"|"7d"|"30d"|"90d"|"1y"|"mtd"|"qtd"|"ytd"|"all"`)
		// Another workspace has its own limit and sees none of acme's clicks.
		if files := readZip(t, e.ok(200, "other", "GET", "/analytics/export?interval=24h", "")); len(files) != 1 || len(files["timeseries.csv"]) < 2 {
			t.Errorf("other workspace's export: %v", zipNames(files))
		} else {
			for _, r := range files["timeseries.csv"][1:] {
				if r[1] != "0" {
					t.Errorf("other workspace's timeseries %q", r)
				}
			}
		}
		// One link: no top_links file (upstream skips it).
		files = readZip(t, e.ok(200, "pro", "GET", "/analytics/export?interval=24h", ""))
		if files["timeseries.csv"] == nil {
			t.Errorf("pro: %v", zipNames(files))
		}
		e.expectErr(e.do("freebie", "GET", "/analytics/export", ""), 403, "forbidden", "Analytics API is only available on paid plans.")
	})
}

func TestExportAnalyticsSingleLink(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newExportFixture(t, db, 4)
		files := readZip(t, f.linkEnv.ok(200, "acme", "GET", "/analytics/export?interval=24h&linkId="+f.linkID, ""))
		if files["top_links.csv"] != nil || files["countries.csv"] == nil {
			t.Errorf("single-link export: %v", zipNames(files))
		}
	})
}

func zipNames(m map[string][][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
