// Package config parses Relink's RELINK_* environment variables once into a
// typed, validated struct. Nothing else in the program reads the environment.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/qr"
)

// Config is the whole runtime configuration.
type Config struct {
	DatabaseURL string   // sqlite:PATH or postgres://…
	AppURL      *url.URL // console, embed, /api, default short domain in dev
	APIURL      *url.URL // JSON API at the root
	ShortDomain string   // default short domain (host[:port])
	DevMode     bool     // plain HTTP allowed everywhere

	RedisURL string // shared state across instances; empty = in-process
	// ClickHouseURL turns on the ClickHouse event store (RELINK_CLICKHOUSE_URL,
	// docs/clickhouse.md); empty: events stay in the SQL database.
	ClickHouseURL string
	// ClickHouseClickWindow is how long the SQL database keeps the slim row
	// of a click stored in ClickHouse, for lead attribution
	// (RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW, 90 days by default).
	ClickHouseClickWindow time.Duration

	TLSCert   string
	TLSKey    string
	ACMEEmail string
	ACMEDir   string // certificate cache directory
	ACMECA    string // ACME directory URL (RELINK_ACME_CA)
	HTTPAddr  string // plain-HTTP listener used alongside TLS (ACME, upgrade redirects)

	TrustedProxies []netip.Prefix

	LogFormat string // text|json
	LogLevel  slog.Level

	BodyLimit       int           // bytes
	ShutdownTimeout time.Duration // how long in-flight work may take on SIGTERM

	FXRatesFile string // JSON FX rates (units per USD) overriding the built-in table

	InviteTTL        time.Duration // how long a console invite link stays valid
	SessionHashKeys  [][]byte      // securecookie hash keys, newest first (rotation)
	SessionBlockKeys [][]byte      // securecookie block keys, same order

	// Click path (internal/ingest, internal/linkcache, internal/geo).
	GeoIPDB            string        // MaxMind-format .mmdb; empty: the embedded country database; "off": trusted headers only
	GeoCountryHeaders  []string      // trusted proxy headers with the ISO-2 country, first non-empty wins
	GeoRegionHeaders   []string      // … with the subdivision code
	GeoCityHeaders     []string      // … with the city (percent-decoded)
	ClickQueue         int           // accepted clicks waiting to be written
	ClickBatch         int           // clicks per write transaction
	ClickFlushInterval time.Duration // longest a click waits for its batch
	ClickDedupWindow   time.Duration // repeat clicks by one visitor on a link within it are not counted; 0 disables
	LinkCacheSize      int           // links kept in the redirect's cache
	LinkCacheTTL       time.Duration // life of a cached link; 0: until changed (invalidated) or evicted

	DBTimeout time.Duration // deadline of every database call (RELINK_DB_TIMEOUT)

	MetricsToken string // bearer token /metrics requires (RELINK_METRICS_TOKEN)

	DataDir            string // RELINK_DATA_DIR: the click journal lives in DataDir/clicks
	ClickJournal       bool   // RELINK_CLICK_JOURNAL (on by default)
	ClickJournalMax    int64  // bytes; past it clicks are refused (RELINK_CLICK_JOURNAL_MAX)
	ClickJournalFsync  bool   // fsync each group commit (RELINK_CLICK_JOURNAL_FSYNC=commit)
	ClickJournalWindow time.Duration

	UsageLimits bool // enforce each plan's monthly event and link limits (RELINK_USAGE_LIMITS=plan)

	QRLogoFetch qr.Fetch // which logo URLs /qr may download (RELINK_QR_LOGO_FETCH)
	// MetatagsFetch is which pages GET /links/metatags may download
	// (RELINK_METATAGS_FETCH; same values as RELINK_QR_LOGO_FETCH).
	MetatagsFetch qr.Fetch

	// ImportTargets is which addresses the console's imports from another
	// service's API may reach: "public" or "any" (RELINK_IMPORT_TARGETS).
	ImportTargets string

	// Outgoing webhooks (internal/webhooks).
	WebhookTargets      string          // "public" or "any" (RELINK_WEBHOOK_TARGETS)
	WebhookTimeout      time.Duration   // per delivery attempt
	WebhookConcurrency  int             // deliveries in flight per instance
	WebhookRetries      []time.Duration // waits before each retry
	WebhookLogRetention time.Duration   // delivery log kept this long
	// WebhookBusyRate is the link.clicked deliveries per second per instance
	// while live traffic saturates the machine (RELINK_WEBHOOK_BUSY_RATE);
	// 0 (off) never paces them.
	WebhookBusyRate float64
	SMTPURL         string // RELINK_SMTP_URL: owners' e-mails; empty logs them
	MailFrom        string // RELINK_MAIL_FROM

	// ListenAddr serves every face on one plain-HTTP address behind a
	// reverse proxy (RELINK_LISTEN_ADDR); empty: the ports of the origins.
	ListenAddr string
	// TLSAskToken lets a reverse proxy's on-demand TLS check
	// (/.well-known/relink/tls-ask) be called from off the loopback
	// interface (RELINK_TLS_ASK_TOKEN).
	TLSAskToken string
	// Domain verification (internal/domaincheck): what custom domains
	// should point to (RELINK_DOMAIN_TARGET, a host name for CNAMEs), the
	// deployment's addresses for A/AAAA records (RELINK_DOMAIN_ADDRESSES;
	// empty: those the target resolves to) and the DNS server asked
	// (RELINK_DNS_RESOLVER, host:port; empty: /etc/resolv.conf's).
	DomainTarget    string
	DomainAddresses []netip.Addr
	DNSResolver     string
}

