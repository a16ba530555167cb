// Package demo fills a workspace with realistic links, clicks, leads and
// sales (countries, devices, referrers, UTM tags, partners) for `relink
// demo`, the analytics benchmark and manual testing. Clicks go through the
// click pipeline's batch writer (models.RecordClicks); leads and sales are
// stored in batches with the conversions service's models. Instead of
// running the aggregate hooks batch by batch, the workspace's aggregates are
// built once at the end with models.RebuildAggregates (the same rows; the
// demo test checks that they equal what the hooks produce).
package demo

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// Options say how much to generate.
type Options struct {
	Links, Clicks, Leads, Sales int
	Days                        int
	Partners                    int // partners enrolled in the default program (default 20)
	BatchSize                   int // clicks per transaction (default 5000)
	Seed                        uint64
	Now                         time.Time
	Progress                    io.Writer // progress bars; nil for none
}

// Stats are what was written.
type Stats struct {
	Links, Clicks, Leads, Sales int
	SaleAmount                  int64
	Took                        time.Duration
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
	sources   = []string{"newsletter", "twitter", "linkedin", "google", "partner", "podcast"}
	mediums   = []string{"email", "social", "cpc", "referral"}
	campaigns = []string{"spring sale", "launch", "black friday", "webinar", "retargeting"}
	tagColors = []string{"red", "yellow", "green", "blue", "purple"}
)

type bar struct {
	w     io.Writer
	name  string
	total int
	start time.Time
	last  time.Time
}

func newBar(w io.Writer, name string, total int) *bar {
	return &bar{w: w, name: name, total: total, start: time.Now()}
}

func (b *bar) set(n int) {
	if b.w == nil || b.total == 0 {
		return
	}
	if n < b.total && time.Since(b.last) < 100*time.Millisecond {
		return
	}
	b.last = time.Now()
	const width = 30
	done := width * n / b.total
	el := time.Since(b.start)
	rate := float64(n) / math.Max(el.Seconds(), 1e-9)
	fmt.Fprintf(b.w, "\r%-7s [%s%s] %3d%% %d/%d %.1fs %.0f/s ", b.name, strings.Repeat("#", done), strings.Repeat(".", width-done),
		100*n/b.total, n, b.total, el.Seconds(), rate)
	if n >= b.total {
		fmt.Fprintln(b.w)
	}
}

