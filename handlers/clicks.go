package handlers

import (
	"crypto/subtle"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"

	"github.com/relinkhq/relink/handlers/redirect"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ingest"
)

func (s *Server) redirects() *redirect.Handlers {
	cfg := s.svc.Config
	return redirect.New(redirect.Deps{
		Cache: s.svc.LinkCache, Clicks: s.svc.Clicks, Geo: s.svc.Geo,
		Headers:       geo.Headers{Country: cfg.GeoCountryHeaders, Region: cfg.GeoRegionHeaders, City: cfg.GeoCityHeaders},
		Limiter:       s.svc.Limiter,
		Logger:        s.log,
		Now:           s.svc.Now,
		DefaultDomain: CanonicalHost(cfg.ShortDomain),
		AppURL:        cfg.AppURL.String(),
		APIURL:        strings.TrimSuffix(cfg.APIURL.String(), "/"),
		Wire:          s.svc.Links.Wire,
		DB:            s.svc.DB,
		Conversions:   s.svc.Conversions,
		TrackDedup:    cfg.ClickDedupWindow,
		ClientIP:      s.ClientIP,
		TrustedProxy:  func(c *fiber.Ctx) bool { return cfg.IsTrustedProxy(c.Context().RemoteIP()) },
		SecureCookie:  !cfg.DevMode,
	})
}