// Var documents one environment variable; the README table is generated from
// the same list so the two cannot drift.
type Var struct {
	Name, Default, Doc string
}

// Vars lists every RELINK_ variable Relink reads.
var Vars = []Var{
	{"RELINK_DATABASE_URL", "sqlite:relink.db", "Database: `sqlite:PATH` (embedded, pure Go) or a `postgres://` URL."},
	{"RELINK_APP_URL", "http://localhost:8080", "Origin of the console, the embed dashboard and `/api`; in dev it also serves the default short domain."},
	{"RELINK_API_URL", "http://localhost:8081", "Origin serving the Dub-compatible JSON API at its root."},
	{"RELINK_SHORT_DOMAIN", "host of RELINK_APP_URL", "Default short domain (host[:port]) for new links."},
	{"RELINK_DEV", "true when every origin is localhost/127.0.0.1", "Dev mode: plain HTTP accepted, `Secure` cookies off."},
	{"RELINK_CLICKHOUSE_URL", "(empty)", "ClickHouse event store, e.g. `http://127.0.0.1:8123/relink` (the HTTP interface; `http://user:password@host:8123/database`; server 18.16 or newer). When set, click batches are written to ClickHouse as well before the click journal lets them go, leads and sales follow through an outbox table, ClickHouse's migrations are applied at start, and `/analytics`, `/events`, partner analytics, the console and the embed count events there; links, customers, commissions and link counters stay in the SQL database. Move existing events with `relink clickhouse backfill` (docs/clickhouse.md). Empty: everything stays in the SQL database."},
	{"RELINK_REDIS_URL", "(empty)", "Redis for state shared by several instances (rate limits, cache invalidation). Empty: in-process."},
	{"RELINK_TLS_CERT", "(empty)", "PEM certificate file; with RELINK_TLS_KEY the HTTPS origins are served with TLS."},
	{"RELINK_TLS_KEY", "(empty)", "PEM private key file for RELINK_TLS_CERT. Also accepts RELINK_TLS_KEY_FILE."},
	{"RELINK_ACME_EMAIL", "(empty)", "Contact email; when set, certificates for the app, API and registered short domains are obtained automatically (ACME, TLS-ALPN-01 and HTTP-01)."},
	{"RELINK_ACME_DIR", "./certs", "Where ACME certificates are cached."},
	{"RELINK_ACME_CA", "Let's Encrypt production (`https://acme-v02.api.letsencrypt.org/directory`)", "ACME directory URL of the certificate authority: Let's Encrypt staging (`https://acme-staging-v02.api.letsencrypt.org/directory`) or another CA. An https URL; the CA's certificate must be trusted by the system (or `SSL_CERT_FILE`)."},
	{"RELINK_HTTP_ADDR", "`:80` when TLS is on", "Plain-HTTP listener next to TLS: ACME challenges, HTTPS upgrade redirects for short links, the HTTPS-required error for the API."},
	{"RELINK_TRUSTED_PROXIES", "127.0.0.1/32,::1/128", "Comma-separated CIDRs whose `X-Forwarded-Proto`/`X-Forwarded-For` and geo headers are trusted."},
	{"RELINK_LOG_FORMAT", "text", "`text` or `json`."},
	{"RELINK_LOG_LEVEL", "info", "`debug`, `info`, `warn` or `error`. The server logs one line per request to stderr, buffered and written every 100 ms and on exit (one write per line cost the redirect more than the line itself)."},
	{"RELINK_BODY_LIMIT", "1048576", "Largest accepted request body in bytes; larger bodies get 400 `bad_request` naming the limit."},
	{"RELINK_SHUTDOWN_TIMEOUT", "20s", "On SIGTERM: how long in-flight requests may take to finish, and then, separately, how long the queues (the click pipeline) may take to drain."},
	{"RELINK_INVITE_TTL", "168h", "How long a console invite link stays valid; an expired one answers 410 `invite_expired`."},
	{"RELINK_GEOIP_DB", "(empty)", "MaxMind-format `.mmdb` (GeoLite2/GeoIP2 City or Country) used to locate clicks by IP when no trusted geo header says where they come from. Empty: the free country database embedded in the binary (countries and continents, no regions or cities); `off`: trusted headers only. `relink geoip status` says which is in use and how old it is."},
	{"RELINK_GEO_COUNTRY_HEADERS", "CF-IPCountry,X-Vercel-IP-Country", "Headers a trusted proxy (RELINK_TRUSTED_PROXIES) sets with the visitor's ISO country code; the first non-empty one wins."},
	{"RELINK_GEO_REGION_HEADERS", "X-Vercel-IP-Country-Region", "Headers a trusted proxy sets with the visitor's region (subdivision code)."},
	{"RELINK_GEO_CITY_HEADERS", "X-Vercel-IP-City", "Headers a trusted proxy sets with the visitor's city (percent-encoded names are decoded)."},
	{"RELINK_CLICK_QUEUE", "50000", "Clicks accepted and waiting in memory to be written. With the click journal on (the default) the journal holds the backlog and at most 4,096 (or this many, if fewer) wait in memory. With it off, when the queue is full (e.g. a long database outage) further clicks are refused, counted in `relink_clicks_dropped_total` on `/metrics` and logged; redirects never wait."},
	{"RELINK_CLICK_BATCH", "2500", "Clicks written per transaction."},
	{"RELINK_CLICK_FLUSH_INTERVAL", "1s", "Longest time a click waits for its batch to fill before it is written."},
	{"RELINK_CLICK_DEDUP_WINDOW", "1h", "Repeat clicks by the same visitor (IP and user agent) on the same link within this window are not counted, as upstream does; `0` counts every click."},
	{"RELINK_LINK_CACHE_SIZE", "100000", "Links kept in each instance's in-process redirect cache."},
	{"RELINK_LINK_CACHE_TTL", "0", "Life of a cached link. `0`: until the link changes (invalidated in-process, and across instances through Redis when RELINK_REDIS_URL is set). Set e.g. `30s` when several instances run without Redis."},
	{"RELINK_FX_RATES", "(built-in table)", "JSON file of FX rates, units of each currency per 1 USD (`{\"eur\": 0.92}` or `{\"base\":\"USD\",\"rates\":{…}}`), used to convert non-USD sales to USD cents. Overrides the approximate built-in table; re-read when it changes, so a daily cron can refresh it."},
	{"RELINK_USAGE_LIMITS", "off", "`off`: no usage limits (self-hosted default). `plan`: each workspace's plan caps its events (clicks, leads and sales) and new links per calendar month (UTC), as upstream's plans do — free 1,000 events and 25 links, pro 50,000 and 1,000, business 250,000 and 10,000, advanced 1,000,000 and 50,000, enterprise unlimited. Over the limit, `/analytics` and `/events` and link creation answer 403 `forbidden`; clicks are still recorded."},
	{"RELINK_WEBHOOK_TARGETS", "public", "Which addresses webhook deliveries may reach: `public` (public addresses only, checked on the resolved address when connecting, so a webhook URL cannot make the server reach loopback, private, link-local or any other special-purpose address (the IANA registries: documentation, benchmarking, NAT64, IPv4-compatible and -mapped IPv6, multicast …)) or `any` (receivers on an intranet). A refused delivery is logged in the webhook's delivery log as a failed attempt."},
	{"RELINK_WEBHOOK_TIMEOUT", "15s", "Time limit of one webhook delivery attempt (connect, send, and the receiver's answer)."},
	{"RELINK_WEBHOOK_CONCURRENCY", "16", "Webhook deliveries in flight per instance."},
	{"RELINK_WEBHOOK_RETRIES", "12s,2m28s,30m8s,6h7m,24h", "Waits before each retry of a failed webhook delivery, comma-separated (Dub's queue schedule: 6 attempts over about 30 hours). After the last, the delivery is marked failed; 20 consecutive failed attempts disable the webhook."},
	{"RELINK_WEBHOOK_BUSY_RATE", "100", "`link.clicked` deliveries per second per instance while redirects saturate the machine (its CPU under 10% idle, from `/proc/stat`, while clicks arrive): click webhooks then wait in the outbox, durable, and are sent when the CPU is idle again, so they never take the redirects' CPU. `off` sends them as they come. Other events are never paced."},
	{"RELINK_WEBHOOK_LOG_RETENTION", "720h", "How long webhook delivery log entries (and finished deliveries) are kept."},
	{"RELINK_SMTP_URL", "(empty)", "Mail server for the owners' notices (a webhook failing at its 5th, 10th and 15th consecutive failed attempt, disabled at the 20th) and the partners' mails (portal sign-in links, application approved or rejected): `smtp://[user:password@]host[:587]` (STARTTLS when offered) or `smtps://…[:465]`. Empty: each mail is a log line instead, with its text (so the operator can pass a sign-in link on)."},
	{"RELINK_MAIL_FROM", "Relink <relink@host of RELINK_APP_URL>", "Sender of those e-mails."},
	{"RELINK_QR_LOGO_FETCH", "public", "Which logo URLs `GET /qr` may download for the codes of paid workspaces' links (the `logo` parameter, else the domain's logo; `data:image/…;base64` logos need no download): `public` (public addresses only: `/qr` is unauthenticated, so it may not make the server reach loopback, private, link-local or any other special-purpose address (the IANA registries: documentation, benchmarking, NAT64, IPv4-compatible and -mapped IPv6, multicast …)), `any` (logos on an intranet) or `off`. Logos are at most 2 MiB and 4096×4096 pixels, cached for an hour."},
	{"RELINK_DB_TIMEOUT", "5s", "Deadline of every database call: `statement_timeout` on PostgreSQL, the busy timeout on SQLite, and a context deadline on each query and on API and console requests. A database that does not answer in time gets 503 `service_unavailable` with `Retry-After`, never a hung request."},
	{"RELINK_METRICS_TOKEN", "(empty)", "Bearer token `/metrics` requires (`Authorization: Bearer …`). Empty: `/metrics` answers only in dev mode and is 404 otherwise."},
	{"RELINK_DATA_DIR", "./data", "Directory for local state: the click journal (`clicks/`)."},
	{"RELINK_CLICK_JOURNAL", "on", "`on`: every accepted click is appended to the on-disk journal (RELINK_DATA_DIR/clicks) before it waits for the database, and replayed after a crash or an outage (docs/reliability.md). `off`: clicks wait in memory only (RELINK_CLICK_QUEUE) and a crash loses them."},
	{"RELINK_CLICK_JOURNAL_MAX", "1073741824", "Largest size of the click journal in bytes (1 GiB, about 3 million clicks). Past it new clicks are refused, counted in `relink_click_journal_refused_total{reason=\"max_bytes\"}` and `relink_clicks_dropped_total` and logged, and `/readyz` answers 503; redirects still answer. A full disk is handled the same way (`reason=\"disk\"`, docs/reliability.md)."},
	{"RELINK_CLICK_JOURNAL_FSYNC", "commit", "`commit`: each group commit (every RELINK_CLICK_JOURNAL_WINDOW) is fsynced, so a power loss costs at most one window of clicks. `none`: written to the OS only (a process crash loses nothing more, a power loss may lose the OS's unwritten pages)."},
	{"RELINK_CLICK_JOURNAL_WINDOW", "5ms", "Group-commit window of the click journal: clicks accepted within it are written (and fsynced) together. A SIGKILL loses at most the clicks of one window."},
	{"RELINK_METATAGS_FETCH", "public", "Which pages `GET /links/metatags` (link previews: title, description, image) may download: `public` (public addresses only, checked on every connection and redirect: the route is unauthenticated), `any` (pages on an intranet) or `off` (every answer is built from the URL alone). Pages are read for at most 5 seconds, 5 redirects and 2 MiB of HTML; answers are cached for 5 minutes."},
	{"RELINK_LISTEN_ADDR", "(empty)", "Behind a reverse proxy that terminates TLS (Caddy, nginx): the one plain-HTTP address, e.g. `127.0.0.1:8080`, every face is served on, each request's face chosen by its Host, instead of the ports of RELINK_APP_URL and RELINK_API_URL. Not with RELINK_TLS_CERT or RELINK_ACME_EMAIL. The proxy's address must be in RELINK_TRUSTED_PROXIES (docs/deploy.md)."},
	{"RELINK_TLS_ASK_TOKEN", "(empty)", "Token that lets a reverse proxy's on-demand TLS check `GET /.well-known/relink/tls-ask?domain=NAME` (200 for a host Relink serves, 404 otherwise) be called from another machine with `&token=…`. Without it the check answers only direct loopback calls (no `X-Forwarded-For`), as Caddy's `ask` on the same host makes them (docs/deploy.md)."},
	{"RELINK_DOMAIN_TARGET", "host of RELINK_APP_URL", "Host name custom domains point to: a domain is verified when its CNAME is this name, or its A/AAAA records are this deployment's addresses (RELINK_DOMAIN_ADDRESSES). The console shows the record to create."},
	{"RELINK_DOMAIN_ADDRESSES", "(the addresses of RELINK_DOMAIN_TARGET)", "Comma-separated IP addresses of this deployment that a custom domain's A/AAAA records may name (apex domains, which cannot have a CNAME). Empty: whatever RELINK_DOMAIN_TARGET resolves to."},
	{"RELINK_DNS_RESOLVER", "(the nameservers of /etc/resolv.conf)", "DNS server (`host:port`) domain verification asks for custom domains' CNAME, A and AAAA records."},
	{"RELINK_SESSION_KEYS", "(random per start in dev)", "Console session keys: comma-separated `hashkey:blockkey` pairs (hex or base64, 32 bytes each), newest first; older pairs still decode (rotation). Also accepts RELINK_SESSION_KEYS_FILE. Required outside dev."},
}

