// Package demo fills a workspace with realistic links, clicks, leads and
// sales (countries, devices, referrers, UTM tags, partners) for `relink
// demo`, the analytics benchmark and manual testing.
//
// The bulk path (default) writes clicks with BulkLoader: the click
// writer's row encoding in large transactions (COPY through a staging table
// on PostgreSQL, literal multi-row INSERTs on SQLite), with repeated click
// ids skipped as in RecordClicks, while the next batch is generated. The
// inserted clicks are folded into aggregate rows (models.AggregateFolder,
// the same rows as the per-batch hook) and the rows of finished days are
// written as the run goes; link counters are added once at the end. Leads
// and sales go in by COPY / literal INSERTs with their aggregates and
// counters folded likewise. Everything is added to what the workspace holds,
// so running the demo on a workspace with data keeps its numbers exact.
// Options.PerBatch writes like the live pipeline instead (the tests'
// reference).
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/workspaces"
	"github.com/relinkhq/relink/models"
)

// Options say how much to generate.
type Options struct {
	Links, Clicks, Leads, Sales int
	Days                        int
	Partners                    int // partners enrolled in the default program (default 20)
	BatchSize                   int // clicks per transaction (default 25000; 5000 with PerBatch)
	Seed                        uint64
	Now                         time.Time
	Progress                    io.Writer // progress bars; nil for none
	// PerBatch writes like the live pipeline: every batch through
	// RecordClicks with the aggregates hook, conversions with the
	// aggregator and link counters per transaction. Slow; the test's
	// reference for the bulk path.
	PerBatch bool
	// KeySuffix ends every link key ("-a"): tests keep two runs' keys
	// apart. Without it keys are the catalogue's (spring-sale), numbered
	// where the domain has them already.
	KeySuffix string
	// Conversions enrolls the demo's partners (required): `relink demo`
	// passes the one app.BuildCommand builds, so enrollments fire webhooks
	// and fill caches as any other change does.
	Conversions *conversions.Service
	// LinkService creates the demo's tags, folders and domain (required),
	// as POST /tags, /folders and /domains do: `relink demo` passes the one
	// app.BuildCommand builds.
	LinkService *links.Service
	// Workspaces moves the workspace's creation back to the demo's first
	// day (required): `relink demo` passes the one app.BuildCommand builds.
	Workspaces *workspaces.Service
	// Domain is the short domain of the links: `relink demo` passes the
	// default short domain (RELINK_SHORT_DOMAIN, the app's host in dev), so
	// every demo link redirects on the server as it runs. Empty: the
	// workspace's own <slug>.link, registered as its domain.
	Domain string
}

// Stats are what was written.
type Stats struct {
	Links, Clicks, Leads, Sales int
	Commissions                 int // partners' lead and sale commissions
	SaleAmount                  int64
	Took                        time.Duration
	Phases                      []Phase
}

// Phase is the wall time of one step of the run.
type Phase struct {
	Name string
	Took time.Duration
}

type weighted[T any] struct {
	items []T
	cum   []float64
}

func newWeighted[T any](items []T, weights []float64) weighted[T] {
	w := weighted[T]{items: items}
	total := 0.0
	for _, x := range weights {
		total += x
		w.cum = append(w.cum, total)
	}
	for i := range w.cum {
		w.cum[i] /= total
	}
	return w
}

func (w weighted[T]) pick(r *rand.Rand) T {
	i := sort.SearchFloat64s(w.cum, r.Float64())
	if i >= len(w.items) {
		i = len(w.items) - 1
	}
	return w.items[i]
}

type place struct{ continent, country, region, city string }

type agent struct{ ua, device, browser, os string }

