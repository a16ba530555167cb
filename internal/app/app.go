// Package app is Relink's composition root: Build turns the parsed
// configuration into every service the faces use and the table of background
// jobs. `relink serve`, the tests and the benchmarks all build the process
// here, so what runs in production is what the tests run; handlers.New only
// mounts routes over the result.
//
// Adding a service: a field on Services and one line in Build (or in the
// build step it belongs to). Adding a background job: one s.Jobs.Add line in
// jobs() below. docs/architecture.md has the picture.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/domaincheck"
	"github.com/relinkhq/relink/internal/domainset"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/jobs"
	"github.com/relinkhq/relink/internal/keyuse"
	"github.com/relinkhq/relink/internal/linkcache"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/mail"
	"github.com/relinkhq/relink/internal/metatags"
	"github.com/relinkhq/relink/internal/portal"
	"github.com/relinkhq/relink/internal/privacy"
	"github.com/relinkhq/relink/internal/qr"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/internal/stripeapp"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/internal/workspaces"
	"github.com/relinkhq/relink/internal/wsset"
	"github.com/relinkhq/relink/models"
)

// CommissionPeriod is how often the commission schedule runs: commissions
// past their holding period become processed, and the previous day's click
// commissions are created.
const CommissionPeriod = time.Hour

// Services is everything the faces use, built once per process by Build.
// Every field is set; none is optional.
type Services struct {
	Config *config.Config
	DB     *models.DB
	Log    *slog.Logger
	Now    func() time.Time

	// Limiter counts every rate-limited request (API keys, publishable
	// keys, per-IP public routes, the embed): in-process, or shared through
	// Redis when RELINK_REDIS_URL is set.
	Limiter ratelimit.Limiter
	// Redis is the shared-state client (nil without RELINK_REDIS_URL).
	Redis *redis.Client
	// ClickHouse is the event store and ClickHouseOutbox the copy of leads
	// and sales to it (both nil without RELINK_CLICKHOUSE_URL).
	ClickHouse       *chstore.Client
	ClickHouseOutbox *chstore.Outbox
	// Domains is the in-memory set of registered domains (every
	// workspace's, not Config.ShortDomain): Domains.IsRegistered(host) picks
	// the short-link face for a Host, is the ACME host policy, and answers
	// any other "is this one of ours?" check (a reverse proxy's on-demand
	// TLS ask). No database round trip; reloaded on every domain change,
	// across instances through the link cache's Redis channel.
	Domains *domainset.Set

	// The click path: GeoIP, the redirect's link cache (invalidated across
	// instances through Redis), and the click pipeline.
	Geo       *geo.Locator
	LinkCache *shortlink.Cache
	Clicks    *ingest.Pipeline

	// FX converts non-USD sales (RELINK_FX_RATES).
	FX *conversions.FX
	// Links runs the link, domain, tag and folder rules; it tells
	// LinkInvalidator (the link cache) about every change.
	Links           *links.Service
	LinkInvalidator links.Invalidator
	// DomainChecks verifies custom domains' DNS (RELINK_DOMAIN_TARGET,
	// RELINK_DOMAIN_ADDRESSES, RELINK_DNS_RESOLVER): the job re-checks,
	// the API and the console check on demand.
	DomainChecks *domaincheck.Service
	// Conversions runs tracking, customers, partners, commissions and embed
	// tokens; Referrals the embedded referral dashboard's data.
	Conversions *conversions.Service
	Referrals   *referrals.Service
	// Stripe records sales, refunds and cancellations from workspaces'
	// Stripe webhook endpoints (docs/stripe.md).
	Stripe *stripeapp.Service
	// Workspaces changes workspaces' settings, members, invites and API
	// keys.
	Workspaces *workspaces.Service
	// Analytics answers /analytics, /events, the console and the embed.
	Analytics analytics.Engine
	// Logos loads the logos drawn on QR codes (RELINK_QR_LOGO_FETCH).
	Logos *qr.Logos
	// Pages fetches the pages of GET /links/metatags (RELINK_METATAGS_FETCH).
	Pages *metatags.Fetcher
	// Sessions signs the console's session cookies (RELINK_SESSION_KEYS).
	Sessions *auth.SessionCodec
	// KeyUse records API keys' last use off the request path (the API key
	// gate notes, the "api key use" job writes).
	KeyUse *keyuse.Recorder

	// Webhooks runs the webhook management rules (API and console);
	// WebhookWorker delivers the outbox; ClickWebhooks feeds link.clicked
	// from the click batches (its Hook is one of the pipeline's hooks).
	Webhooks      *webhooks.Service
	WebhookWorker *webhooks.Worker
	// WebhookPacer paces link.clicked deliveries while redirects saturate
	// the machine (nil with RELINK_WEBHOOK_BUSY_RATE=off).
	WebhookPacer  *webhooks.Pacer
	WebhookOwners *webhooks.Owners // e-mails owners about failing webhooks
	// Mailer sends the few e-mails (RELINK_SMTP_URL; without it, log
	// lines); Portal signs partners in to the partner portal by e-mail
	// links and tells applicants about their application.
	Mailer        mail.Mailer
	Portal        *portal.Service
	ClickWebhooks *webhooks.Clicks
	// KeepIPs is the set of workspaces whose clicks keep IP addresses
	// (their privacy setting); the console invalidates it on a change.
	KeepIPs *wsset.Set

	// Jobs is the background work; the server starts it with the listeners
	// and stops and drains it at shutdown.
	Jobs *jobs.Table

	closers []closer // what Build opened, closed in reverse by Close

	ownDB bool // Build opened the database (not Options.DB)
}

