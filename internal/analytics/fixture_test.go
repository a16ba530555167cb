package analytics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions/convtest"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/internal/wire/dubjson"
	"github.com/relinkhq/relink/models"
)

var (
	uaMacChrome = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	uaIPhone    = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
	uaAndroid   = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
	uaWindows   = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0"
	uas         = []string{uaMacChrome, uaIPhone, uaAndroid, uaWindows}
	places      = []geo.Hint{
		{Country: "US", Region: "CA", City: "San Francisco"}, {Country: "US", Region: "NY", City: "New York"},
		{Country: "DE", Region: "BE", City: "Berlin"}, {Country: "IN", Region: "MH", City: "Mumbai"},
		{Country: "BR", Region: "SP", City: "São Paulo"}, {Country: "JP", Region: "13", City: "Tokyo"},
		{Country: "", Region: "", City: ""},
	}
	referers = []string{"", "https://www.google.com/search?q=x", "https://news.example/post?id=3", "https://t.co/abc"}
)

// world is a workspace with links, a partner, folder and tags, and events
// written through the real click pipeline and conversion service.
type world struct {
	t     testing.TB
	ctx   context.Context
	db    *models.DB
	ws    *models.Workspace
	now   time.Time
	links []*models.Link
	pipe  *ingest.Pipeline
	svc   *conversions.Service
	clock time.Time // the conversion service's clock
	tags  []string
	fold  string
	part  string
	group string

	// The ClickHouse event stores (one per kind installed, chtest.Kinds:
	// Debian's 18.16 and a current release through chDB): the pipeline
	// writes through chstore.ClickStore and the outbox carries leads and
	// sales to the first, as in production; clicks, leads and sales reach
	// the others by the same inserts (syncClickHouse).
	chs    []chTarget
	outbox *chstore.Outbox
	// slim is the SQL database the production click store (the ClickHouse-
	// only path: chstore.ClickStore without aggregate hooks) writes its slim
	// rows into; chSQL is the world's database as the ClickHouse engines
	// see it: any statement on the SQL event tables or their aggregates
	// fails the test (sqlGuard), so their answers cannot depend on what
	// that path no longer writes.
	slim  *models.DB
	chSQL *models.DB

	clicks []models.Click // what the pipeline stored (for leads)
	nLeads int
	nSales int
}

func newWorld(t testing.TB, db *models.DB, slug string, now time.Time) *world {
	t.Helper()
	return newWorldOn(t, db, slug, now, []string{chtest.ClickHouse})
}

