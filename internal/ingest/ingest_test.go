package ingest_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/geo/geotest"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

const chromeUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"

type fixture struct {
	db   *models.DB
	ws   *models.Workspace
	link *models.Link
}

func setup(t *testing.T, db *models.DB) fixture {
	t.Helper()
	ctx := context.Background()
	ws, err := db.CreateWorkspace(ctx, "Acme", "acme", models.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	l := &models.Link{WorkspaceID: ws.ID, Domain: "acme.link", Key: "promo", URL: "https://example.com/?utm_source=news"}
	if err := db.CreateLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	return fixture{db, ws, l}
}

func (f fixture) hit(i int) ingest.Hit {
	return ingest.Hit{ClickID: fmt.Sprintf("click%011d", i), LinkID: f.link.ID, WorkspaceID: f.ws.ID,
		Domain: f.link.Domain, Key: f.link.Key, URL: f.link.URL, Time: time.Date(2026, 5, 1, 10, 0, 0, i, time.UTC),
		IP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), UA: chromeUA}
}

// count counts the link's stored clicks. A count the database reports
// unavailable is asked again, up to three times: on SQLite the driver's
// interrupt for an earlier statement whose context ended can land on the
// next statement of the same connection (CI under load, 2026-11-30:
// "count clicks: interrupted (9)" right after a drain), as in
// internal/webhooks' pending.
func (f fixture) count(t *testing.T) int64 {
	t.Helper()
	var err error
	for range 3 {
		var n int64
		if n, err = f.db.CountClicks(context.Background(), f.ws.ID, f.link.ID); err == nil {
			return n
		}
		if !models.IsUnavailable(err) {
			break
		}
	}
	t.Fatal(err)
	return 0
}

func (f fixture) linkClicks(t *testing.T) int64 {
	t.Helper()
	l, err := f.db.LinkByID(context.Background(), f.ws.ID, f.link.ID)
	if err != nil {
		t.Fatal(err)
	}
	return l.Clicks
}

// N accepted clicks, then Drain (what SIGTERM runs): exactly N rows and the
// link's counter at N.
func TestDrainWritesEveryAcceptedClick(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := setup(t, db)
		p := ingest.New(db, ingest.Options{BatchSize: 64, QueueSize: 2000})
		const n = 1500
		for i := range n {
			if !p.Enqueue(f.hit(i)) {
				t.Fatalf("click %d refused", i)
			}
		}
		if err := p.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := f.count(t); got != n {
			t.Errorf("stored %d clicks, want %d", got, n)
		}
		if got := f.linkClicks(t); got != n {
			t.Errorf("link counter %d, want %d", got, n)
		}
		st := p.Stats()
		if st.Accepted != n || st.Written != n || st.Dropped != 0 || st.DroppedShutdown != 0 {
			t.Errorf("stats %+v", st)
		}
		if p.Enqueue(f.hit(n)) {
			t.Error("a drained pipeline accepted a click")
		}
		if st := p.Stats(); st.Dropped != 1 {
			t.Errorf("refused click after drain not counted: %+v", st)
		}
	})
}

