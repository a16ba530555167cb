package chstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }

var quiet = slog.New(slog.DiscardHandler)

// eachCH runs f against every kind of ClickHouse (chtest.Kinds: Debian's
// 18.16 and a current release through chDB), on a migrated new database.
func eachCH(t *testing.T, f func(t *testing.T, c *chstore.Client)) {
	chtest.Each(t, func(t *testing.T, u string) { f(t, open(t, u)) })
}

func open(t *testing.T, u string) *chstore.Client {
	t.Helper()
	c, err := chstore.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Migrate(context.Background(), quiet); err != nil {
		t.Fatal(err)
	}
	return c
}

func count(t *testing.T, c *chstore.Client, q string) string {
	t.Helper()
	var n string
	if err := c.Query(context.Background(), q, func(cols []string) error { n = cols[0]; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenRejects: URLs that cannot be an HTTP ClickHouse database.
func TestOpenRejects(t *testing.T) {
	for _, u := range []string{"tcp://127.0.0.1:9000/relink", "http:///relink", "http://127.0.0.1:8123/re-link", "::"} {
		if _, err := chstore.Open(u); err == nil {
			t.Errorf("Open(%q) accepted", u)
		}
	}
	c, err := chstore.Open("http://u:secret@127.0.0.1:8123")
	if err != nil || c.Database != "relink" || strings.Contains(c.String(), "secret") {
		t.Fatalf("Open: %v %q %s", err, c.Database, c)
	}
}

// TestMigrate: the migrations apply once, a second start applies nothing,
// and the codec migration waits on an 18.16 server.
func TestMigrate(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		ctx := context.Background()
		if err := c.Migrate(ctx, quiet); err != nil {
			t.Fatal(err)
		}
		if n := count(t, c, "SELECT count() FROM schema_migrations WHERE version = 1100"); n != "1" {
			t.Fatalf("migration 1100 recorded %s times", n)
		}
		v, err := c.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := "0"
		if v[0] > 19 || v[0] == 19 && v[1] >= 17 {
			want = "1"
		}
		if n := count(t, c, "SELECT count() FROM schema_migrations WHERE version = 1101"); n != want {
			t.Fatalf("server %v: codec migration recorded %s times, want %s", v, n, want)
		}
		for _, table := range []string{"clicks", "lead_events", "sale_events"} {
			if key := count(t, c, "SELECT sorting_key FROM system.tables WHERE database = currentDatabase() AND name = '"+table+"'"); !strings.HasPrefix(key, "workspace_id, time") {
				t.Errorf("%s is ordered by %q", table, key)
			}
		}
	})
}

// TestQuoteAndTSV: hostile text goes in as JSON and as a literal and
// comes back unchanged through TabSeparated.
func TestQuoteAndTSV(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		ctx := context.Background()
		vals := []string{"plain", `it's`, `back\slash`, "tab\there", "new\nline", "cr\rx", "nul\x00byte", `\N`, "ünïcødé ✓", `'); DROP TABLE clicks; --`, `\'`, ""}
		var rows []any
		for i, v := range vals {
			rows = append(rows, map[string]any{"workspace_id": "w", "ts": i, "click_id": v})
		}
		if err := c.Insert(ctx, "clicks", rows); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			var got []string
			if err := c.Query(ctx, fmt.Sprintf("SELECT click_id, %s FROM clicks WHERE ts = %d", chstore.Quote(v), i), func(cols []string) error {
				got = cols
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0] != v || got[1] != v {
				t.Errorf("%q came back as %q", v, got)
			}
			if n := count(t, c, "SELECT count() FROM clicks WHERE click_id = "+chstore.Quote(v)); n != "1" {
				t.Errorf("%q matched %s rows", v, n)
			}
		}
	})
}

func clicks(n int, ws string, at time.Time) []models.Click {
	out := make([]models.Click, n)
	for i := range out {
		out[i] = models.Click{ClickID: ids.Nano(16), Timestamp: at.Add(time.Duration(i) * time.Millisecond), WorkspaceID: ws,
			LinkID: "link_x", Domain: "d.link", Key: "k", URL: "https://example.com/?a=1", Country: "US",
			IdentityHash: "visitor-" + fmt.Sprint(i), City: "Berlin", Device: "Mobile", Browser: "Chrome", OS: "iOS",
			Referer: "google.com", UTMSource: "news", QR: i%2 == 0, Trigger: "link"}
	}
	return out
}