// Getenv abstracts the environment so tests can pass a map.
type Getenv func(string) string

// Load parses and validates configuration from getenv.
func Load(getenv Getenv) (*Config, error) {
	l := &loader{getenv: getenv}
	get, positive, duration := l.get, l.positive, l.duration
	var errs []error // this function's own; joined after the loader's
	var err error
	c := &Config{}
	l.origins(c)
	l.transport(c)
	l.logging(c)
	c.GeoIPDB = get("RELINK_GEOIP_DB", "")
	c.GeoCountryHeaders = list(get("RELINK_GEO_COUNTRY_HEADERS", "CF-IPCountry,X-Vercel-IP-Country"))
	c.GeoRegionHeaders = list(get("RELINK_GEO_REGION_HEADERS", "X-Vercel-IP-Country-Region"))
	c.GeoCityHeaders = list(get("RELINK_GEO_CITY_HEADERS", "X-Vercel-IP-City"))
	c.ClickQueue = positive("RELINK_CLICK_QUEUE", "50000")
	c.ClickBatch = positive("RELINK_CLICK_BATCH", "2500")
	c.ClickFlushInterval = duration("RELINK_CLICK_FLUSH_INTERVAL", "1s", false)
	c.ClickDedupWindow = duration("RELINK_CLICK_DEDUP_WINDOW", "1h", true)
	c.LinkCacheSize = positive("RELINK_LINK_CACHE_SIZE", "100000")
	c.LinkCacheTTL = duration("RELINK_LINK_CACHE_TTL", "0", true)
	c.DBTimeout = duration("RELINK_DB_TIMEOUT", "5s", false)
	c.MetricsToken = get("RELINK_METRICS_TOKEN", "")
	c.DataDir = get("RELINK_DATA_DIR", "./data")
	switch v := strings.ToLower(get("RELINK_CLICK_JOURNAL", "on")); v {
	case "on", "true", "1":
		c.ClickJournal = true
	case "off", "false", "0":
	default:
		errs = append(errs, fmt.Errorf("RELINK_CLICK_JOURNAL: want on or off, got %q", v))
	}
	if c.ClickJournalMax, err = strconv.ParseInt(get("RELINK_CLICK_JOURNAL_MAX", "1073741824"), 10, 64); err != nil || c.ClickJournalMax < 1<<20 {
		errs = append(errs, fmt.Errorf("RELINK_CLICK_JOURNAL_MAX: want a number of bytes of at least 1048576"))
	}
	switch v := strings.ToLower(get("RELINK_CLICK_JOURNAL_FSYNC", "commit")); v {
	case "commit":
		c.ClickJournalFsync = true
	case "none":
	default:
		errs = append(errs, fmt.Errorf("RELINK_CLICK_JOURNAL_FSYNC: want commit or none, got %q", v))
	}
	c.ClickJournalWindow = duration("RELINK_CLICK_JOURNAL_WINDOW", "5ms", false)
	switch v := strings.ToLower(get("RELINK_USAGE_LIMITS", "off")); v {
	case "off":
	case "plan":
		c.UsageLimits = true
	default:
		errs = append(errs, fmt.Errorf("RELINK_USAGE_LIMITS: want off or plan, got %q", v))
	}
	if c.QRLogoFetch, err = qr.ParseFetch(get("RELINK_QR_LOGO_FETCH", string(qr.FetchPublic))); err != nil {
		errs = append(errs, fmt.Errorf("RELINK_QR_LOGO_FETCH: %w", err))
	}
	if c.MetatagsFetch, err = qr.ParseFetch(get("RELINK_METATAGS_FETCH", string(qr.FetchPublic))); err != nil {
		errs = append(errs, fmt.Errorf("RELINK_METATAGS_FETCH: %w", err))
	}
	l.webhooks(c)
	l.deployment(c)
	c.FXRatesFile = get("RELINK_FX_RATES", "")
	if c.FXRatesFile != "" {
		if _, err := os.Stat(c.FXRatesFile); err != nil {
			errs = append(errs, fmt.Errorf("RELINK_FX_RATES: %w", err))
		}
	}
	if keys := get("RELINK_SESSION_KEYS", ""); keys != "" {
		c.SessionHashKeys, c.SessionBlockKeys, err = parseSessionKeys(keys)
		if err != nil {
			errs = append(errs, fmt.Errorf("RELINK_SESSION_KEYS: %w", err))
		}
	} else if !c.DevMode {
		errs = append(errs, errors.New("RELINK_SESSION_KEYS is required outside dev mode (generate with `openssl rand -hex 32` twice: HASH:BLOCK)"))
	}
	if err := errors.Join(append(l.errs, errs...)...); err != nil {
		return nil, err
	}
	return c, nil
}