// newWorldOn is newWorld with a ClickHouse store of each of the kinds
// (chtest) installed. Most tests use the one server (18.16); the engine
// property test (TestAggregateEqualsRaw) adds a current release (chDB).
func newWorldOn(t testing.TB, db *models.DB, slug string, now time.Time, kinds []string) *world {
	t.Helper()
	ctx := context.Background()
	c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: slug, Slug: slug, Plan: models.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, ctx: ctx, db: db, ws: c.Workspace, now: now}
	created := now.AddDate(0, -3, 0)
	if err := db.Exec("UPDATE workspaces SET created_at = ? WHERE id = ?", created.UTC(), w.ws.ID).Error; err != nil {
		t.Fatal(err)
	}
	w.ws.CreatedAt = created
	w.svc = convtest.New(t, db, func() time.Time { return w.clock })
	var store ingest.Store = db
	for _, kind := range kinds {
		if !slices.Contains(chtest.Kinds, kind) {
			continue
		}
		if u := chtest.Optional(t, kind); u != "" {
			ch, ob := openClickHouse(t, db, u)
			w.chs = append(w.chs, chTarget{name: kind, c: ch})
			if w.outbox == nil {
				w.outbox = ob
			}
		}
	}
	if len(w.chs) > 0 {
		w.slim = testdb.Open(t, db.Dialect)
		w.chSQL = guarded(t, db)
		store = teeStore{sql: db, first: &chstore.ClickStore{SQL: w.slim, CH: w.chs[0].c}, more: w.chs[1:]}
	}
	w.pipe = ingest.New(store, ingest.Options{DedupWindow: -1, BatchSize: 500, FlushInterval: time.Hour,
		Hooks: []models.ClickHook{models.AggregateClicks}})
	t.Cleanup(func() { _ = w.pipe.Drain(context.Background()) })

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range []string{"red", "blue"} {
		tg := &models.Tag{ID: ids.New(ids.Tag), WorkspaceID: w.ws.ID, Name: fmt.Sprintf("tag-%d", i), Color: name}
		must(db.WithContext(ctx).Create(tg).Error)
		w.tags = append(w.tags, tg.ID)
	}
	f := &models.Folder{ID: ids.New(ids.Folder), WorkspaceID: w.ws.ID, Name: "Campaigns", Type: "default"}
	must(db.WithContext(ctx).Create(f).Error)
	w.fold = f.ID
	ep, err := w.svc.EnrollPartner(ctx, w.ws, conversions.EnrollInput{Email: "pat@" + slug + ".example"})
	must(err)
	w.part, w.group = ep.Partner.ID, ""
	if ep.Enrollment.GroupID != nil {
		w.group = *ep.Enrollment.GroupID
	}
	prog := ep.Enrollment.ProgramID

	mk := func(domain, key, dest string, edit func(l *models.Link)) {
		l := &models.Link{WorkspaceID: w.ws.ID, Domain: domain, Key: key, URL: dest, TrackConversion: true, CreatedAt: now, UpdatedAt: now}
		if edit != nil {
			edit(l)
		}
		must(db.CreateLink(ctx, l))
		w.links = append(w.links, l)
	}
	mk(slug+".link", "a", "https://shop.example/p?utm_source=news&utm_medium=email&utm_campaign=spring%20sale&utm_term=shoes&utm_content=hero", func(l *models.Link) { l.FolderID = &w.fold })
	mk("beta.link", slug+"-b", "https://shop.example/q?utm_source=ads", nil)
	mk(slug+".link", "c", "https://partner.example/", func(l *models.Link) { l.ProgramID, l.PartnerID = &prog, &w.part })
	mk(slug+".link", models.RootKey, "https://shop.example/", nil)
	mk(slug+".link", "gone", "https://shop.example/gone?utm_source=old", nil)
	must(db.Exec("INSERT INTO link_tags (link_id, tag_id, created_at) VALUES (?,?,?),(?,?,?),(?,?,?)",
		w.links[0].ID, w.tags[0], now, w.links[0].ID, w.tags[1], now, w.links[1].ID, w.tags[0], now).Error)
	return w
}

// click pushes one click through the pipeline (flushed by flush()).
func (w *world) click(l *models.Link, at time.Time, ua string, place geo.Hint, referer string, qr bool) {
	w.t.Helper()
	ok := w.pipe.Enqueue(ingest.Hit{ClickID: ids.Nano(16), LinkID: l.ID, WorkspaceID: w.ws.ID, Domain: l.Domain,
		Key: l.Key, URL: l.URL, Time: at, IP: "203.0.113.7", UA: ua, Referer: referer, QR: qr, Geo: place})
	if !ok {
		w.t.Fatal("pipeline refused a click")
	}
}