// checkSlim: each click of batch is stored once. ClickHouse has the whole
// click; the SQL store has its slim row only, in the attribution table —
// what a lead copies (models.AttrsOf), its time and workspace, no identity
// hash — and no SQL event aggregate counts it.
func checkSlim(t *testing.T, db *models.DB, c *chstore.Client, batch []models.Click) {
	t.Helper()
	for _, want := range batch {
		var got models.Click
		if err := db.Table(models.AttributionTable).Select(models.AttributionSelect).Where("click_id = ?", want.ClickID).Take(&got).Error; err != nil {
			t.Fatalf("the attribution table: %s: %v", want.ClickID, err)
		}
		var inClicks int64
		db.Raw("SELECT COUNT(*) FROM clicks WHERE click_id = ?", want.ClickID).Scan(&inClicks)
		if inClicks != 0 {
			t.Fatalf("%s is in the SQL clicks table too", want.ClickID)
		}
		if got.IdentityHash != "" {
			t.Fatalf("the SQL store kept the identity hash of %s", want.ClickID)
		}
		if models.AttrsOf(&got) != models.AttrsOf(&want) || !got.Timestamp.Equal(want.Timestamp) || got.WorkspaceID != want.WorkspaceID {
			t.Fatalf("slim row %+v\nwant the attributes of %+v", got, want)
		}
		if n := count(t, c, "SELECT count() FROM clicks WHERE identity_hash = "+chstore.Quote(want.IdentityHash)+" AND click_id = "+chstore.Quote(want.ClickID)); n != "1" {
			t.Fatalf("clickhouse holds %s whole copies of %s", n, want.ClickID)
		}
	}
	var aggs int64
	db.Raw("SELECT COUNT(*) FROM event_aggregates WHERE workspace_id = ? AND event = ?", batch[0].WorkspaceID, models.AggClick).Scan(&aggs)
	if aggs != 0 {
		t.Fatalf("%d SQL click aggregates written with ClickHouse on", aggs)
	}
}