var (
	places = newWeighted([]place{
		{"NA", "US", "CA", "San Francisco"}, {"NA", "US", "NY", "New York"}, {"NA", "US", "TX", "Austin"},
		{"NA", "US", "WA", "Seattle"}, {"NA", "CA", "ON", "Toronto"}, {"EU", "GB", "ENG", "London"},
		{"EU", "DE", "BE", "Berlin"}, {"EU", "DE", "BY", "Munich"}, {"EU", "FR", "IDF", "Paris"},
		{"EU", "NL", "NH", "Amsterdam"}, {"EU", "ES", "MD", "Madrid"}, {"AS", "IN", "MH", "Mumbai"},
		{"AS", "IN", "KA", "Bengaluru"}, {"AS", "JP", "13", "Tokyo"}, {"AS", "SG", "01", "Singapore"},
		{"SA", "BR", "SP", "São Paulo"}, {"OC", "AU", "NSW", "Sydney"}, {"AF", "NG", "LA", "Lagos"},
		{"", "Unknown", "Unknown", "Unknown"},
	}, []float64{14, 9, 5, 4, 4, 8, 5, 3, 5, 3, 3, 6, 4, 4, 2, 5, 3, 2, 3})
	agents = newWeighted([]agent{
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36", "Desktop", "Chrome", "Mac OS"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36", "Desktop", "Chrome", "Windows"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0", "Desktop", "Firefox", "Windows"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", "Desktop", "Safari", "Mac OS"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", "Mobile", "Mobile Safari", "iOS"},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36", "Mobile", "Chrome", "Android"},
		{"Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", "Tablet", "Mobile Safari", "iOS"},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36", "Desktop", "Chrome", "Linux"},
	}, []float64{20, 18, 6, 6, 26, 18, 4, 2})
	referers = newWeighted([]string{"", "https://www.google.com/", "https://t.co/x", "https://www.linkedin.com/feed/",
		"https://news.ycombinator.com/item?id=1", "https://www.facebook.com/", "https://www.reddit.com/r/golang/",
		"https://duckduckgo.com/", "https://mail.google.com/"}, []float64{35, 25, 8, 7, 5, 6, 5, 4, 5})
)

type bar struct {
	w     io.Writer
	tty   bool
	name  string
	total int
	start time.Time
	last  time.Time
}