// loader reads RELINK_* variables and collects every problem, so one start
// reports them all.
type loader struct {
	getenv Getenv
	errs   []error
}

// get is the variable's value (or the content of the file NAME_FILE
// names), else def.
func (l *loader) get(name, def string) string {
	if v := strings.TrimSpace(l.getenv(name)); v != "" {
		return v
	}
	if f := strings.TrimSpace(l.getenv(name + "_FILE")); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			// A secret that cannot be read must stop the start, not
			// silently fall back to the default.
			l.errs = append(l.errs, fmt.Errorf("%s_FILE: %w", name, err))
			return def
		}
		return strings.TrimSpace(string(b))
	}
	return def
}

func (l *loader) positive(name, def string) int {
	n, err := strconv.Atoi(l.get(name, def))
	if err != nil || n <= 0 {
		l.errs = append(l.errs, fmt.Errorf("%s: want a positive number", name))
	}
	return n
}

func (l *loader) duration(name, def string, allowZero bool) time.Duration {
	d, err := time.ParseDuration(l.get(name, def))
	if err != nil || d < 0 || (d == 0 && !allowZero) {
		l.errs = append(l.errs, fmt.Errorf("%s: want a duration like 1s or 5m, got %q", name, l.get(name, def)))
	}
	return d
}