func (w *world) flush() {
	w.t.Helper()
	if err := w.pipe.Flush(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	if err := w.db.Where("workspace_id = ?", w.ws.ID).Order("timestamp, click_id").Find(&w.clicks).Error; err != nil {
		w.t.Fatal(err)
	}
}

// lead tracks a lead on a stored click at time at.
func (w *world) lead(c *models.Click, customer string, at time.Time, md map[string]any) {
	w.t.Helper()
	w.clock = at
	if _, err := w.svc.TrackLead(w.ctx, w.ws, conversions.LeadInput{ClickID: c.ClickID, EventName: "Sign up " + ids.Nano(4),
		CustomerExternalID: customer, Mode: "wait", EventQuantity: 1, Metadata: md}); err != nil {
		w.t.Fatal(err)
	}
	w.nLeads++
}

// sale tracks a sale of a customer with a lead at time at.
func (w *world) sale(customer string, amount int64, at time.Time, md map[string]any) {
	w.t.Helper()
	w.clock = at
	inv := ids.Nano(10)
	if _, err := w.svc.TrackSale(w.ctx, w.ws, conversions.SaleInput{CustomerExternalID: customer, Amount: amount,
		Currency: "usd", EventName: "Purchase", PaymentProcessor: "stripe", InvoiceID: &inv, Metadata: md}); err != nil {
		w.t.Fatal(err)
	}
	w.nSales++
}

// randomEvents writes n clicks spread over [from, to), then leads on about a
// fifth of them and sales for about half of those customers.
func (w *world) randomEvents(rng *rand.Rand, n int, from, to time.Time) {
	first := len(w.clicks)
	span := to.Sub(from)
	for range n {
		l := w.links[rng.IntN(len(w.links))]
		at := from.Add(time.Duration(rng.Int64N(int64(span)))).Truncate(time.Millisecond)
		w.click(l, at, uas[rng.IntN(len(uas))], places[rng.IntN(len(places))], referers[rng.IntN(len(referers))], rng.IntN(5) == 0)
	}
	w.flush()
	w.randomConversions(rng, first)
}

// randomConversions adds leads and sales to the stored clicks from index
// first on.
func (w *world) randomConversions(rng *rand.Rand, first int) {
	plans := []string{"pro", "free", "team"}
	for i := first; i < len(w.clicks); i++ {
		if rng.IntN(5) != 0 {
			continue
		}
		c := &w.clicks[i]
		cust := "cus-" + c.ClickID
		at := c.Timestamp.Add(time.Duration(rng.IntN(48*60)) * time.Minute)
		w.lead(c, cust, at, map[string]any{"plan": plans[rng.IntN(3)], "seats": fmt.Sprint(rng.IntN(20))})
		for s := rng.IntN(3); s > 0; s-- {
			at = at.Add(time.Duration(rng.IntN(72*60)) * time.Minute)
			w.sale(cust, int64(500+rng.IntN(20000)), at, map[string]any{"plan": plans[rng.IntN(3)]})
		}
	}
}

// engines returns the SQL engine with its planner (aggregates where it
// can) and the SQL engine reading the raw tables only.
func (w *world) engines() (*analytics.SQLEngine, *analytics.SQLEngine) {
	now := func() time.Time { return w.now }
	agg := analytics.NewEngine(w.db, now)
	raw := analytics.NewEngine(w.db, now)
	raw.ForceRaw = true
	return agg, raw
}

// implementations are the Engines the property tests hold to the raw path
// (the reference): every way of answering must give the same JSON. Each
// ClickHouse store (loaded with the world's events) adds itself here as
// "clickhouse" (the first) and "clickhouse/<kind>".
func (w *world) implementations(agg analytics.Engine) map[string]analytics.Engine {
	impls := map[string]analytics.Engine{"aggregates": agg}
	w.syncClickHouse()
	for i, ch := range w.chs {
		w.checkClickHouse(ch)
		e := analytics.NewClickHouseEngine(w.chSQL, ch.c, func() time.Time { return w.now })
		if i == 0 {
			impls["clickhouse"] = e
		} else {
			impls["clickhouse/"+ch.name] = e
		}
	}
	return impls
}

// chEvery is how often a ClickHouse engine answers the property tests'
// queries: each such query costs ClickHouse 18.16 several times what the
// SQL engines cost together, and chDB 26 as much again. In a long run
// (testdb.Long, make test-long) the primary kind (Debian's 18.16) answers
// every query and the others (chDB 26) every third; in make test, every
// fourth and every twelfth. The SQL engines answer every query in both. The
// queries are the same fixed sequence either way, so a run is repeatable.
func chEvery(name string) int {
	k := 1
	if strings.HasPrefix(name, "clickhouse/") {
		k = 3
	}
	return k * chShare()
}

// chShare scales a count expected of the ClickHouse engines to the share of
// queries make test asks them (1 in a long run, 4 in make test).
func chShare() int {
	if testdb.Long() {
		return 1
	}
	return 4
}

// sampled is impls with only the ClickHouse engines whose turn query i is
// (chEvery).
func sampled(impls map[string]analytics.Engine, i int) map[string]analytics.Engine {
	out := make(map[string]analytics.Engine, len(impls))
	for name, e := range impls {
		if !strings.HasPrefix(name, "clickhouse") || i%chEvery(name) == 0 {
			out[name] = e
		}
	}
	return out
}

// checkClickHouse: every stored event reached the ClickHouse store exactly
// once (no FINAL: InsertOnce), through the pipeline's ClickStore and the
// outbox, and the rollups' totals count each once. The ClickStore's SQL
// side holds each click's slim row in the attribution table (none in
// clicks; the table has no identity hash column) and no click aggregate.
func (w *world) checkClickHouse(ch chTarget) {
	w.t.Helper()
	var slim, inClicks, aggs int64
	w.slim.Raw("SELECT COUNT(*) FROM attribution_clicks WHERE workspace_id = ?", w.ws.ID).Scan(&slim)
	// Nothing of the ClickHouse path's clicks in the clicks table.
	w.slim.Raw("SELECT COUNT(*) FROM clicks").Scan(&inClicks)
	w.slim.Raw("SELECT COUNT(*) FROM event_aggregates").Scan(&aggs)
	if slim != int64(len(w.clicks)) || inClicks != 0 || aggs != 0 {
		w.t.Fatalf("the ClickHouse path's SQL store: %d slim rows in the attribution table (%d rows in clicks), %d aggregates; want %d, 0, 0", slim, inClicks, aggs, len(w.clicks))
	}
	for table, want := range map[string]int{"clicks": len(w.clicks), "lead_events": w.nLeads, "sale_events": w.nSales} {
		var got, ids, rolled string
		if err := ch.c.Query(w.ctx, "SELECT count(), uniqExact("+map[bool]string{true: "click_id", false: "event_id"}[table == "clicks"]+") FROM "+table, func(c []string) error { got, ids = c[0], c[1]; return nil }); err != nil {
			w.t.Fatal(err)
		}
		ev := map[string]string{"clicks": "click", "lead_events": "lead", "sale_events": "sale"}[table]
		if err := ch.c.Query(w.ctx, "SELECT sum(count) FROM event_aggregates WHERE dim = 'total' AND event = '"+ev+"'", func(c []string) error { rolled = c[0]; return nil }); err != nil {
			w.t.Fatal(err)
		}
		if got != fmt.Sprint(want) || ids != got || rolled != got {
			w.t.Fatalf("%s %s: %s rows (%s ids, %s in the rollups), the SQL store has %d", ch.name, table, got, ids, rolled, want)
		}
	}
}

// chTarget is one ClickHouse event store of the world.
type chTarget struct {
	name string // chtest kind
	c    *chstore.Client
}

// teeStore is the pipeline's store with ClickHouse stores: the SQL store
// as it is without ClickHouse (every column, the aggregates: what the SQL
// engines read), the production ClickStore as it runs with ClickHouse (no
// aggregate hook; its slim rows into their own database) for the first,
// the same ClickHouse insert into the others.
type teeStore struct {
	sql   *models.DB
	first *chstore.ClickStore
	more  []chTarget
}

func (s teeStore) RecordClicks(ctx context.Context, batch []models.Click, hooks ...models.ClickHook) (int, error) {
	n, err := s.sql.RecordClicks(ctx, batch, hooks...)
	if err != nil {
		return n, err
	}
	if _, err := s.first.RecordClicks(ctx, batch); err != nil {
		return 0, err
	}
	for _, ch := range s.more {
		if err := ch.c.InsertClicks(ctx, batch); err != nil {
			return 0, fmt.Errorf("%s: %w", ch.name, err)
		}
	}
	return n, nil
}

// syncClickHouse runs the outbox into the first ClickHouse store and
// copies the world's leads and sales into the others (CopyEvents, the
// outbox's insert; rows already there are skipped).
func (w *world) syncClickHouse() {
	w.t.Helper()
	if w.outbox == nil {
		return
	}
	if err := w.outbox.Run(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	for _, ch := range w.chs[1:] {
		for kind, table := range map[string]string{"lead": "lead_events", "sale": "sale_events"} {
			var evs []string
			if err := w.db.Raw("SELECT event_id FROM "+table+" WHERE workspace_id = ?", w.ws.ID).Scan(&evs).Error; err != nil {
				w.t.Fatal(err)
			}
			if err := ch.c.CopyEvents(w.ctx, w.db, kind, evs); err != nil {
				w.t.Fatalf("%s: %v", ch.name, err)
			}
		}
	}
}

// openClickHouse migrates the ClickHouse database at u and turns on the
// SQL store's outbox.
func openClickHouse(t testing.TB, db *models.DB, u string) (*chstore.Client, *chstore.Outbox) {
	t.Helper()
	ch, err := chstore.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Migrate(context.Background(), slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	ob := &chstore.Outbox{SQL: db, CH: ch, Log: slog.New(slog.DiscardHandler)}
	if err := ob.Enable(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ch, ob
}

// query answers an /analytics query string with e, as the API writes it.
func (w *world) query(t testing.TB, e analytics.Engine, qs string) (any, error) {
	t.Helper()
	v, err := url.ParseQuery(qs)
	if err != nil {
		t.Fatal(err)
	}
	q, err := analytics.Parse(v, analytics.EndpointAnalytics, w.now)
	if err != nil {
		return nil, err
	}
	res, err := e.Analytics(w.ctx, w.ws, q)
	if err != nil {
		return nil, err
	}
	// What the handlers send is json.Marshal's encoding of the rows.
	rows := dubjson.Analytics(res)
	want, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := dubjson.AnalyticsJSON(res); err != nil || string(got) != string(want) {
		t.Fatalf("%s: AnalyticsJSON\n%s\n%v\njson.Marshal\n%s", qs, got, err, want)
	}
	return rows, nil
}

// events answers an /events query string with e, as the API writes it.
func (w *world) events(t testing.TB, e analytics.Engine, qs string) (any, error) {
	t.Helper()
	v, err := url.ParseQuery(qs)
	if err != nil {
		t.Fatal(err)
	}
	q, err := analytics.Parse(v, analytics.EndpointEvents, w.now)
	if err != nil {
		return nil, err
	}
	res, err := e.Events(w.ctx, w.ws, q)
	if err != nil {
		return nil, err
	}
	return dubjson.Events(w.ws, res), nil
}

// sameAnswer requires every implementation to answer qs (ask: query or
// events) exactly as ref does: the same error or the same JSON.
func (w *world) sameAnswer(t *testing.T, ask func(testing.TB, analytics.Engine, string) (any, error), qs string, ref analytics.Engine, impls map[string]analytics.Engine) {
	t.Helper()
	r, errR := ask(t, ref, qs)
	for name, e := range impls {
		a, errA := ask(t, e, qs)
		if fmt.Sprint(errA) != fmt.Sprint(errR) {
			t.Fatalf("%s: errors differ: %s %v / raw %v", qs, name, errA, errR)
		}
		if errA != nil {
			t.Fatalf("%s: %v", qs, errA)
		}
		if ja, jr := jsonOf(t, a), jsonOf(t, r); ja != jr {
			t.Fatalf("%s\n%s %s\nraw %s", qs, name, ja, jr)
		}
	}
}