func TestEnrichment(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		f := setup(t, db)
		loc, err := geo.Open(geotest.Write(t))
		if err != nil {
			t.Fatal(err)
		}
		// The workspace keeps IP addresses (its privacy setting).
		p := ingest.New(db, ingest.Options{Geo: loc, KeepIP: func(ws string) bool { return ws == f.ws.ID }})
		defer p.Drain(ctx) //nolint:errcheck
		iphone := "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
		hits := []ingest.Hit{
			// GB from the database, referer and UTM.
			{ClickID: "c-gb", IP: "81.2.69.10", UA: iphone, Referer: "https://www.Google.com/search?q=x",
				URL: "https://example.com/?utm_source=news&utm_medium=email&utm_campaign=spring%20sale&utm_term=t&utm_content=c", QR: true},
			// FR (EU): no IP kept; direct.
			{ClickID: "c-fr", IP: "2.125.160.7", UA: chromeUA, URL: "https://example.com/"},
			// Trusted headers win over the database.
			{ClickID: "c-hdr", IP: "81.2.69.11", UA: chromeUA, URL: "https://example.com/", Geo: geo.Hint{Country: "US", Region: "CA", City: "San%20Francisco"}},
			// Not recorded: a crawler, a HEAD/?bot= request, a repeat visitor.
			{ClickID: "c-bot", IP: "1.1.1.1", UA: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", URL: "https://example.com/"},
			{ClickID: "c-head", IP: "1.1.1.2", UA: chromeUA, URL: "https://example.com/", Bot: true},
			{ClickID: "c-repeat", IP: "2.125.160.7", UA: chromeUA, URL: "https://example.com/"},
			// Same visitor, other link key: recorded.
			{ClickID: "c-other", IP: "2.125.160.7", UA: chromeUA, URL: "https://example.com/", Key: "other"},
		}
		for i, h := range hits {
			h.LinkID, h.WorkspaceID, h.Domain = f.link.ID, f.ws.ID, f.link.Domain
			if h.Key == "" {
				h.Key = f.link.Key
			}
			h.Time = time.Date(2026, 5, 1, 10, i, 0, 0, time.UTC)
			p.Enqueue(h)
		}
		if err := p.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		var got []models.Click
		if err := db.Order("timestamp").Find(&got).Error; err != nil {
			t.Fatal(err)
		}
		byID := map[string]models.Click{}
		for _, c := range got {
			byID[c.ClickID] = c
		}
		if len(got) != 4 || byID["c-bot"].ClickID != "" || byID["c-head"].ClickID != "" || byID["c-repeat"].ClickID != "" {
			t.Fatalf("recorded %d clicks: %v", len(got), byID)
		}
		gb := byID["c-gb"]
		want := models.Click{Country: "GB", Region: "ENG", City: "London", Continent: "EU", IP: "81.2.69.10",
			Device: "Mobile", Browser: "Mobile Safari", OS: "iOS", Engine: "WebKit", Referer: "google.com",
			RefererURL: "https://www.Google.com/search?q=x", Trigger: "qr", QR: true,
			UTMSource: "news", UTMMedium: "email", UTMCampaign: "spring sale", UTMTerm: "t", UTMContent: "c"}
		check := func(name string, got, want models.Click) {
			t.Helper()
			type sub struct{ Country, Region, City, Continent, IP, Device, Browser, OS, Engine, Referer, RefererURL, Trigger, UTMSource, UTMMedium, UTMCampaign, UTMTerm, UTMContent string }
			g := sub{got.Country, got.Region, got.City, got.Continent, got.IP, got.Device, got.Browser, got.OS, got.Engine, got.Referer, got.RefererURL, got.Trigger, got.UTMSource, got.UTMMedium, got.UTMCampaign, got.UTMTerm, got.UTMContent}
			w := sub{want.Country, want.Region, want.City, want.Continent, want.IP, want.Device, want.Browser, want.OS, want.Engine, want.Referer, want.RefererURL, want.Trigger, want.UTMSource, want.UTMMedium, want.UTMCampaign, want.UTMTerm, want.UTMContent}
			if g != w || got.QR != want.QR {
				t.Errorf("%s:\n got  %+v qr=%v\n want %+v qr=%v", name, g, got.QR, w, want.QR)
			}
		}
		check("gb", gb, want)
		if len(gb.IdentityHash) != 64 || gb.WorkspaceID != f.ws.ID || gb.LinkID != f.link.ID {
			t.Errorf("gb identity/ids: %+v", gb)
		}
		check("fr", byID["c-fr"], models.Click{Country: "FR", Region: "IDF", City: "Paris", Continent: "EU", IP: "",
			Device: "Desktop", Browser: "Chrome", OS: "Windows", Engine: "Blink", Referer: "(direct)", RefererURL: "(direct)", Trigger: "link"})
		check("headers", byID["c-hdr"], models.Click{Country: "US", Region: "CA", City: "San Francisco", Continent: "NA", IP: "81.2.69.11",
			Device: "Desktop", Browser: "Chrome", OS: "Windows", Engine: "Blink", Referer: "(direct)", RefererURL: "(direct)", Trigger: "link"})
		st := p.Stats()
		if st.Bots != 2 || st.Deduplicated != 1 || st.Written != 4 {
			t.Errorf("stats %+v", st)
		}
		if got := f.linkClicks(t); got != 4 {
			t.Errorf("link counter %d, want 4", got)
		}
	})
}

// breakTable makes every write fail for real, the way a broken or
// half-migrated database would: the clicks table is renamed away.
func breakTable(t *testing.T, db *models.DB) (restore func()) {
	t.Helper()
	rename(t, db, "ALTER TABLE clicks RENAME TO clicks_away")
	return func() { rename(t, db, "ALTER TABLE clicks_away RENAME TO clicks") }
}