// MinClickWindow is the shortest RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW: the
// commission schedule counts the previous UTC days' clicks from the slim
// rows, and a few days of downtime must not lose them.
const MinClickWindow = 7 * 24 * time.Hour

// clickWindow parses RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW: a Go duration
// (2160h) or whole days (90d), at least MinClickWindow.
func (l *loader) clickWindow() time.Duration {
	const name = "RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW"
	v := strings.TrimSpace(l.get(name, "90d"))
	d, err := time.ParseDuration(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	}
	if err != nil || d < MinClickWindow {
		l.errs = append(l.errs, fmt.Errorf("%s: want a duration of at least 7d, like 90d or 2160h, got %q", name, v))
	}
	return d
}

// origins: the database, the app and API origins, the short domain, dev
// mode.
func (l *loader) origins(c *Config) {
	c.DatabaseURL = l.get("RELINK_DATABASE_URL", "sqlite:relink.db")
	if !strings.HasPrefix(c.DatabaseURL, "sqlite:") && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		l.errs = append(l.errs, fmt.Errorf("RELINK_DATABASE_URL: want sqlite:PATH or postgres://…, got %q", c.DatabaseURL))
	}
	var err error
	if c.AppURL, err = parseOrigin("RELINK_APP_URL", l.get("RELINK_APP_URL", "http://localhost:8080")); err != nil {
		l.errs = append(l.errs, err)
	}
	if c.APIURL, err = parseOrigin("RELINK_API_URL", l.get("RELINK_API_URL", "http://localhost:8081")); err != nil {
		l.errs = append(l.errs, err)
	}
	if c.AppURL != nil {
		c.ShortDomain = strings.ToLower(l.get("RELINK_SHORT_DOMAIN", c.AppURL.Host))
	}
	if c.AppURL != nil && c.APIURL != nil {
		dev := isLocal(c.AppURL) && isLocal(c.APIURL)
		if v := l.get("RELINK_DEV", ""); v != "" {
			b, perr := strconv.ParseBool(v)
			if perr != nil {
				l.errs = append(l.errs, fmt.Errorf("RELINK_DEV: want true or false, got %q", v))
			}
			dev = b
		}
		c.DevMode = dev
	}
}