// TestClickTrim: the job deletes the SQL store's slim rows past the
// attribution window that ClickHouse holds — in the attribution table and
// in clicks (an earlier release's slim rows) — keeps the newer ones (a
// click at the cut itself included), and keeps old clicks ClickHouse does
// not hold (stored before the event store was on, not yet backfilled)
// until the backfill has copied them.
func TestClickTrim(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		testdb.Each(t, func(t *testing.T, db *models.DB) {
			ctx := context.Background()
			ws, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "trim", Slug: "trim-" + ids.Nano(4), Plan: models.PlanPro})
			if err != nil {
				t.Fatal(err)
			}
			wsID := ws.Workspace.ID
			now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
			window := 90 * 24 * time.Hour
			cut := now.Add(-window)
			s := &chstore.ClickStore{SQL: db, CH: c}
			// 2,500 old clicks (more than one trim batch), 2 just past the
			// cut (its day), 1 at the cut and 5 just inside the window,
			// through the store (the attribution table, ClickHouse); 7 old
			// ones only the SQL clicks table has, 4 only the attribution
			// table has, 3 old ones an earlier release stored in clicks
			// and ClickHouse holds.
			old := clicks(2500, wsID, cut.Add(-48*time.Hour))
			edge := clicks(2, wsID, cut.Add(-time.Second))
			atCut := clicks(1, wsID, cut)
			recent := clicks(5, wsID, cut.Add(time.Minute))
			sqlOnly := clicks(7, wsID, cut.Add(-time.Hour))
			attrOnly := clicks(4, wsID, cut.Add(-30*time.Hour))
			legacy := clicks(3, wsID, cut.Add(-72*time.Hour))
			// old twice: a batch this large goes in as parallel inserts,
			// each written once however often the batch is retried.
			for _, b := range [][]models.Click{old, edge, atCut, recent, old} {
				if _, err := s.RecordClicks(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			for _, b := range [][]models.Click{sqlOnly, legacy} {
				if _, err := db.RecordClicks(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.RecordAttributionClicks(ctx, attrOnly); err != nil {
				t.Fatal(err)
			}
			if err := c.InsertClicks(ctx, legacy); err != nil {
				t.Fatal(err)
			}
			trim := &chstore.ClickTrim{SQL: db, CH: c, Window: window, Now: func() time.Time { return now }, Log: quiet}
			res, err := trim.Trim(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Deleted != 2505 || res.Attribution != 2502 || res.Waiting != 11 {
				t.Fatalf("trim: %+v, want 2505 deleted (2502 from the attribution table) and 11 waiting", res)
			}
			var left []string
			db.Raw("SELECT click_id FROM clicks WHERE workspace_id = ? UNION ALL SELECT click_id FROM attribution_clicks WHERE workspace_id = ?", wsID, wsID).Scan(&left)
			slices.Sort(left)
			var want []string
			for _, b := range [][]models.Click{atCut, recent, sqlOnly, attrOnly} {
				for _, k := range b {
					want = append(want, k.ClickID)
				}
			}
			slices.Sort(want)
			if !slices.Equal(left, want) {
				t.Fatalf("the SQL store kept %d clicks, want the one at the cut, the 5 recent and the 11 not in ClickHouse", len(left))
			}
			// ClickHouse keeps every click it was given.
			if n := count(t, c, "SELECT count() FROM clicks WHERE workspace_id = "+chstore.Quote(wsID)); n != "2511" {
				t.Fatalf("clickhouse holds %s clicks, want 2511", n)
			}
			// Once the backfill copied them, the next run trims them too.
			if err := (&chstore.Backfill{SQL: db, CH: c, Restart: true}).Run(ctx); err != nil {
				t.Fatal(err)
			}
			if res, err := trim.Trim(ctx); err != nil || res.Deleted != 11 || res.Attribution != 4 || res.Waiting != 0 {
				t.Fatalf("trim after the backfill: %+v %v", res, err)
			}
		})
	})
}

// TestEventUsage: the usage limits count the ClickHouse rollups' totals
// with the event store on (the SQL store has no click aggregates then).
func TestEventUsage(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		ctx := context.Background()
		ws := "usage-" + ids.Nano(6)
		month := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		if err := c.InsertClicks(ctx, clicks(4, ws, month.Add(-time.Hour))); err != nil {
			t.Fatal(err)
		}
		if err := c.InsertClicks(ctx, clicks(6, ws, month.Add(30*time.Minute))); err != nil {
			t.Fatal(err)
		}
		if n, err := c.EventUsage(ctx, ws, month); err != nil || n != 6 {
			t.Fatalf("usage since %s: %d %v, want 6", month, n, err)
		}
		if n, err := c.EventUsage(ctx, "nobody", month); err != nil || n != 0 {
			t.Fatalf("usage of an unknown workspace: %d %v", n, err)
		}
	})
}