// rename runs an ALTER TABLE, again while it fails. On SQLite a rename
// re-parses every statement of the schema, which under -race on a loaded
// machine outlasts the database timeout (5 s; CI: "interrupted" twelve
// times in a row at load average 50, each attempt cut at 5 s), so each
// attempt gets its own 60 s deadline instead; and it needs the write lock,
// which a pipeline retrying every few milliseconds (the tests' backoffs)
// can hold, hence the retries. A rename that never succeeds fails the test.
func rename(t *testing.T, db *models.DB, stmt string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := db.WithContext(ctx).Exec(stmt).Error
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A database outage: writes fail and are retried in the background with
// backoff; after recovery nothing is lost.
func TestOutageThenRecovery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		f := setup(t, db)
		errs := make(chan error, 100)
		p := ingest.New(db, ingest.Options{BatchSize: 50, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
			OnWriteError: func(err error) {
				select {
				case errs <- err:
				default:
				}
			}})
		restore := breakTable(t, db)
		const n = 400
		for i := range n {
			p.Enqueue(f.hit(i))
		}
		if err := p.Flush(ctx); err == nil {
			t.Fatal("Flush during the outage reported success")
		}
		// The consumer keeps retrying by itself.
		for range 3 {
			<-errs
		}
		restore()
		if err := p.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		if got := f.count(t); got != n {
			t.Errorf("stored %d clicks after recovery, want %d", got, n)
		}
		if got := f.linkClicks(t); got != n {
			t.Errorf("link counter %d, want %d", got, n)
		}
		if st := p.Stats(); st.WriteErrors < 3 || st.Written != n || st.Dropped != 0 {
			t.Errorf("stats %+v", st)
		}
	})
}

// PostgreSQL: another transaction holds an ACCESS EXCLUSIVE lock on clicks;
// each write attempt times out, the clicks wait in the buffer, and once the
// lock is released every click is written.
func TestLockedTablePostgres(t *testing.T) {
	db := testdb.Open(t, "postgres")
	ctx := context.Background()
	f := setup(t, db)
	errs := make(chan error, 100)
	p := ingest.New(db, ingest.Options{BatchSize: 100, WriteTimeout: 200 * time.Millisecond, MinBackoff: time.Millisecond,
		OnWriteError: func(err error) {
			select {
			case errs <- err:
			default:
			}
		}})
	// Warm the pipeline's connections so the staging table exists before the
	// lock. On a loaded runner under -race the first COPY can take longer
	// than the 200 ms write timeout: the pipeline retries it, so flush again
	// until it is written (then forget those errors).
	// Under make test's load a new PostgreSQL connection alone took longer
	// than the write timeout, fifty times in a row (CI, 2026-11-29): connect
	// first, outside it, so the pool holds an idle connection for the COPY.
	pctx, cancel := context.WithTimeout(ctx, time.Minute)
	err := db.SQL().PingContext(pctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	p.Enqueue(f.hit(0))
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if err = p.Flush(ctx); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("warm-up write never succeeded: %v", err)
	}
	for len(errs) > 0 {
		<-errs
	}
	var locker *sql.Tx
	locker, err = db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := locker.ExecContext(ctx, "LOCK TABLE clicks IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := 1; i <= n; i++ {
		p.Enqueue(f.hit(i))
	}
	if err := p.Flush(ctx); err == nil {
		t.Fatal("Flush while the table is locked reported success")
	}
	<-errs
	if err := locker.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.count(t); got != n+1 {
		t.Errorf("stored %d clicks, want %d", got, n+1)
	}
}

// With the consumer stuck on a failing batch the queue fills; what does not
// fit is refused and counted, and everything accepted is still written.
func TestOverflowIsCounted(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		f := setup(t, db)
		p := ingest.New(db, ingest.Options{BatchSize: 5, QueueSize: 10, MinBackoff: time.Hour, MaxBackoff: time.Hour})
		restore := breakTable(t, db)
		for i := range 5 {
			p.Enqueue(f.hit(i))
		}
		if err := p.Flush(ctx); err == nil {
			t.Fatal("Flush during the outage reported success")
		}
		// The failed batch holds 5; the consumer waits (1h backoff) and the
		// queue takes 10 more.
		accepted := 0
		for i := 5; i < 18; i++ {
			if p.Enqueue(f.hit(i)) {
				accepted++
			}
		}
		if accepted != 10 {
			t.Errorf("accepted %d while blocked, want 10 (the queue size)", accepted)
		}
		if st := p.Stats(); st.Dropped != 3 || st.Accepted != 15 || st.Queued != 10 || st.Pending != 5 {
			t.Errorf("stats while blocked %+v", st)
		}
		restore()
		if err := p.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		if got := f.count(t); got != 15 {
			t.Errorf("stored %d, want the 15 accepted", got)
		}
	})
}