// transport: Redis, TLS (files or ACME), the plain-HTTP listener, trusted
// proxies.
func (l *loader) transport(c *Config) {
	c.RedisURL = l.get("RELINK_REDIS_URL", "")
	c.ClickHouseURL = l.get("RELINK_CLICKHOUSE_URL", "")
	if c.ClickHouseURL != "" {
		if u, err := url.Parse(c.ClickHouseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			l.errs = append(l.errs, fmt.Errorf("RELINK_CLICKHOUSE_URL: want http(s)://host:8123/database, got %q", c.ClickHouseURL))
		}
	}
	c.ClickHouseClickWindow = l.clickWindow()
	c.TLSCert = l.get("RELINK_TLS_CERT", "")
	c.TLSKey = l.get("RELINK_TLS_KEY", "")
	if (c.TLSCert == "") != (c.TLSKey == "") {
		l.errs = append(l.errs, errors.New("RELINK_TLS_CERT and RELINK_TLS_KEY must be set together"))
	}
	c.ACMEEmail = l.get("RELINK_ACME_EMAIL", "")
	c.ACMEDir = l.get("RELINK_ACME_DIR", "./certs")
	c.ACMECA = l.get("RELINK_ACME_CA", LetsEncryptURL)
	if u, err := url.Parse(c.ACMECA); err != nil || u.Scheme != "https" || u.Host == "" {
		l.errs = append(l.errs, fmt.Errorf("RELINK_ACME_CA: want the https URL of an ACME directory, got %q", c.ACMECA))
	}
	httpDef := ""
	if c.TLSEnabled() {
		httpDef = ":80"
	}
	c.HTTPAddr = l.get("RELINK_HTTP_ADDR", httpDef)
	for _, s := range strings.Split(l.get("RELINK_TRUSTED_PROXIES", "127.0.0.1/32,::1/128"), ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			if a, perr := netip.ParseAddr(s); perr == nil {
				c.TrustedProxies = append(c.TrustedProxies, netip.PrefixFrom(a, a.BitLen()))
				continue
			}
		}
		p, perr := netip.ParsePrefix(s)
		if perr != nil {
			l.errs = append(l.errs, fmt.Errorf("RELINK_TRUSTED_PROXIES: %q is not a CIDR or address", s))
			continue
		}
		c.TrustedProxies = append(c.TrustedProxies, p)
	}
}