type closer struct {
	name string
	fn   func() error
}

// Options replace parts Build would otherwise make from the configuration.
// Production passes none; tests and benchmarks pass what they control.
type Options struct {
	// DB is an open, migrated database that the caller closes (tests:
	// testdb.Open). Without it Build opens Config.DatabaseURL, migrates it,
	// and Close closes it.
	DB *models.DB
	// Logger defaults to slog.Default(); Now to time.Now.
	Logger *slog.Logger
	Now    func() time.Time
	// Limiter replaces the configured rate limiter.
	Limiter ratelimit.Limiter
}

// Build makes the services and the jobs table from cfg. On error whatever
// was already opened is closed. The caller closes the result with Close
// after the server has shut down.
func Build(ctx context.Context, cfg *config.Config, o Options) (_ *Services, err error) {
	s := &Services{Config: cfg, DB: o.DB, Log: o.Logger, Now: o.Now, Limiter: o.Limiter}
	if s.Log == nil {
		s.Log = slog.Default()
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	defer func() {
		if err != nil {
			s.Close() //nolint:errcheck // the build error is the one to report
		}
	}()
	for _, step := range []func(context.Context) error{s.database, s.sharedState, s.eventStore, s.clickPath, s.domain, s.console} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	s.jobs()
	return s, nil
}

// BuildCommand makes the services for a command of the CLI (relink
// program, relink import, …): the same Build as serve, so a change made
// there goes through the same service methods, writes its webhook events to
// the outbox the servers deliver, and invalidates the running servers' link
// caches (through Redis when RELINK_REDIS_URL is set). The click journal is
// left out: it belongs to the server on this data directory. Its jobs are
// never started; the caller closes the services with Close.
func BuildCommand(ctx context.Context, cfg *config.Config) (*Services, error) {
	c := *cfg
	c.ClickJournal = false
	return Build(ctx, &c, Options{})
}

// jobs is the table of background work, in start and drain order. Add a
// job here: one line, with a Drain if it holds work that must not be lost
// at shutdown.
func (s *Services) jobs() {
	s.Jobs = jobs.New(s.Log)
	s.Jobs.Add(jobs.Job{Name: "clicks", Drain: s.Clicks.Drain})
	if s.ClickHouseOutbox != nil {
		// Leads and sales to ClickHouse (after the click drain: a lead
		// tracked during shutdown still goes out).
		s.Jobs.Add(jobs.Job{Name: "clickhouse outbox", Every: chstore.OutboxPeriod, Run: s.ClickHouseOutbox.Run, Drain: s.ClickHouseOutbox.Drain})
		// The SQL store keeps a click's slim row for the attribution
		// window only; ClickHouse holds the click.
		trim := &chstore.ClickTrim{SQL: s.DB, CH: s.ClickHouse, Window: s.Config.ClickHouseClickWindow, Now: s.Now, Log: s.Log}
		s.Jobs.Add(jobs.Job{Name: "clickhouse click trim", Every: chstore.TrimPeriod, Run: trim.Run})
		// Each closed month of the rollups in one part: what a year's
		// analytics read (docs/clickhouse.md, "Closed months in one part").
		compact := &chstore.Compaction{CH: s.ClickHouse, Now: s.Now, Log: s.Log}
		s.Jobs.Add(jobs.Job{Name: "clickhouse rollup compaction", Every: chstore.CompactPeriod, Run: compact.Run})
	}
	s.Jobs.Add(jobs.Job{Name: "commissions", Every: CommissionPeriod, Run: s.commissions})
	// Webhook delivery (it finishes its attempts in flight when stopped;
	// undelivered rows stay in the outbox for the next start) and the
	// refresh of the click-webhook set (changes made by other instances).
	s.Jobs.Add(jobs.Job{Name: "webhooks", Loop: func(ctx context.Context) { _ = s.WebhookWorker.Run(ctx) }})
	s.Jobs.Add(jobs.Job{Name: "webhook click set", Loop: s.ClickWebhooks.Run})
	// Privacy: the keep-IP set's refresh (other instances' changes) and the
	// deletion of raw clicks past their workspace's retention period.
	s.Jobs.Add(jobs.Job{Name: "keep-IP set", Loop: s.KeepIPs.Run})
	// The registered domains' safety-net reload (changes arrive at once).
	s.Jobs.Add(jobs.Job{Name: "domain set", Loop: s.Domains.Run})
	retention := &privacy.Retention{DB: s.DB, Now: s.Now, Logger: s.Log}
	if s.ClickHouse != nil {
		retention.Events = s.ClickHouse
	}
	s.Jobs.Add(jobs.Job{Name: "retention", Every: privacy.RetentionPeriod, Run: func(ctx context.Context) error {
		_, err := retention.Run(ctx)
		return err
	}})
	// Custom domains' DNS: unverified ones re-checked with backoff,
	// verified ones daily.
	s.Jobs.Add(jobs.Job{Name: "domain verification", Every: domaincheck.Period, Run: s.DomainChecks.Run})
	// API keys' last use, noted by the key gate at most once a minute per key.
	s.Jobs.Add(jobs.Job{Name: "api key use", Loop: s.KeyUse.Run, Drain: s.KeyUse.Flush})
}

// commissions is one round of the commission schedule (it logs its own
// failures and retries on the next round).
func (s *Services) commissions(ctx context.Context) error {
	s.Conversions.Tick(ctx)
	return nil
}

// database opens and migrates the database unless one was given.
func (s *Services) database(ctx context.Context) error {
	if s.DB != nil {
		return nil
	}
	db, err := models.OpenTimeout(s.Config.DatabaseURL, s.Config.DBTimeout)
	if err != nil {
		return err
	}
	s.onClose("database", db.Close)
	s.ownDB = true
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	s.DB = db
	return nil
}

// sharedState is the Redis client and the rate limiter (unless Options
// gave one).
func (s *Services) sharedState(ctx context.Context) error {
	limiter, rdb, err := newLimiter(ctx, s.Config, s.Now)
	if err != nil {
		return err
	}
	if rdb != nil {
		s.onClose("redis", rdb.Close)
	}
	s.Redis = rdb
	if s.Limiter == nil {
		s.Limiter = limiter
	}
	return nil
}

// eventStore connects the ClickHouse event store when RELINK_CLICKHOUSE_URL
// is set: applies its migrations and turns on the SQL store's outbox of
// leads and sales. A server that does not answer fails the start (a
// configured event store that is not there is a configuration error).
func (s *Services) eventStore(ctx context.Context) error {
	if s.Config.ClickHouseURL == "" {
		return nil
	}
	ch, err := chstore.Open(s.Config.ClickHouseURL)
	if err != nil {
		return fmt.Errorf("RELINK_CLICKHOUSE_URL: %w", err)
	}
	mctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := ch.Migrate(mctx, s.Log); err != nil {
		return fmt.Errorf("RELINK_CLICKHOUSE_URL %s: %w", ch, err)
	}
	ob := &chstore.Outbox{SQL: s.DB, CH: ch, Log: s.Log}
	if err := ob.Enable(ctx); err != nil {
		return err
	}
	s.ClickHouse, s.ClickHouseOutbox = ch, ob
	s.Log.Info("clickhouse event store", "url", ch.String())
	return nil
}

// newLimiter is the rate limiter: in-process by default, shared through
// Redis by every instance when RELINK_REDIS_URL is set (checked at start).
// The Redis client (nil without RELINK_REDIS_URL) is returned for the other
// shared state (link cache invalidation); the caller closes it.
func newLimiter(ctx context.Context, cfg *config.Config, now func() time.Time) (ratelimit.Limiter, *redis.Client, error) {
	if cfg.RedisURL == "" {
		return ratelimit.NewMemory(now), nil, nil
	}
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("RELINK_REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, nil, fmt.Errorf("connect to redis (RELINK_REDIS_URL): %w", err)
	}
	return ratelimit.NewRedis(rdb, "relink:rl:"), rdb, nil
}

// clickPath is GeoIP, the link cache and the click pipeline.
func (s *Services) clickPath(ctx context.Context) error {
	cfg := s.Config
	loc, err := geo.Open(cfg.GeoIPDB)
	if err != nil {
		return err
	}
	s.onClose("geoip", loc.Close)
	s.Geo = loc
	if s.Domains, err = domainset.New(ctx, s.DB, s.Log); err != nil {
		return err
	}
	// Domain changes on other instances arrive on the link cache's Redis
	// channel; a resubscription may have missed some.
	cache, err := shortlink.NewCache(s.DB, linkcache.Options{Size: cfg.LinkCacheSize, TTL: cfg.LinkCacheTTL,
		Redis: s.Redis, Now: s.Now, Logger: s.Log, OnRemoteDomain: s.Domains.Changed,
		OnResubscribe: func() { s.Domains.Changed("") }})
	if err != nil {
		return err
	}
	s.onClose("link cache", func() error { cache.Close(); return nil })
	s.LinkCache = cache
	// This instance's domain changes reload the set before the link cache
	// hears of them (and publishes them to the other instances).
	s.LinkInvalidator = domainsFirst{Invalidator: cache, domains: s.Domains}
	// link.clicked comes from the click batches: the feed's hook runs in
	// each batch's transaction.
	wc, err := webhooks.NewClicks(ctx, s.DB, wire.Writer{})
	if err != nil {
		return err
	}
	wc.Logger = s.Log
	s.ClickWebhooks = wc
	if s.KeepIPs, err = privacy.KeepingIPs(ctx, s.DB); err != nil {
		return err
	}
	s.KeepIPs.Logger = s.Log
	opt := ClickOptions(cfg, loc, s.Log, s.Now, wc.Hook)
	opt.KeepIP = s.KeepIPs.Has
	// The click journal (RELINK_CLICK_JOURNAL) when this process owns its
	// database (`relink serve`; tests over Options.DB share a database the
	// journal's replay must not write into after the test ends).
	if cfg.ClickJournal && s.ownDB {
		opt.Journal = &ingest.JournalOptions{Dir: filepath.Join(cfg.DataDir, "clicks"), MaxBytes: cfg.ClickJournalMax, Window: cfg.ClickJournalWindow,
			FsyncCommit: cfg.ClickJournalFsync}
	}
	var store ingest.Store = s.DB
	if s.ClickHouse != nil {
		store = &chstore.ClickStore{SQL: s.DB, CH: s.ClickHouse}
	}
	clicks, err := ingest.Open(store, opt)
	if err != nil {
		return err
	}
	s.Clicks = clicks
	return nil
}

// clickWindow is the attribution window conversions look clicks up in:
// with the ClickHouse event store, RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW (the
// SQL store keeps slim rows that long); otherwise none.
func (s *Services) clickWindow() time.Duration {
	if s.ClickHouse == nil {
		return 0
	}
	return s.Config.ClickHouseClickWindow
}

// EventUsage counts the workspace's clicks, leads and sales since since
// (the usage limits, RELINK_USAGE_LIMITS): from the SQL aggregates, or from
// ClickHouse's rollups when the event store is on (the SQL store then keeps
// no click aggregates).
func (s *Services) EventUsage(ctx context.Context, workspaceID string, since time.Time) (int64, error) {
	if s.ClickHouse != nil {
		return s.ClickHouse.EventUsage(ctx, workspaceID, since)
	}
	return s.DB.EventUsage(ctx, workspaceID, since)
}

// domainsFirst tells the set of registered domains of a domain change
// before the link cache (which drops the domain's entries and publishes the
// change to the other instances).
type domainsFirst struct {
	links.Invalidator
	domains *domainset.Set
}

func (d domainsFirst) InvalidateDomain(domain string) {
	d.domains.Changed(domain)
	d.Invalidator.InvalidateDomain(domain)
}

// ClickOptions are the click pipeline's options the configuration gives.
// extra hooks run after the aggregates, in the same transaction (the
// link.clicked webhook feed).
func ClickOptions(cfg *config.Config, loc *geo.Locator, log *slog.Logger, now func() time.Time, extra ...models.ClickHook) ingest.Options {
	dedup := cfg.ClickDedupWindow
	if dedup == 0 {
		dedup = -1 // disabled
	}
	// The SQL analytics engine reads hourly aggregates; keep them in the
	// same transaction as the clicks. With the ClickHouse event store the
	// click is stored there once (its rollups are ClickHouse's), and the SQL
	// store keeps only its slim row: no SQL aggregate (chstore.ClickStore).
	hooks := append([]models.ClickHook{models.AggregateClicks}, extra...)
	maxBatch := 0 // ingest's default, 10 × BatchSize
	if cfg.ClickHouseURL != "" {
		hooks = extra
		maxBatch = ClickHouseMaxBatch(cfg.ClickBatch, cfg.Dialect())
	}
	return ingest.Options{QueueSize: cfg.ClickQueue, BatchSize: cfg.ClickBatch, MaxBatch: maxBatch, FlushInterval: cfg.ClickFlushInterval,
		DedupWindow: dedup, Geo: loc, Logger: log, Now: now, Hooks: hooks}
}

// ClickHouseMaxBatch is the click pipeline's MaxBatch (the most clicks one
// write carries when the writer falls behind) with the ClickHouse event
// store on PostgreSQL: 20 × BatchSize (50,000 at RELINK_CLICK_BATCH's
// default of 2,500, which was 50 × 1,000 before that default was raised),
// where ingest's default is 10×. Every
// insert is a new part in ClickHouse that its background merges rewrite
// later; five times fewer, larger inserts halved ClickHouse's CPU per click
// in a catch-up and let the writer keep up with the SQL-only one
// (bench/README.md, "One insert per batch"). On SQLite a write holds the
// database's only write lock for its whole transaction, so the default
// stays (a 50,000-click transaction takes about a second there).
// dialect is the database's (config.Config.Dialect, models.DB.Dialect).
func ClickHouseMaxBatch(batchSize int, dialect string) int {
	if dialect != "postgres" {
		return 0
	}
	return 20 * batchSize
}

// domain is the business services over the database: links, FX,
// conversions, referrals, analytics and QR logos.
func (s *Services) domain(context.Context) error {
	cfg := s.Config
	fx, err := conversions.NewFX(cfg.FXRatesFile, s.Now)
	if err != nil {
		return err
	}
	s.FX = fx
	s.Links = &links.Service{
		DB: s.DB, ShortDomain: cfg.ShortDomain, Now: s.Now, Cache: s.LinkInvalidator,
		ReservedHosts: []string{cfg.AppURL.Host, cfg.APIURL.Host},
		Wire:          wire.Writer{APIOrigin: cfg.APIURL.String()},
	}
	if cfg.DevMode && cfg.AppURL.Scheme == "http" {
		// The app host serves the default short domain without TLS.
		s.Links.Wire.PlainHTTPDomain = cfg.ShortDomain
	}
	s.DomainChecks = &domaincheck.Service{DB: s.DB, Now: s.Now, Log: s.Log, Checker: &domaincheck.Checker{
		Target: cfg.DomainTarget, Addresses: cfg.DomainAddresses, Server: cfg.DNSResolver}}
	if err := s.webhooks(); err != nil {
		return err
	}
	engine := analytics.NewEngine(s.DB, s.Now)
	if s.ClickHouse != nil {
		engine = analytics.NewClickHouseEngine(s.DB, s.ClickHouse, s.Now)
	}
	// top_links rows and event link objects write shortLink and qrCode as
	// link objects do.
	engine.Wire = s.Links.Wire
	s.Analytics = engine
	s.Conversions, err = conversions.New(conversions.Deps{DB: s.DB, FX: fx, Aggregator: models.EventAggregator{}, Links: s.Links,
		Now: s.Now, Log: s.Log, Pending: s.Clicks, Analytics: s.Analytics, ClickWindow: s.clickWindow()})
	if err != nil {
		return err
	}
	s.Conversions.Applicants = s.Portal // approved and rejected applicants hear of it
	s.Referrals = &referrals.Service{DB: s.DB, Conversions: s.Conversions, Analytics: s.Analytics, Now: s.Now}
	s.Stripe = stripeapp.New(s.DB, s.Conversions, s.Now, s.Log)
	s.Workspaces = &workspaces.Service{DB: s.DB, Now: s.Now}
	if s.KeepIPs != nil {
		s.Workspaces.PrivacyChanged = s.KeepIPs.Invalidate
	}
	fetch := qr.FetchPublic
	if cfg.QRLogoFetch != "" {
		fetch = cfg.QRLogoFetch
	}
	s.Logos = qr.NewLogos(fetch)
	pages := qr.FetchPublic
	if cfg.MetatagsFetch != "" {
		pages = cfg.MetatagsFetch
	}
	s.Pages = metatags.New(pages != qr.FetchAny, pages == qr.FetchOff)
	s.KeyUse = keyuse.New(s.DB, s.Now, s.Log)
	return nil
}

// webhooks wires the webhook outbox into the link service and the click
// feed, and makes the management service and the delivery worker.
func (s *Services) webhooks() error {
	cfg := s.Config
	mailer, err := mail.New(cfg.SMTPURL, cfg.MailFrom, s.Log)
	if err != nil {
		return err
	}
	s.Mailer = mailer
	s.Portal = &portal.Service{DB: s.DB, Mailer: mailer, AppURL: strings.TrimSuffix(cfg.AppURL.String(), "/"), Now: s.Now, Log: s.Log}
	s.WebhookOwners = &webhooks.Owners{DB: s.DB, Mailer: mailer, ConsoleURL: cfg.AppURL.String(), Log: s.Log}
	s.Links.Events = &webhooks.LinkEvents{Wire: s.Links.Wire}
	s.ClickWebhooks.Wire = s.Links.Wire
	if cfg.WebhookBusyRate > 0 {
		clicks := s.Clicks
		s.WebhookPacer = &webhooks.Pacer{BusyRate: cfg.WebhookBusyRate, Live: func() uint64 { return clicks.Stats().Accepted }}
	}
	s.WebhookWorker = webhooks.NewWorker(s.DB, webhooks.Options{Targets: webhooks.Targets(cfg.WebhookTargets),
		Timeout: cfg.WebhookTimeout, Concurrency: cfg.WebhookConcurrency, Schedule: cfg.WebhookRetries,
		Retention: cfg.WebhookLogRetention, Logger: s.Log, Notify: s.WebhookOwners.Notify, Pace: s.WebhookPacer})
	s.Webhooks = &webhooks.Service{DB: s.DB, Changed: s.ClickWebhooks.Invalidate, Wake: s.WebhookWorker.Wake,
		Added: s.WebhookOwners.Added}
	return nil
}

// console is the session cookie codec. Keys come from the configuration;
// in dev mode without configured keys a random pair is made for this
// process (every restart signs everyone out) and a warning is logged.
// Config validation already refuses a missing key outside dev.
func (s *Services) console(context.Context) error {
	hash, block := s.Config.SessionHashKeys, s.Config.SessionBlockKeys
	if len(hash) == 0 {
		s.Log.Warn("RELINK_SESSION_KEYS is not set: console sessions use random keys and end when the process restarts")
		hash, block = auth.RandomSessionKeys()
	}
	codec, err := auth.NewSessionCodec(hash, block)
	if err != nil {
		return fmt.Errorf("console session keys: %w", err)
	}
	s.Sessions = codec
	s.Portal.Sessions = codec // the portal's cookie, read by the partner-profile API too
	return nil
}

func (s *Services) onClose(name string, fn func() error) {
	s.closers = append(s.closers, closer{name, fn})
}

// Close releases what Build opened (the database only when Build opened
// it), in reverse order. Call it after the server and its jobs have shut
// down.
func (s *Services) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i].fn(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", s.closers[i].name, err))
		}
	}
	s.closers = nil
	return errors.Join(errs...)
}