// newBar draws a progress bar on w: redrawn in place on a terminal, a line
// every few seconds otherwise (logs, pipes).
func newBar(w io.Writer, name string, total int) *bar {
	b := &bar{w: w, name: name, total: total, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	b.last = b.start
	return b
}

func (b *bar) set(n int) {
	if b.w == nil || b.total == 0 {
		return
	}
	every := 5 * time.Second
	if b.tty {
		every = 100 * time.Millisecond
	}
	if n < b.total && time.Since(b.last) < every {
		return
	}
	b.last = time.Now()
	const width = 30
	done := width * n / b.total
	el := time.Since(b.start)
	rate := float64(n) / math.Max(el.Seconds(), 1e-9)
	line := fmt.Sprintf("%-7s [%s%s] %3d%% %d/%d %.1fs %.0f/s", b.name, strings.Repeat("#", done), strings.Repeat(".", width-done),
		100*n/b.total, n, b.total, el.Seconds(), rate)
	switch {
	case !b.tty:
		fmt.Fprintln(b.w, line)
	case n >= b.total:
		fmt.Fprintf(b.w, "\r%s \n", line)
	default:
		fmt.Fprintf(b.w, "\r%s ", line)
	}
}

// Generate writes the demo data into ws.
func Generate(ctx context.Context, db *models.DB, ws *models.Workspace, o Options) (*Stats, error) {
	began := time.Now()
	if o.Conversions == nil {
		return nil, errors.New("demo: Options.Conversions is required")
	}
	if o.LinkService == nil {
		return nil, errors.New("demo: Options.LinkService is required")
	}
	if o.Workspaces == nil {
		return nil, errors.New("demo: Options.Workspaces is required")
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC()
	}
	if o.Days <= 0 {
		o.Days = 90
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 25000
		if o.PerBatch {
			o.BatchSize = 5000
		}
	}
	if o.Partners == 0 {
		o.Partners = 20
	}
	if o.Links <= 0 {
		return nil, fmt.Errorf("demo: --links must be at least 1")
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	g := &gen{db: db, ws: ws, o: o, rng: rng}
	if !o.PerBatch {
		l, err := NewBulkLoader(ctx, db)
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		defer l.Close()
		g.loader = l
	}
	phase := func(name string, fn func(context.Context) error) error {
		t := time.Now()
		if err := fn(ctx); err != nil {
			return err
		}
		g.stats.Phases = append(g.stats.Phases, Phase{name, time.Since(t)})
		return nil
	}
	analyze := func(ctx context.Context) error {
		// Fresh planner statistics for the tables just filled.
		var err error
		if g.loader != nil {
			err = g.loader.Analyze(ctx)
		} else {
			err = analyzeTables(ctx, db)
		}
		if err != nil {
			return fmt.Errorf("demo: analyze: %w", err)
		}
		return nil
	}
	for _, p := range []struct {
		name string
		fn   func(context.Context) error
	}{{"setup", g.entities}, {"links", g.makeLinks}, {"clicks", g.makeClicks}, {"conversions", g.makeConversions}, {"commissions", g.makeCommissions}, {"analyze", analyze}} {
		if err := phase(p.name, p.fn); err != nil {
			return nil, err
		}
	}
	g.stats.Took = time.Since(began)
	return &g.stats, nil
}

type gen struct {
	db       *models.DB
	loader   *BulkLoader // nil with PerBatch
	ws       *models.Workspace
	o        Options
	rng      *rand.Rand
	stats    Stats
	tags     []string
	folders  []string
	partners []string
	// partnerNames are the partners' names, in the order of partners.
	partnerNames []string
	program      string
	domain       string // the links' short domain
	links        []models.Link
	pop          weighted[int] // link index by popularity
	sampled      []models.Click
	linkIndex    map[string]int
	leadEvs      []models.LeadEvent // written by makeConversions, paid by makeCommissions
	saleEvs      []models.SaleEvent
}

func (g *gen) makeLinks(ctx context.Context) error {
	now := g.o.Now
	created := now.AddDate(0, 0, -g.o.Days-1)
	weights := make([]float64, g.o.Links)
	idx := make([]int, g.o.Links)
	var tags []models.LinkTag
	plans, err := g.planLinks(ctx, g.domain, g.o.KeySuffix)
	if err != nil {
		return err
	}
	for i, p := range plans {
		// Creation times spread over the month before the first click, as a
		// team's links would be (the console lists the newest first).
		at := created.Add(-time.Duration(g.rng.Int64N(int64(30 * 24 * time.Hour))))
		title := p.title
		l := models.Link{ID: ids.New(ids.Link), WorkspaceID: g.ws.ID, Domain: g.domain, Key: p.key, URL: p.url, Title: &title,
			TrackConversion: true, CreatedAt: at, UpdatedAt: at}
		if i%4 == 1 {
			l.FolderID = &g.folders[g.rng.IntN(len(g.folders))]
		}
		if len(g.partners) > 0 && i%10 == 2 { // every tenth link is a partner link
			p := g.partners[(i/10)%len(g.partners)]
			l.ProgramID, l.PartnerID = &g.program, &p
		}
		for _, t := range g.tags {
			if g.rng.IntN(5) == 0 {
				tags = append(tags, models.LinkTag{LinkID: l.ID, TagID: t, CreatedAt: created})
			}
		}
		g.links = append(g.links, l)
		weights[i] = 1 / math.Pow(float64(i+1), 0.8) // Zipf-like popularity
		idx[i] = i
	}
	if err := g.db.WithContext(ctx).CreateInBatches(g.links, 200).Error; err != nil {
		return fmt.Errorf("demo: create links: %w", err)
	}
	if len(tags) > 0 {
		if err := g.db.WithContext(ctx).CreateInBatches(tags, 500).Error; err != nil {
			return fmt.Errorf("demo: tag links: %w", err)
		}
	}
	g.pop = newWeighted(idx, weights)
	g.stats.Links = len(g.links)
	return nil
}

// makeClicks writes the clicks in time order. One goroutine generates
// batches while the loader writes the previous one; the inserted clicks of
// each batch are folded into aggregate rows on another goroutine, and the
// rows of finished days ride along with the next batch's transaction. In
// PerBatch mode every batch goes through RecordClicks with the aggregates
// hook instead (the ingest pipeline's path; the test's reference).
func (g *gen) makeClicks(ctx context.Context) error {
	n := g.o.Clicks
	if n <= 0 {
		return nil
	}
	end := g.o.Now.Truncate(time.Second)
	start := end.AddDate(0, 0, -g.o.Days)
	times := g.clickTimes(n, end.Sub(start))

	// Four stages: generate → insert clicks → fold the inserted clicks into
	// aggregate rows → write the rows of finished days. On PostgreSQL the
	// aggregates go in on a second connection, concurrently with the
	// clicks; SQLite has one writer, so its two writers take turns.
	eg, ectx := errgroup.WithContext(ctx)
	batches := make(chan []models.Click, 2)
	eg.Go(func() error {
		defer close(batches)
		return g.generateClicks(ectx, start, times, batches)
	})
	b := newBar(g.o.Progress, "clicks", n)
	var err error
	if g.o.PerBatch {
		err = g.writeClicksPerBatch(ctx, eg, batches, b)
	} else {
		err = g.writeClicksBulk(ctx, eg, ectx, batches, b)
	}
	if err != nil {
		return err
	}
	g.stats.Clicks = n
	return nil
}

// clickTimes is n sorted random offsets into span with a day/night rhythm
// (UTC afternoon peak).
func (g *gen) clickTimes(n int, span time.Duration) []int64 {
	times := make([]int64, n)
	for i := range times {
		for {
			t := g.rng.Int64N(int64(span))
			h := float64(time.Duration(t)%(24*time.Hour)) / float64(time.Hour)
			if g.rng.Float64() < 0.35+0.65*math.Pow(math.Sin(math.Pi*h/24), 2) {
				times[i] = t
				break
			}
		}
	}
	slices.Sort(times)
	return times
}

// generateClicks makes one click per offset and sends them in batches of
// BatchSize; it samples the clicks the leads will name.
func (g *gen) generateClicks(ctx context.Context, start time.Time, times []int64, batches chan<- []models.Click) error {
	// Per-link and per-referrer values, computed once.
	type linkInfo struct{ s, m, c, t, ct string }
	infos := make([]linkInfo, len(g.links))
	for i := range g.links {
		x := &infos[i]
		x.s, x.m, x.c, x.t, x.ct = utms(g.links[i].URL)
	}
	hosts := make(map[string]string, len(referers.items))
	for _, r := range referers.items {
		hosts[r] = strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(r, "https://"), "/", 2)[0], "www.")
	}
	// The clicks that lead to sign-ups: Leads of them, uniformly over the
	// whole window (a rate with a cut-off once enough were kept left the last
	// days without any lead).
	lead := sampleIndexes(g.rng, len(times), g.o.Leads)
	batch := make([]models.Click, 0, g.o.BatchSize)
	for ti, t := range times {
		li := g.pop.pick(g.rng)
		l := &g.links[li]
		p := places.pick(g.rng)
		a := agents.pick(g.rng)
		c := models.Click{ClickID: ids.Click(), Timestamp: start.Add(time.Duration(t)).Truncate(time.Millisecond), WorkspaceID: g.ws.ID,
			LinkID: l.ID, Domain: l.Domain, Key: l.Key, URL: l.URL, IP: "198.51." + strconv.Itoa(g.rng.IntN(256)) + "." + strconv.Itoa(g.rng.IntN(256)),
			Continent: p.continent, Country: p.country, Region: p.region, City: p.city, Latitude: "Unknown", Longitude: "Unknown",
			Device: a.device, DeviceVendor: "Unknown", DeviceModel: "Unknown", Browser: a.browser, BrowserVersion: "124",
			Engine: "Blink", EngineVersion: "124", OS: a.os, OSVersion: "Unknown", CPUArchitecture: "Unknown", UA: a.ua,
			Trigger: "link", Referer: "(direct)", RefererURL: "(direct)"}
		if g.rng.IntN(12) == 0 {
			c.QR, c.Trigger = true, "qr"
		}
		if r := referers.pick(g.rng); r != "" {
			c.RefererURL, c.Referer = r, hosts[r]
		}
		x := &infos[li]
		c.UTMSource, c.UTMMedium, c.UTMCampaign, c.UTMTerm, c.UTMContent = x.s, x.m, x.c, x.t, x.ct
		batch = append(batch, c)
		if lead[ti] {
			g.sampled = append(g.sampled, c)
		}
		if len(batch) == g.o.BatchSize {
			if err := send(ctx, batches, batch); err != nil {
				return err
			}
			batch = make([]models.Click, 0, g.o.BatchSize)
		}
	}
	if len(batch) > 0 {
		return send(ctx, batches, batch)
	}
	return nil
}