// TestClickStore: a batch is in both stores once written; the same batch
// written again (a retry after a timeout) counts once, in ClickHouse, in
// the attribution table and in the link counter; with ClickHouse down the
// write fails, so the pipeline keeps the batch in its journal, and its
// retry counts no click twice.
func TestClickStore(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		testdb.Each(t, func(t *testing.T, db *models.DB) {
			ctx := context.Background()
			ws, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "cs", Slug: "cs-" + ids.Nano(4), Plan: models.PlanPro})
			if err != nil {
				t.Fatal(err)
			}
			link := &models.Link{WorkspaceID: ws.Workspace.ID, Domain: "d.link", Key: "k", URL: "https://example.com/?a=1"}
			if err := db.CreateLink(ctx, link); err != nil {
				t.Fatal(err)
			}
			counter := func() int64 {
				t.Helper()
				l, err := db.LinkByID(ctx, ws.Workspace.ID, link.ID)
				if err != nil {
					t.Fatal(err)
				}
				return l.Clicks
			}
			onLink := func(cs []models.Click) []models.Click {
				for i := range cs {
					cs[i].LinkID = link.ID
				}
				return cs
			}
			batch := onLink(clicks(50, ws.Workspace.ID, time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)))
			s := &chstore.ClickStore{SQL: db, CH: c}
			for i, want := range []int{50, 0} {
				if n, err := s.RecordClicks(ctx, batch); err != nil || n != want {
					t.Fatalf("write %d: %d new, %v; want %d", i+1, n, err, want)
				}
			}
			if n := counter(); n != 50 {
				t.Fatalf("the link counts %d clicks after the batch written twice, want 50", n)
			}
			// Without FINAL: InsertOnce wrote each click once, and the
			// rollups counted each once.
			q := "SELECT count() FROM clicks WHERE workspace_id = " + chstore.Quote(ws.Workspace.ID)
			rolled := "SELECT sum(count) FROM event_aggregates WHERE event = 'click' AND dim = 'country@week' AND workspace_id = " + chstore.Quote(ws.Workspace.ID)
			if n, r := count(t, c, q), count(t, c, rolled); n != "50" || r != "50" {
				t.Fatalf("clickhouse holds %s clicks (rollups %s) of 50 written twice", n, r)
			}
			var sqlN int64
			db.Raw("SELECT COUNT(*) FROM attribution_clicks WHERE workspace_id = ?", ws.Workspace.ID).Scan(&sqlN)
			if sqlN != 50 {
				t.Fatalf("sql holds %d slim rows", sqlN)
			}
			checkSlim(t, db, c, batch)
			down, _ := chstore.Open("http://127.0.0.1:1/relink")
			more := onLink(clicks(3, ws.Workspace.ID, time.Date(2026, 11, 1, 13, 0, 0, 0, time.UTC)))
			if _, err := (&chstore.ClickStore{SQL: db, CH: down}).RecordClicks(ctx, more); err == nil {
				t.Fatal("a batch ClickHouse did not take was reported written")
			}
			// The retry once ClickHouse is back writes them (SQL skips its copy).
			if _, err := s.RecordClicks(ctx, more); err != nil {
				t.Fatal(err)
			}
			if n, r := count(t, c, q), count(t, c, rolled); n != "53" || r != "53" {
				t.Fatalf("after the retry clickhouse holds %s clicks (rollups %s), want 53", n, r)
			}
			// The SQL side committed the first attempt (its slim rows and
			// the counter); the retry counted nothing again.
			if n := counter(); n != 53 {
				t.Fatalf("the link counts %d clicks after the failed attempt and its retry, want 53", n)
			}
			checkSlim(t, db, c, more)
		})
	})
}