// logging and request limits.
func (l *loader) logging(c *Config) {
	var err error
	c.LogFormat = l.get("RELINK_LOG_FORMAT", "text")
	if c.LogFormat != "text" && c.LogFormat != "json" {
		l.errs = append(l.errs, fmt.Errorf("RELINK_LOG_FORMAT: want text or json, got %q", c.LogFormat))
	}
	if err := c.LogLevel.UnmarshalText([]byte(l.get("RELINK_LOG_LEVEL", "info"))); err != nil {
		l.errs = append(l.errs, fmt.Errorf("RELINK_LOG_LEVEL: %w", err))
	}
	bodyLimit := l.get("RELINK_BODY_LIMIT", "1048576")
	if c.BodyLimit, err = strconv.Atoi(bodyLimit); err != nil || c.BodyLimit <= 0 {
		l.errs = append(l.errs, fmt.Errorf("RELINK_BODY_LIMIT: want a positive number of bytes, got %q", bodyLimit))
	}
	shutdown := l.get("RELINK_SHUTDOWN_TIMEOUT", "20s")
	if c.ShutdownTimeout, err = time.ParseDuration(shutdown); err != nil || c.ShutdownTimeout <= 0 {
		l.errs = append(l.errs, fmt.Errorf("RELINK_SHUTDOWN_TIMEOUT: want a positive duration like 20s, got %q", shutdown))
	}
	if c.InviteTTL, err = time.ParseDuration(l.get("RELINK_INVITE_TTL", "168h")); err != nil || c.InviteTTL <= 0 {
		l.errs = append(l.errs, fmt.Errorf("RELINK_INVITE_TTL: want a positive duration like 168h"))
	}
}

// webhooks: outgoing webhook delivery (internal/webhooks).
func (l *loader) webhooks(c *Config) {
	c.WebhookTargets = strings.ToLower(l.get("RELINK_WEBHOOK_TARGETS", "public"))
	if c.WebhookTargets != "public" && c.WebhookTargets != "any" {
		l.errs = append(l.errs, fmt.Errorf("RELINK_WEBHOOK_TARGETS: want public or any, got %q", c.WebhookTargets))
	}
	c.ImportTargets = strings.ToLower(l.get("RELINK_IMPORT_TARGETS", "public"))
	if c.ImportTargets != "public" && c.ImportTargets != "any" {
		l.errs = append(l.errs, fmt.Errorf("RELINK_IMPORT_TARGETS: want public or any, got %q", c.ImportTargets))
	}
	c.WebhookTimeout = l.duration("RELINK_WEBHOOK_TIMEOUT", "15s", false)
	c.WebhookConcurrency = l.positive("RELINK_WEBHOOK_CONCURRENCY", "16")
	c.WebhookLogRetention = l.duration("RELINK_WEBHOOK_LOG_RETENTION", "720h", false)
	if v := strings.ToLower(l.get("RELINK_WEBHOOK_BUSY_RATE", "100")); v != "off" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			l.errs = append(l.errs, fmt.Errorf("RELINK_WEBHOOK_BUSY_RATE: want deliveries per second above 0, or off, got %q", v))
		}
		c.WebhookBusyRate = r
	}
	c.SMTPURL = l.get("RELINK_SMTP_URL", "")
	c.MailFrom = l.get("RELINK_MAIL_FROM", "")
	if c.MailFrom == "" && c.AppURL != nil {
		c.MailFrom = "Relink <relink@" + c.AppURL.Hostname() + ">"
	}
	c.WebhookRetries = []time.Duration{}
	for _, part := range strings.Split(l.get("RELINK_WEBHOOK_RETRIES", "12s,2m28s,30m8s,6h7m,24h"), ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil || d < 0 {
			l.errs = append(l.errs, fmt.Errorf("RELINK_WEBHOOK_RETRIES: want durations like 12s,2m, got %q", part))
			continue
		}
		c.WebhookRetries = append(c.WebhookRetries, d)
	}
}