// writeClicksPerBatch writes every batch with RecordClicks and the
// aggregates hook, then waits for the generator.
func (g *gen) writeClicksPerBatch(ctx context.Context, eg *errgroup.Group, batches chan []models.Click, b *bar) error {
	written := 0
	for batch := range batches {
		if _, err := g.db.RecordClicks(ctx, batch, models.AggregateClicks); err != nil {
			cancelWait(eg, batches)
			return fmt.Errorf("demo: write clicks: %w", err)
		}
		written += len(batch)
		b.set(written)
	}
	if err := eg.Wait(); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// writeClicksBulk inserts the batches with the bulk loader, folds the
// inserted clicks into aggregate rows and link counts, and writes them.
func (g *gen) writeClicksBulk(ctx context.Context, eg *errgroup.Group, ectx context.Context, batches chan []models.Click, b *bar) error {
	aggLoader, turns := g.loader, &sync.Mutex{}
	if g.db.Dialect == "postgres" {
		l, err := NewBulkLoader(ctx, g.db)
		if err != nil {
			cancelWait(eg, batches)
			return fmt.Errorf("demo: %w", err)
		}
		defer l.Close()
		aggLoader, turns = l, nil
	}
	take := func() func() {
		if turns == nil {
			return func() {}
		}
		turns.Lock()
		return turns.Unlock
	}
	foldIn := make(chan []models.Click, 2)
	aggs := make(chan []models.EventAggregate, 2)
	counts := map[string]*LinkClicks{}
	eg.Go(func() error { // insert clicks
		defer close(foldIn)
		written := 0
		for batch := range batches {
			done := take()
			inserted, err := g.loader.Clicks(ectx, batch, nil)
			done()
			if err != nil {
				return fmt.Errorf("demo: write clicks: %w", err)
			}
			if err := send(ectx, foldIn, inserted); err != nil {
				return err
			}
			written += len(batch)
			b.set(written)
		}
		return nil
	})
	eg.Go(func() error { // fold
		defer close(aggs)
		return foldClicks(ectx, foldIn, aggs, counts)
	})
	eg.Go(func() error { // write aggregates
		for rows := range aggs {
			done := take()
			err := aggLoader.Aggregates(ectx, rows)
			done()
			if err != nil {
				return fmt.Errorf("demo: click aggregates: %w", err)
			}
		}
		return nil
	})
	if err := eg.Wait(); err != nil {
		return err
	}
	if err := g.loader.AddLinkClicks(ctx, counts); err != nil {
		return fmt.Errorf("demo: link click counters: %w", err)
	}
	return nil
}

// foldClicks folds the inserted clicks into aggregate rows, sent on as the
// days complete, and counts them per link.
func foldClicks(ctx context.Context, in <-chan []models.Click, aggs chan<- []models.EventAggregate, counts map[string]*LinkClicks) error {
	folder := models.NewAggregateFolder()
	for batch := range in {
		folder.AddClicks(batch)
		for i := range batch {
			c := counts[batch[i].LinkID]
			if c == nil {
				c = &LinkClicks{}
				counts[batch[i].LinkID] = c
			}
			c.AddLink(batch[i].Timestamp)
		}
		// Clicks come in time order: the days before the last one folded
		// are complete.
		if len(batch) > 0 {
			if err := send(ctx, aggs, folder.TakeBefore(batch[len(batch)-1].Timestamp)); err != nil {
				return err
			}
		}
	}
	return send(ctx, aggs, folder.TakeAll())
}

// send hands v to the next stage unless the run was cancelled.
func send[T any](ctx context.Context, ch chan<- T, v T) error {
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cancelWait stops the generator after a failure: it drains the batches so
// the generator can finish, then waits for it.
func cancelWait(eg *errgroup.Group, batches <-chan []models.Click) {
	for range batches {
	}
	_ = eg.Wait()
}

func utms(u string) (s, m, c, t, ct string) {
	_, q, ok := strings.Cut(u, "?")
	if !ok {
		return
	}
	for _, kv := range strings.Split(q, "&") {
		k, v, _ := strings.Cut(kv, "=")
		v = strings.ReplaceAll(v, "+", " ")
		switch k {
		case "utm_source":
			s = v
		case "utm_medium":
			m = v
		case "utm_campaign":
			c = v
		case "utm_term":
			t = v
		case "utm_content":
			ct = v
		}
	}
	return
}

// conversions writes a lead per sampled click (a new customer each) and
// sales for random customers, in batches, with the aggregator.
func (g *gen) makeConversions(ctx context.Context) error {
	if len(g.sampled) == 0 {
		return nil
	}
	now := g.o.Now
	type lead struct {
		ev   models.LeadEvent
		cust string
	}
	leads := make([]lead, 0, len(g.sampled))
	customers := make([]models.Customer, 0, len(g.sampled))
	plans := []string{"free", "pro", "business"}
	for i := range g.sampled {
		c := &g.sampled[i]
		at := spreadAfter(g.rng, c.Timestamp, 36*time.Hour, now)
		cid := ids.New(ids.Customer)
		name, email := customerIdentity(g.rng, i)
		country := c.Country
		clickID, linkID, clickedAt := c.ClickID, c.LinkID, c.Timestamp
		cu := models.Customer{ID: cid, WorkspaceID: g.ws.ID, ExternalID: "demo_" + ids.Nano(12), Name: &name,
			Email: &email, Country: &country, ClickID: &clickID, LinkID: &linkID, ClickedAt: &clickedAt, CreatedAt: at, UpdatedAt: at}
		if pl := g.linkByID(linkID); pl != nil && pl.PartnerID != nil {
			cu.ProgramID, cu.PartnerID = pl.ProgramID, pl.PartnerID
		}
		customers = append(customers, cu)
		leads = append(leads, lead{cust: cid, ev: models.LeadEvent{EventID: ids.Nano(16), Timestamp: at, WorkspaceID: g.ws.ID,
			EventName: "Sign up", CustomerID: cid, Metadata: models.Metadata{"plan": plans[g.rng.IntN(3)], "seats": fmt.Sprint(1 + g.rng.IntN(50))},
			ClickAttrs: models.AttrsOf(c)}})
	}
	evs := make([]models.LeadEvent, 0, len(leads))
	for _, l := range leads {
		evs = append(evs, l.ev)
	}
	sales := make([]models.SaleEvent, 0, g.o.Sales)
	for range g.o.Sales {
		l := &leads[g.rng.IntN(len(leads))]
		at := spreadAfter(g.rng, l.ev.Timestamp, 10*24*time.Hour, now)
		amount := int64(math.Exp(7+1.2*g.rng.NormFloat64())) + 100 // cents, log-normal around $11
		inv := "in_" + ids.Nano(14)
		sales = append(sales, models.SaleEvent{EventID: ids.Nano(16), Timestamp: at, WorkspaceID: g.ws.ID, EventName: "Purchase",
			CustomerID: l.cust, Amount: amount, Currency: "usd", PaymentProcessor: "stripe", InvoiceID: inv, ClickAttrs: l.ev.ClickAttrs})
		g.stats.SaleAmount += amount
	}
	g.leadEvs, g.saleEvs = evs, sales
	addCustomerSales(customers, sales)
	if g.o.PerBatch {
		return g.conversionsPerBatch(ctx, customers, evs, sales)
	}
	// Customers and events in large COPY / literal-INSERT transactions; the
	// aggregates and link counters of all of them at the end.
	const per = 10000
	b := newBar(g.o.Progress, "leads", len(evs))
	for start := 0; start < len(evs); start += per {
		end := min(start+per, len(evs))
		if err := g.loader.Insert(ctx, customers[start:end]); err != nil {
			return fmt.Errorf("demo: write customers: %w", err)
		}
		if err := g.loader.Insert(ctx, evs[start:end]); err != nil {
			return fmt.Errorf("demo: write leads: %w", err)
		}
		b.set(end)
	}
	g.stats.Leads = len(evs)
	sb := newBar(g.o.Progress, "sales", len(sales))
	for start := 0; start < len(sales); start += per {
		end := min(start+per, len(sales))
		if err := g.loader.Insert(ctx, sales[start:end]); err != nil {
			return fmt.Errorf("demo: write sales: %w", err)
		}
		sb.set(end)
	}
	g.stats.Sales = len(sales)
	f := models.NewAggregateFolder()
	f.AddLeads(evs)
	f.AddSales(sales)
	if err := g.loader.Aggregates(ctx, f.TakeAll()); err != nil {
		return fmt.Errorf("demo: conversion aggregates: %w", err)
	}
	counts := map[string]*models.LinkCounters{}
	bump := func(linkID string) *models.LinkCounters {
		c := counts[linkID]
		if c == nil {
			c = &models.LinkCounters{}
			counts[linkID] = c
		}
		return c
	}
	for i := range evs {
		bump(evs[i].LinkID).Leads++
	}
	for i := range sales {
		c := bump(sales[i].LinkID)
		c.Conversions++
		c.Sales++
		c.SaleAmount += sales[i].Amount
	}
	if err := g.loader.AddLinkConversions(ctx, g.ws.ID, counts); err != nil {
		return fmt.Errorf("demo: link conversion counters: %w", err)
	}
	return nil
}

// addCustomerSales fills the customers' counters from their sales (what
// tracking a sale does to its customer: the sales count, the amount and the
// first sale's time), before the customers are written.
func addCustomerSales(customers []models.Customer, sales []models.SaleEvent) {
	at := make(map[string]int, len(customers))
	for i := range customers {
		at[customers[i].ID] = i
	}
	for i := range sales {
		s := &sales[i]
		c := &customers[at[s.CustomerID]]
		c.Sales++
		c.SaleAmount += s.Amount
		if c.FirstSaleAt == nil || s.Timestamp.Before(*c.FirstSaleAt) {
			t := s.Timestamp
			c.FirstSaleAt = &t
		}
	}
}

// conversionsPerBatch stores leads and sales 1000 at a time with the
// conversions service's aggregator and link counters in each transaction.
func (g *gen) conversionsPerBatch(ctx context.Context, customers []models.Customer, evs []models.LeadEvent, sales []models.SaleEvent) error {
	const per = 1000
	agg := models.EventAggregator{}
	b := newBar(g.o.Progress, "leads", len(evs))
	for start := 0; start < len(evs); start += per {
		end := min(start+per, len(evs))
		err := g.db.Tx(ctx, func(tx *models.DB) error {
			if err := tx.WithContext(ctx).CreateInBatches(customers[start:end], 50).Error; err != nil {
				return err
			}
			if err := tx.WithContext(ctx).CreateInBatches(evs[start:end], 50).Error; err != nil {
				return err
			}
			for i := start; i < end; i++ {
				if err := tx.BumpLinkCounters(ctx, g.ws.ID, evs[i].LinkID, models.LinkCounters{Leads: 1}); err != nil {
					return err
				}
			}
			return agg.AddLeads(ctx, tx, evs[start:end])
		})
		if err != nil {
			return fmt.Errorf("demo: write leads: %w", err)
		}
		b.set(end)
	}
	g.stats.Leads = len(evs)
	sb := newBar(g.o.Progress, "sales", len(sales))
	for start := 0; start < len(sales); start += per {
		end := min(start+per, len(sales))
		err := g.db.Tx(ctx, func(tx *models.DB) error {
			if err := tx.WithContext(ctx).CreateInBatches(sales[start:end], 50).Error; err != nil {
				return err
			}
			for i := start; i < end; i++ {
				s := &sales[i]
				if err := tx.BumpLinkCounters(ctx, g.ws.ID, s.LinkID, models.LinkCounters{Conversions: 1, Sales: 1, SaleAmount: s.Amount}); err != nil {
					return err
				}
			}
			return agg.AddSales(ctx, tx, sales[start:end])
		})
		if err != nil {
			return fmt.Errorf("demo: write sales: %w", err)
		}
		sb.set(end)
	}
	g.stats.Sales = len(sales)
	return nil
}

// analyzeTables refreshes the planner statistics of the tables a demo fills
// (not the whole database) on the per-batch path. It is an admin command's
// long statement: on PostgreSQL it runs without RELINK_DB_TIMEOUT's
// statement_timeout, bounded by its own ten minutes instead.
func analyzeTables(ctx context.Context, db *models.DB) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if db.Dialect != "postgres" {
		return db.WithContext(ctx).Exec("ANALYZE").Error
	}
	return db.Tx(ctx, func(tx *models.DB) error {
		if err := tx.Exec("SET LOCAL statement_timeout = 0").Error; err != nil {
			return err
		}
		return tx.Exec("ANALYZE " + strings.Join(bulkTables, ", ")).Error
	})
}

// spreadAfter is a random time up to span after t, never after now: events
// of the last hours spread over the time left instead of piling up at now.
func spreadAfter(rng *rand.Rand, t time.Time, span time.Duration, now time.Time) time.Time {
	if left := now.Sub(t); left < span {
		span = left
	}
	if span <= 0 {
		return t
	}
	return t.Add(time.Duration(rng.Int64N(int64(span))))
}

// linkByID finds one of the run's links.
func (g *gen) linkByID(id string) *models.Link {
	if g.linkIndex == nil {
		g.linkIndex = make(map[string]int, len(g.links))
		for i := range g.links {
			g.linkIndex[g.links[i].ID] = i
		}
	}
	if i, ok := g.linkIndex[id]; ok {
		return &g.links[i]
	}
	return nil
}

// sampleIndexes marks k distinct indexes of [0, n) chosen uniformly (Floyd's
// algorithm); all of them when k ≥ n.
func sampleIndexes(rng *rand.Rand, n, k int) []bool {
	pick := make([]bool, n)
	if k >= n {
		for i := range pick {
			pick[i] = true
		}
		return pick
	}
	for j := n - k; j < n; j++ {
		if t := rng.IntN(j + 1); pick[t] {
			pick[j] = true
		} else {
			pick[t] = true
		}
	}
	return pick
}