// metrics serves the click pipeline's and link cache's counters in the
// Prometheus text format.
func (s *Server) metrics(c *fiber.Ctx) error {
	// Operational counters are not public: a bearer token
	// (RELINK_METRICS_TOKEN), or dev mode when none is set.
	if tok := s.svc.Config.MetricsToken; tok != "" {
		got, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(tok)) != 1 {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="metrics"`)
			return apierr.New(apierr.Unauthorized, "Unauthorized: /metrics needs the RELINK_METRICS_TOKEN bearer token.")
		}
	} else if !s.svc.Config.DevMode {
		return apierr.New(apierr.NotFound, "The requested endpoint does not exist.")
	}
	st := s.svc.Clicks.Stats()
	ls := s.svc.LinkCache.Stats()
	var b strings.Builder
	metric := func(name, typ, help string, v any) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s %v\n", name, help, name, typ, name, v)
	}
	metric("relink_clicks_accepted_total", "counter", "Clicks handed to the pipeline by redirects.", st.Accepted)
	metric("relink_clicks_dropped_total", "counter", "Clicks refused because the queue was full (or the pipeline stopped).", st.Dropped)
	metric("relink_clicks_dropped_shutdown_total", "counter", "Accepted clicks still unwritten at the shutdown deadline.", st.DroppedShutdown)
	metric("relink_clicks_bots_total", "counter", "Clicks not recorded: bots and link-preview crawlers.", st.Bots)
	metric("relink_clicks_deduplicated_total", "counter", "Clicks not recorded: same visitor and link within the dedup window.", st.Deduplicated)
	metric("relink_clicks_repeated_total", "counter", "Clicks not recorded: click id already stored.", st.Repeated)
	metric("relink_clicks_written_total", "counter", "Clicks stored.", st.Written)
	metric("relink_clicks_batches_total", "counter", "Click batches committed.", st.Batches)
	metric("relink_clicks_write_errors_total", "counter", "Failed click batch writes (each is retried).", st.WriteErrors)
	metric("relink_clicks_queued", "gauge", "Clicks waiting in the queue.", st.Queued)
	metric("relink_clicks_pending", "gauge", "Enriched clicks waiting for a write.", st.Pending)
	metric("relink_click_journal_backlog", "gauge", "Clicks in the click journal not yet in the database.", st.JournalBacklog)
	metric("relink_click_journal_bytes", "gauge", "Size of the click journal on disk.", st.JournalBytes)
	metric("relink_click_journal_full", "gauge", "1 while the click journal refuses clicks (RELINK_CLICK_JOURNAL_MAX reached, or its disk refuses writes).", boolGauge(st.JournalFull))
	fmt.Fprintf(&b, "# HELP relink_click_journal_refused_total Clicks refused because the click journal could not take them (also in relink_clicks_dropped_total); reason max_bytes: RELINK_CLICK_JOURNAL_MAX reached, disk: its disk refused a write (full, I/O error).\n# TYPE relink_click_journal_refused_total counter\n")
	for _, reason := range []string{ingest.ReasonJournalMax, ingest.ReasonJournalDisk} {
		fmt.Fprintf(&b, "relink_click_journal_refused_total{reason=%q} %d\n", reason, st.JournalRefused[reason])
	}
	metric("relink_click_journal_write_failures_total", "counter", "Failed click journal writes (disk full, I/O error); each group is kept and written again.", st.JournalWriteFailures)
	metric("relink_click_journal_lost_total", "counter", "Accepted clicks that reached neither the journal nor the database (a journal that could not write at a stop whose database was down too).", st.JournalLost)
	metric("relink_link_cache_entries", "gauge", "Entries in the link cache.", ls.Entries)
	metric("relink_link_cache_hits_total", "counter", "Link cache hits.", ls.Hits)
	metric("relink_link_cache_misses_total", "counter", "Link cache misses.", ls.Misses)
	metric("relink_tls_ask_allowed_total", "counter", "On-demand TLS checks answered 200 (a host Relink serves).", s.asks.allowed.Load())
	metric("relink_tls_ask_refused_total", "counter", "On-demand TLS checks answered 404: not a Relink domain.", s.asks.refused.Load())
	metric("relink_tls_ask_forbidden_total", "counter", "On-demand TLS checks refused: not a direct loopback call and no RELINK_TLS_ASK_TOKEN.", s.asks.forbidden.Load())
	metric("relink_track_visits_refused_total", "counter", "POST /track/visit calls not recorded: the page is not on the workspace's allowed hostnames.", s.track.Stats().VisitsRefused)
	if st := s.svc.Stripe; st != nil {
		ss := st.Stats()
		metric("relink_stripe_events_total", "counter", "Verified Stripe events received on workspaces' Stripe endpoints.", ss.Received)
		metric("relink_stripe_events_duplicate_total", "counter", "Stripe events not handled again: their id was already received (Stripe retries).", ss.Duplicates)
		metric("relink_stripe_requests_refused_total", "counter", "Stripe endpoint requests refused with 4xx: not connected, unsigned, badly signed, stale or below the Business plan.", ss.Refused)
	}
	if w := s.svc.WebhookWorker; w != nil {
		ws := w.Stats()
		metric("relink_webhook_delivered_total", "counter", "Webhook deliveries answered with a 2xx.", ws.Delivered)
		metric("relink_webhook_failed_attempts_total", "counter", "Webhook delivery attempts without a 2xx (each is retried on the schedule).", ws.FailedAttempts)
		metric("relink_webhook_exhausted_total", "counter", "Webhook deliveries whose every attempt failed.", ws.Exhausted)
		metric("relink_webhook_disabled_total", "counter", "Webhooks disabled after 20 consecutive failed attempts.", ws.Disabled)
	}
	if p := s.svc.WebhookPacer; p != nil {
		ps := p.Stats()
		metric("relink_webhook_click_paced", "gauge", "1 while link.clicked deliveries are paced because redirects saturate the machine.", boolGauge(ps.Paced))
		metric("relink_webhook_click_pace", "gauge", "link.clicked deliveries per second allowed now (0: not paced).", ps.Limit)
		metric("relink_webhook_click_paced_seconds_total", "counter", "Time link.clicked deliveries were paced.", ps.PacedT.Seconds())
	}
	if k, ok := s.svc.Analytics.(interface{ Kept() analytics.KeptStats }); ok && s.svc.ClickHouse != nil {
		ks := k.Kept()
		metric("relink_analytics_checks_kept_total", "counter", "ClickHouse analytics: closed four-week blocks whose completeness check was kept from an earlier query (only their hourly totals read).", ks.ChecksKept)
		metric("relink_analytics_checks_stale_total", "counter", "ClickHouse analytics: kept blocks whose totals had moved (events imported into them), checked again.", ks.ChecksStale)
		metric("relink_analytics_sums_kept_total", "counter", "ClickHouse analytics: rankings answered with their closed blocks' sums kept from an earlier query.", ks.SumsKept)
		metric("relink_analytics_sums_built_total", "counter", "ClickHouse analytics: closed blocks' sums read from ClickHouse to be kept.", ks.SumsBuilt)
		metric("relink_analytics_kept_dropped_total", "counter", "ClickHouse analytics: times every kept check and sum was dropped because relink clickhouse rebuild-rollups replaced rollups.", ks.Rebuilds)
		metric("relink_analytics_kept_blocks", "gauge", "ClickHouse analytics: closed four-week blocks kept as complete.", ks.Blocks)
		metric("relink_analytics_kept_sums", "gauge", "ClickHouse analytics: closed blocks' sums kept (at most 32 by URL and 32 by link or value).", ks.Sums)
		metric("relink_analytics_kept_sum_keys", "gauge", "ClickHouse analytics: the URLs, links and values in the kept sums.", ks.SumKeys)
		metric("relink_analytics_kept_url_names", "gauge", "ClickHouse analytics: URL strings kept by hash (all workspaces).", ks.URLNames)
	}
	c.Set(fiber.HeaderContentType, "text/plain; version=0.0.4; charset=utf-8")
	return c.SendString(b.String())
}

func boolGauge(b bool) int {
	if b {
		return 1
	}
	return 0
}