// deployment: the reverse-proxy listener and its on-demand TLS check, and
// domain verification's target, addresses and resolver.
func (l *loader) deployment(c *Config) {
	c.ListenAddr = l.get("RELINK_LISTEN_ADDR", "")
	if c.ListenAddr != "" {
		if _, _, err := net.SplitHostPort(c.ListenAddr); err != nil {
			l.errs = append(l.errs, fmt.Errorf("RELINK_LISTEN_ADDR: want host:port like 127.0.0.1:8080, got %q", c.ListenAddr))
		}
		if c.TLSEnabled() {
			l.errs = append(l.errs, errors.New("RELINK_LISTEN_ADDR is for a reverse proxy that terminates TLS: unset RELINK_TLS_CERT and RELINK_ACME_EMAIL"))
		}
	}
	c.TLSAskToken = l.get("RELINK_TLS_ASK_TOKEN", "")
	def := ""
	if c.AppURL != nil {
		def = c.AppURL.Hostname()
	}
	c.DomainTarget = strings.TrimSuffix(strings.ToLower(l.get("RELINK_DOMAIN_TARGET", def)), ".")
	for _, s := range list(l.get("RELINK_DOMAIN_ADDRESSES", "")) {
		a, err := netip.ParseAddr(s)
		if err != nil {
			l.errs = append(l.errs, fmt.Errorf("RELINK_DOMAIN_ADDRESSES: %q is not an IP address", s))
			continue
		}
		c.DomainAddresses = append(c.DomainAddresses, a.Unmap())
	}
	c.DNSResolver = l.get("RELINK_DNS_RESOLVER", "")
	if c.DNSResolver != "" {
		if _, _, err := net.SplitHostPort(c.DNSResolver); err != nil {
			c.DNSResolver = net.JoinHostPort(c.DNSResolver, "53")
		}
	}
}

// LetsEncryptURL is the default ACME directory (Let's Encrypt production).
const LetsEncryptURL = "https://acme-v02.api.letsencrypt.org/directory"

// TLSEnabled reports whether Relink terminates TLS itself.
func (c *Config) TLSEnabled() bool { return c.TLSCert != "" || c.ACMEEmail != "" }

// Dialect is "sqlite" or "postgres".
func (c *Config) Dialect() string {
	if strings.HasPrefix(c.DatabaseURL, "sqlite:") {
		return "sqlite"
	}
	return "postgres"
}

// IsTrustedProxy reports whether addr may set forwarding headers.
func (c *Config) IsTrustedProxy(ip net.IP) bool {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	a = a.Unmap()
	for _, p := range c.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// list splits a comma-separated value, dropping blanks.
func list(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseOrigin(name, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: want an origin like https://example.com, got %q", name, raw)
	}
	u.Host = strings.ToLower(u.Host)
	u.Path, u.RawQuery, u.Fragment = "", "", ""
	return u, nil
}

// Port returns the URL's explicit or scheme-default port.
func Port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func isLocal(u *url.URL) bool {
	h := u.Hostname()
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "127.0.0.1" || h == "::1"
}

func parseSessionKeys(s string) (hash, block [][]byte, err error) {
	for _, pair := range strings.Split(s, ",") {
		h, b, ok := strings.Cut(strings.TrimSpace(pair), ":")
		if !ok {
			return nil, nil, fmt.Errorf("want HASHKEY:BLOCKKEY pairs, got %q", pair)
		}
		hk, err := decodeKey(h)
		if err != nil {
			return nil, nil, err
		}
		bk, err := decodeKey(b)
		if err != nil {
			return nil, nil, err
		}
		if len(bk) != 16 && len(bk) != 24 && len(bk) != 32 {
			return nil, nil, fmt.Errorf("block key must be 16, 24 or 32 bytes, got %d", len(bk))
		}
		if len(hk) < 32 {
			return nil, nil, fmt.Errorf("hash key must be at least 32 bytes, got %d", len(hk))
		}
		hash, block = append(hash, hk), append(block, bk)
	}
	return hash, block, nil
}