// A shutdown deadline that passes during an outage counts the clicks it
// could not keep and says so.
func TestDrainDeadlineCountsLoss(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	f := setup(t, db)
	p := ingest.New(db, ingest.Options{MinBackoff: time.Millisecond})
	breakTable(t, db)
	for i := range 7 {
		p.Enqueue(f.hit(i))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the deadline has already passed
	if err := p.Drain(ctx); err == nil {
		t.Fatal("Drain reported success with clicks unwritten")
	}
	if st := p.Stats(); st.DroppedShutdown != 7 {
		t.Errorf("stats %+v, want 7 lost at shutdown", st)
	}
}

// Repeats of one visitor on one link within the window are not counted;
// after the window they are.
func TestDedupWindow(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	f := setup(t, db)
	p := ingest.New(db, ingest.Options{DedupWindow: time.Hour})
	h := f.hit(1)
	for i, at := range []time.Duration{0, 10 * time.Minute, 59 * time.Minute, 61 * time.Minute, 2*time.Hour + 5*time.Minute} {
		h.ClickID = fmt.Sprintf("dedup%02d", i)
		h.Time = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC).Add(at)
		p.Enqueue(h)
	}
	if err := p.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.count(t); got != 3 {
		t.Errorf("stored %d, want 3 (0m, 61m, 125m)", got)
	}
}

// gatedStore is the real database behind a gate: each write waits for a
// value on release and records the batch size.
type gatedStore struct {
	db      *models.DB
	release chan struct{}
	sizes   chan int
}

func (g *gatedStore) RecordClicks(ctx context.Context, batch []models.Click, hooks ...models.ClickHook) (int, error) {
	<-g.release
	g.sizes <- len(batch)
	return g.db.RecordClicks(ctx, batch, hooks...)
}

// While a write is in flight the pending batch grows past BatchSize up to
// MaxBatch: a writer that falls behind writes fewer, larger transactions.
func TestBatchesGrowWhileTheWriterIsBusy(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := setup(t, db)
		g := &gatedStore{db: db, release: make(chan struct{}), sizes: make(chan int, 100)}
		p := ingest.New(g, ingest.Options{BatchSize: 10, MaxBatch: 100, QueueSize: 1000, FlushInterval: time.Hour})
		const n = 350
		for i := range n {
			if !p.Enqueue(f.hit(i)) {
				t.Fatalf("click %d refused", i)
			}
		}
		// The first write (10 clicks) is stuck at the gate; let the consumer
		// fill the pending batch behind it.
		deadline := time.Now().Add(10 * time.Second)
		for p.Stats().Pending < 110 {
			if time.Now().After(deadline) {
				t.Fatalf("pending batch did not grow behind the busy writer: %+v", p.Stats())
			}
			time.Sleep(time.Millisecond)
		}
		go func() {
			for range 100 {
				g.release <- struct{}{}
			}
		}()
		if err := p.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		close(g.sizes)
		var sizes []int
		total := 0
		for s := range g.sizes {
			sizes = append(sizes, s)
			total += s
		}
		if total != n || f.count(t) != n {
			t.Fatalf("wrote %d (stored %d), want %d", total, f.count(t), n)
		}
		if sizes[0] != 10 || sizes[1] != 100 {
			t.Errorf("batch sizes %v: want the first at BatchSize (10), the next grown to MaxBatch (100)", sizes)
		}
		for _, s := range sizes {
			if s > 100 {
				t.Errorf("batch of %d exceeds MaxBatch: %v", s, sizes)
			}
		}
	})
}

// Without the workspace's consent a click keeps no IP address, though the
// address still locates it; another workspace's setting does not apply.
func TestIPNotKeptByDefault(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		f := setup(t, db)
		loc, err := geo.Open(geotest.Write(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, keep := range []func(string) bool{nil, func(ws string) bool { return ws == "another" }} {
			p := ingest.New(db, ingest.Options{Geo: loc, DedupWindow: -1, KeepIP: keep})
			p.Enqueue(ingest.Hit{ClickID: "c-" + strconv.FormatBool(keep == nil), IP: "81.2.69.10", UA: chromeUA, URL: "https://example.com/",
				LinkID: f.link.ID, WorkspaceID: f.ws.ID, Domain: f.link.Domain, Key: f.link.Key, Time: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)})
			if err := p.Drain(ctx); err != nil {
				t.Fatal(err)
			}
		}
		var got []models.Click
		if err := db.Find(&got).Error; err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("%d clicks", len(got))
		}
		for _, c := range got {
			if c.IP != "" || c.Country != "GB" || c.City != "London" {
				t.Errorf("click %s: ip %q country %q city %q: want no IP, located in London", c.ClickID, c.IP, c.Country, c.City)
			}
		}
	})
}