// Generate writes the demo data into ws.
func Generate(ctx context.Context, db *models.DB, ws *models.Workspace, o Options) (*Stats, error) {
	began := time.Now()
	if o.Now.IsZero() {
		o.Now = time.Now().UTC()
	}
	if o.Days <= 0 {
		o.Days = 90
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 5000
	}
	if o.Partners == 0 {
		o.Partners = 20
	}
	if o.Links <= 0 {
		return nil, fmt.Errorf("demo: --links must be at least 1")
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	g := &gen{db: db, ws: ws, o: o, rng: rng}
	if err := g.entities(ctx); err != nil {
		return nil, err
	}
	if err := g.makeLinks(ctx); err != nil {
		return nil, err
	}
	if err := g.makeClicks(ctx); err != nil {
		return nil, err
	}
	if err := g.makeConversions(ctx); err != nil {
		return nil, err
	}
	// The events went in without the per-batch aggregate hooks; one
	// set-based pass builds the workspace's aggregates (same rows).
	if err := db.RebuildAggregates(ctx, ws.ID); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	// Fresh planner statistics for the tables just filled.
	if err := db.WithContext(ctx).Exec("ANALYZE").Error; err != nil {
		return nil, fmt.Errorf("demo: analyze: %w", err)
	}
	g.stats.Took = time.Since(began)
	return &g.stats, nil
}

type gen struct {
	db       *models.DB
	ws       *models.Workspace
	o        Options
	rng      *rand.Rand
	stats    Stats
	tags     []string
	folders  []string
	partners []string
	program  string
	links    []models.Link
	pop      weighted[int] // link index by popularity
	sampled  []models.Click
}

func (g *gen) entities(ctx context.Context) error {
	now := g.o.Now
	for i := range 5 {
		t := models.Tag{ID: ids.New(ids.Tag), WorkspaceID: g.ws.ID, Name: fmt.Sprintf("demo-%s-%d", tagColors[i], g.rng.IntN(1e6)), Color: tagColors[i], CreatedAt: now, UpdatedAt: now}
		if err := g.db.WithContext(ctx).Create(&t).Error; err != nil {
			return fmt.Errorf("demo: create tag: %w", err)
		}
		g.tags = append(g.tags, t.ID)
	}
	for _, name := range []string{"Marketing", "Partners", "Product"} {
		f := models.Folder{ID: ids.New(ids.Folder), WorkspaceID: g.ws.ID, Name: fmt.Sprintf("%s %d", name, g.rng.IntN(1e6)), Type: "default", CreatedAt: now, UpdatedAt: now}
		if err := g.db.WithContext(ctx).Create(&f).Error; err != nil {
			return fmt.Errorf("demo: create folder: %w", err)
		}
		g.folders = append(g.folders, f.ID)
	}
	svc := conversions.New(conversions.Deps{DB: g.db, Aggregator: models.EventAggregator{}, Now: func() time.Time { return now }})
	for i := range g.o.Partners {
		name := fmt.Sprintf("Partner %d", i+1)
		ep, err := svc.EnrollPartner(ctx, g.ws, conversions.EnrollInput{Email: fmt.Sprintf("partner%d-%d@demo.example", i+1, g.rng.IntN(1e9)), Name: &name})
		if err != nil {
			return fmt.Errorf("demo: enroll partner: %w", err)
		}
		g.partners = append(g.partners, ep.Partner.ID)
		g.program = ep.Enrollment.ProgramID
	}
	return nil
}

func (g *gen) makeLinks(ctx context.Context) error {
	now := g.o.Now
	created := now.AddDate(0, 0, -g.o.Days-1)
	domain := g.ws.Slug + ".link"
	weights := make([]float64, g.o.Links)
	idx := make([]int, g.o.Links)
	var tags []models.LinkTag
	suffix := ids.Nano(4)
	for i := range g.o.Links {
		u := fmt.Sprintf("https://shop.example/p/%d", i)
		if g.rng.IntN(3) > 0 {
			u += fmt.Sprintf("?utm_source=%s&utm_medium=%s&utm_campaign=%s", sources[g.rng.IntN(len(sources))],
				mediums[g.rng.IntN(len(mediums))], strings.ReplaceAll(campaigns[g.rng.IntN(len(campaigns))], " ", "+"))
			if g.rng.IntN(2) == 0 {
				u += "&utm_term=shoes&utm_content=hero"
			}
		}
		l := models.Link{ID: ids.New(ids.Link), WorkspaceID: g.ws.ID, Domain: domain, Key: fmt.Sprintf("d%s%d", suffix, i), URL: u,
			TrackConversion: true, CreatedAt: created, UpdatedAt: created}
		if i == 0 {
			l.Key = models.RootKey + suffix // one root-like link per run keeps keys unique
		}
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

// clicks writes the clicks in time order, batch by batch, through the
// pipeline's writer with the aggregates hook.
func (g *gen) makeClicks(ctx context.Context) error {
	n := g.o.Clicks
	if n <= 0 {
		return nil
	}
	end := g.o.Now.Truncate(time.Second)
	start := end.AddDate(0, 0, -g.o.Days)
	span := end.Sub(start)
	// Sorted random instants with a day/night rhythm (UTC afternoon peak).
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
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	keep := float64(g.o.Leads) / float64(n) * 1.05
	b := newBar(g.o.Progress, "clicks", n)
	batch := make([]models.Click, 0, g.o.BatchSize)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if _, err := g.db.RecordClicks(ctx, batch); err != nil {
			return fmt.Errorf("demo: write clicks: %w", err)
		}
		batch = batch[:0]
		return nil
	}
	for i, t := range times {
		l := &g.links[g.pop.pick(g.rng)]
		p := places.pick(g.rng)
		a := agents.pick(g.rng)
		c := models.Click{ClickID: ids.Nano(16), Timestamp: start.Add(time.Duration(t)).Truncate(time.Millisecond), WorkspaceID: g.ws.ID,
			LinkID: l.ID, Domain: l.Domain, Key: l.Key, URL: l.URL, IP: fmt.Sprintf("198.51.%d.%d", g.rng.IntN(256), g.rng.IntN(256)),
			Continent: p.continent, Country: p.country, Region: p.region, City: p.city, Latitude: "Unknown", Longitude: "Unknown",
			Device: a.device, DeviceVendor: "Unknown", DeviceModel: "Unknown", Browser: a.browser, BrowserVersion: "124",
			Engine: "Blink", EngineVersion: "124", OS: a.os, OSVersion: "Unknown", CPUArchitecture: "Unknown", UA: a.ua,
			Trigger: "link", Referer: "(direct)", RefererURL: "(direct)"}
		if g.rng.IntN(12) == 0 {
			c.QR, c.Trigger = true, "qr"
		}
		if r := referers.pick(g.rng); r != "" {
			c.RefererURL = r
			host := strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(r, "https://"), "/", 2)[0], "www.")
			c.Referer = host
		}
		c.UTMSource, c.UTMMedium, c.UTMCampaign, c.UTMTerm, c.UTMContent = utms(l.URL)
		batch = append(batch, c)
		if len(g.sampled) < g.o.Leads && g.rng.Float64() < keep {
			g.sampled = append(g.sampled, c)
		}
		if len(batch) == g.o.BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
		b.set(i + 1)
	}
	if err := flush(); err != nil {
		return err
	}
	b.set(n)
	g.stats.Clicks = n
	return nil
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
		at := c.Timestamp.Add(time.Duration(g.rng.Int64N(int64(36 * time.Hour))))
		if at.After(now) {
			at = now
		}
		cid := ids.New(ids.Customer)
		name := fmt.Sprintf("Customer %d", i+1)
		email := fmt.Sprintf("customer%d@demo.example", i+1)
		country := c.Country
		clickID, linkID, clickedAt := c.ClickID, c.LinkID, c.Timestamp
		customers = append(customers, models.Customer{ID: cid, WorkspaceID: g.ws.ID, ExternalID: "demo_" + ids.Nano(12), Name: &name,
			Email: &email, Country: &country, ClickID: &clickID, LinkID: &linkID, ClickedAt: &clickedAt, CreatedAt: at, UpdatedAt: at})
		leads = append(leads, lead{cust: cid, ev: models.LeadEvent{EventID: ids.Nano(16), Timestamp: at, WorkspaceID: g.ws.ID,
			EventName: "Sign up", CustomerID: cid, Metadata: models.Metadata{"plan": plans[g.rng.IntN(3)], "seats": fmt.Sprint(1 + g.rng.IntN(50))},
			ClickAttrs: models.AttrsOf(c)}})
	}
	b := newBar(g.o.Progress, "leads", len(leads))
	const per = 1000
	for start := 0; start < len(leads); start += per {
		end := min(start+per, len(leads))
		evs := make([]models.LeadEvent, 0, end-start)
		for _, l := range leads[start:end] {
			evs = append(evs, l.ev)
		}
		err := g.db.Tx(ctx, func(tx *models.DB) error {
			if err := tx.WithContext(ctx).CreateInBatches(customers[start:end], 200).Error; err != nil {
				return err
			}
			return tx.WithContext(ctx).CreateInBatches(evs, 500).Error
		})
		if err != nil {
			return fmt.Errorf("demo: write leads: %w", err)
		}
		b.set(end)
	}
	g.stats.Leads = len(leads)

	sb := newBar(g.o.Progress, "sales", g.o.Sales)
	sales := make([]models.SaleEvent, 0, g.o.Sales)
	for range g.o.Sales {
		l := &leads[g.rng.IntN(len(leads))]
		at := l.ev.Timestamp.Add(time.Duration(g.rng.Int64N(int64(10 * 24 * time.Hour))))
		if at.After(now) {
			at = now
		}
		amount := int64(math.Exp(7+1.2*g.rng.NormFloat64())) + 100 // cents, log-normal around $11
		inv := "in_" + ids.Nano(14)
		sales = append(sales, models.SaleEvent{EventID: ids.Nano(16), Timestamp: at, WorkspaceID: g.ws.ID, EventName: "Purchase",
			CustomerID: l.cust, Amount: amount, Currency: "usd", PaymentProcessor: "stripe", InvoiceID: inv, ClickAttrs: l.ev.ClickAttrs})
		g.stats.SaleAmount += amount
	}
	for start := 0; start < len(sales); start += per {
		end := min(start+per, len(sales))
		chunk := sales[start:end]
		err := g.db.WithContext(ctx).CreateInBatches(chunk, 200).Error
		if err != nil {
			return fmt.Errorf("demo: write sales: %w", err)
		}
		sb.set(end)
	}
	g.stats.Sales = len(sales)
	// Link counters follow the events.
	err := g.db.WithContext(ctx).Exec(`UPDATE links SET
		leads = (SELECT COUNT(*) FROM lead_events e WHERE e.link_id = links.id),
		conversions = (SELECT COUNT(*) FROM sale_events e WHERE e.link_id = links.id),
		sales = (SELECT COUNT(*) FROM sale_events e WHERE e.link_id = links.id),
		sale_amount = (SELECT COALESCE(SUM(amount), 0) FROM sale_events e WHERE e.link_id = links.id)
		WHERE workspace_id = ?`, g.ws.ID).Error
	if err != nil {
		return fmt.Errorf("demo: link counters: %w", err)
	}
	return nil
}