// TestOutbox: with the outbox enabled every lead and sale inserted is
// copied; during an outage the entries stay; copying twice counts once;
// before Enable nothing is queued (the default without ClickHouse).
func TestOutbox(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		testdb.Each(t, func(t *testing.T, db *models.DB) {
			ctx := context.Background()
			ws, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "ob", Slug: "ob-" + ids.Nano(4), Plan: models.PlanPro})
			if err != nil {
				t.Fatal(err)
			}
			wsID := ws.Workspace.ID
			at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
			lead := func() models.LeadEvent {
				return models.LeadEvent{EventID: ids.Nano(16), Timestamp: at, WorkspaceID: wsID, EventName: "Sign up",
					CustomerID: "cus_1", Metadata: models.Metadata{"plan": "pro"}, ClickAttrs: models.ClickAttrs{ClickID: "c1", LinkID: "l1", Country: "DE"}}
			}
			if err := db.InsertLeadEvents(ctx, []models.LeadEvent{lead()}); err != nil {
				t.Fatal(err)
			}
			ob := &chstore.Outbox{SQL: db, CH: c, Log: quiet}
			if n, _ := ob.Pending(ctx); n != 0 {
				t.Fatalf("%d outbox entries before Enable", n)
			}
			if err := ob.Enable(ctx); err != nil {
				t.Fatal(err)
			}
			if err := db.InsertLeadEvents(ctx, []models.LeadEvent{lead(), lead()}); err != nil {
				t.Fatal(err)
			}
			sale := models.SaleEvent{EventID: ids.Nano(16), Timestamp: at.Add(time.Hour), WorkspaceID: wsID, EventName: "Purchase",
				CustomerID: "cus_1", Amount: 1234, Currency: "usd", PaymentProcessor: "stripe", InvoiceID: "in_1",
				ClickAttrs: models.ClickAttrs{ClickID: "c1", LinkID: "l1"}}
			if err := db.WithContext(ctx).Create(&sale).Error; err != nil {
				t.Fatal(err)
			}
			down, _ := chstore.Open("http://127.0.0.1:1/relink")
			if err := (&chstore.Outbox{SQL: db, CH: down, Log: quiet}).Run(ctx); err == nil {
				t.Fatal("the outbox reported a copy to a server that is down")
			}
			if n, _ := ob.Pending(ctx); n != 3 {
				t.Fatalf("after the outage %d outbox entries, want 3", n)
			}
			if err := ob.Run(ctx); err != nil {
				t.Fatal(err)
			}
			if n, _ := ob.Pending(ctx); n != 0 {
				t.Fatalf("%d outbox entries left", n)
			}
			// A second copy (two instances, or a crash before the delete).
			db.Exec("INSERT INTO clickhouse_outbox (kind, event_id) VALUES ('sale', ?)", sale.EventID)
			if err := ob.Run(ctx); err != nil {
				t.Fatal(err)
			}
			w := " WHERE workspace_id = " + chstore.Quote(wsID)
			if n := count(t, c, "SELECT count() FROM lead_events"+w); n != "2" {
				t.Fatalf("clickhouse leads = %s, want 2", n)
			}
			if n := count(t, c, "SELECT sum(amount) FROM sale_events"+w); n != "1234" {
				t.Fatalf("clickhouse sale amount = %s, want 1234", n)
			}
			if n := count(t, c, "SELECT sum(amount) FROM event_aggregates"+w+" AND event = 'sale' AND dim = 'link@day'"); n != "1234" {
				t.Fatalf("rolled-up sale amount = %s, want 1234", n)
			}
			// Two instances draining one outbox at once copy each entry once
			// (row claims on PostgreSQL; one process on SQLite).
			var many []models.LeadEvent
			for range 500 {
				many = append(many, lead())
			}
			if err := db.InsertLeadEvents(ctx, many); err != nil {
				t.Fatal(err)
			}
			other := &chstore.Outbox{SQL: db, CH: c, Log: quiet}
			if db.Dialect == "sqlite" {
				other = ob
			}
			errs := make(chan error, 2)
			for _, o := range []*chstore.Outbox{ob, other} {
				go func() { errs <- o.Run(ctx) }()
			}
			for range 2 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if n, r := count(t, c, "SELECT count() FROM lead_events"+w), count(t, c, "SELECT sum(count) FROM event_aggregates"+w+" AND event = 'lead' AND dim = 'total'"); n != "502" || r != "502" {
				t.Fatalf("after two concurrent drains clickhouse leads = %s (rollups %s), want 502", n, r)
			}
			if md := count(t, c, "SELECT metadata FROM lead_events"+w+" LIMIT 1"); md != `{"plan":"pro"}` {
				t.Fatalf("metadata = %q", md)
			}
		})
	})
}

// TestInsertOnceSpans: InsertOnce finds the stored ids of a batch both ways
// (storedIDs): by reading the ids of the batch's whole time span (a span
// holding few other rows, the pipeline's case) and by an IN list (a span
// holding many more rows than the batch, here 3,000 around a 4-click batch
// mixing stored and new clicks). Either way each click is stored once.
func TestInsertOnceSpans(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		ctx := context.Background()
		at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
		crowd := clicks(3000, "ws_span", at) // 10 ms apart: 30 s
		for i := range crowd {
			crowd[i].Timestamp = at.Add(time.Duration(i) * 10 * time.Millisecond)
		}
		if err := c.InsertClicks(ctx, crowd); err != nil {
			t.Fatal(err)
		}
		fresh := clicks(2, "ws_span", at.Add(40*time.Second))
		for _, batch := range [][]models.Click{
			{crowd[2999], fresh[0]},                     // 100 of the crowd in its span: ids read
			{crowd[0], crowd[2999], fresh[0], fresh[1]}, // the whole crowd's span: IN list
		} {
			if err := c.InsertClicks(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
		if n, u := count(t, c, "SELECT count() FROM clicks WHERE workspace_id = 'ws_span'"), count(t, c, "SELECT uniqExact(click_id) FROM clicks WHERE workspace_id = 'ws_span'"); n != "3002" || u != n {
			t.Fatalf("%s rows, %s ids; want 3002 once each", n, u)
		}
	})
}

// TestSyntheticClickThroughOutbox: a click the server writes itself (a
// manual commission's, models.DB.InsertSyntheticClick; imported clicks)
// reaches ClickHouse through the outbox once the event store is on, and no
// SQL click aggregate counts it; before, it is aggregated in SQL as without
// ClickHouse.
func TestSyntheticClickThroughOutbox(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		testdb.Each(t, func(t *testing.T, db *models.DB) {
			ctx := context.Background()
			ws, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "syn", Slug: "syn-" + ids.Nano(4), Plan: models.PlanPro})
			if err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
			before, after := clicks(1, ws.Workspace.ID, at)[0], clicks(1, ws.Workspace.ID, at.Add(time.Hour))[0]
			aggs := func() (n int64) {
				db.Raw("SELECT COALESCE(SUM(count), 0) FROM event_aggregates WHERE workspace_id = ? AND event = ? AND dim = ?", ws.Workspace.ID, models.AggClick, models.DimTotal).Scan(&n)
				return n
			}
			if err := db.InsertSyntheticClick(ctx, before); err != nil || aggs() != 1 {
				t.Fatalf("without the event store: %v, %d aggregated", err, aggs())
			}
			ob := &chstore.Outbox{SQL: db, CH: c, Log: quiet}
			if err := ob.Enable(ctx); err != nil {
				t.Fatal(err)
			}
			if err := db.Tx(ctx, func(tx *models.DB) error { return tx.InsertSyntheticClick(ctx, after) }); err != nil {
				t.Fatal(err)
			}
			if n := aggs(); n != 1 {
				t.Fatalf("the synthetic click was aggregated in SQL with the event store on (%d)", n)
			}
			if err := ob.Run(ctx); err != nil {
				t.Fatal(err)
			}
			q := "SELECT count(), (SELECT sum(count) FROM event_aggregates WHERE event = 'click' AND dim = 'total' AND workspace_id = " + chstore.Quote(ws.Workspace.ID) + ") FROM clicks WHERE click_id = " + chstore.Quote(after.ClickID)
			var got []string
			if err := c.Query(ctx, q, func(cols []string) error { got = cols; return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0] != "1" || got[1] != "1" {
				t.Fatalf("clickhouse: %v, want the click once and counted once", got)
			}
			if n, _ := ob.Pending(ctx); n != 0 {
				t.Fatalf("%d outbox entries left", n)
			}
			// Imported clicks (internal/importer) take the same way: the
			// hook ClickAggregation names queues them (over 500: in chunks).
			imported := clicks(600, ws.Workspace.ID, at.Add(-48*time.Hour))
			hook, err := db.ClickAggregation(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.RecordClicks(ctx, imported, hook); err != nil {
				t.Fatal(err)
			}
			if n := aggs(); n != 1 {
				t.Fatalf("imported clicks were aggregated in SQL with the event store on (%d)", n)
			}
			if n, _ := ob.Pending(ctx); n != 600 {
				t.Fatalf("%d outbox entries for 600 imported clicks", n)
			}
			if err := ob.Run(ctx); err != nil {
				t.Fatal(err)
			}
			if n := count(t, c, "SELECT count() FROM clicks WHERE workspace_id = "+chstore.Quote(ws.Workspace.ID)); n != "601" {
				t.Fatalf("clickhouse holds %s of the workspace's clicks, want 601", n)
			}
		})
	})
}

// TestQueryDefaults: where the server knows use_top_k_dynamic_filtering
// (ClickHouse 26), every Query runs with it off; where it does not (18.16)
// queries run without it instead of failing on an unknown setting.
func TestQueryDefaults(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		known := count(t, c, "SELECT count() FROM system.settings WHERE name = 'use_top_k_dynamic_filtering'")
		if known == "0" {
			if n := count(t, c, "SELECT 1"); n != "1" {
				t.Fatalf("SELECT 1 answered %q", n)
			}
			return
		}
		if v := count(t, c, "SELECT value FROM system.settings WHERE name = 'use_top_k_dynamic_filtering'"); v != "0" {
			t.Fatalf("use_top_k_dynamic_filtering is %q in a Query, want 0", v)
		}
	})
}
