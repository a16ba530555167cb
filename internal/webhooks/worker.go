package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relinkhq/relink/internal/netguard"
	"github.com/relinkhq/relink/models"
	"gorm.io/gorm"
)

// Targets says which destination addresses deliveries may reach.
type Targets string

const (
	// TargetsPublic delivers to public addresses only: a webhook URL is
	// chosen by any workspace owner, so it must not make the server reach
	// its own network. Checked on the resolved address at dial time.
	TargetsPublic Targets = "public"
	// TargetsAny delivers anywhere (receivers on an intranet, tests).
	TargetsAny Targets = "any"
)

// DefaultSchedule is the wait before each retry: QStash's documented
// backoff min(86400, e^(2.5n)) s (§6.3), so an event gets 6 attempts over
// about 30 hours.
var DefaultSchedule = []time.Duration{12 * time.Second, 148 * time.Second, 1808 * time.Second,
	22020 * time.Second, 24 * time.Hour}

// DisableAt is the consecutive failed attempts that disable a webhook
// (§6.4); owners are warned (logged) at 5, 10 and 15.
const DisableAt = 20

// Options configure a Worker.
type Options struct {
	Targets      Targets         // default public
	Timeout      time.Duration   // per attempt, default 15s
	Schedule     []time.Duration // waits before retries; default DefaultSchedule
	Concurrency  int             // deliveries in flight, default 16
	PollInterval time.Duration   // how often due rows are looked for, default 250ms
	Retention    time.Duration   // delivery log kept this long, default 30 days
	Logger       *slog.Logger
	// Notify hears of a webhook failing (the 5th, 10th and 15th consecutive
	// failed attempt) or disabled (the 20th), after the count is committed:
	// the owners' e-mails (MailOwners). It must not block.
	Notify func(Notice)
	// Pace, when set, paces link.clicked deliveries while live traffic
	// saturates the machine (Pacer); Run runs its sampler.
	Pace *Pacer
}

// Notice is a webhook's failure count reaching a step that tells its
// workspace's owners (§6.4).
type Notice struct {
	Webhook  Webhook // as read after the count
	Failures int
	Disabled bool
}

func (o *Options) defaults() {
	if o.Targets == "" {
		o.Targets = TargetsPublic
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.Schedule == nil {
		o.Schedule = DefaultSchedule
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 250 * time.Millisecond
	}
	if o.Retention <= 0 {
		o.Retention = 30 * 24 * time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Stats are a worker's counters since start.
type Stats struct {
	Delivered      uint64 `json:"delivered"`      // deliveries that got a 2xx
	FailedAttempts uint64 `json:"failedAttempts"` // attempts without a 2xx
	Exhausted      uint64 `json:"exhausted"`      // deliveries whose every attempt failed
	Disabled       uint64 `json:"disabled"`       // webhooks disabled at the threshold
	Unsubscribed   uint64 `json:"unsubscribed"`   // Zapier webhooks deleted on 410
}

// Worker delivers the outbox: it claims due rows (FOR UPDATE SKIP LOCKED on
// PostgreSQL, so several instances share the work and each row goes to one;
// SQLite has one writer and one claiming loop), POSTs them, and records
// each attempt. Delivery is at least once: a worker that dies after the
// receiver answered but before recording it leaves the claim to expire, and
// the row is delivered again.
type Worker struct {
	db     *models.DB
	opt    Options
	client *http.Client
	wake   chan struct{}
	lease  time.Duration
	// sem bounds the requests in flight to Concurrency, click batches
	// included, so deliveries never take more than that from the redirect.
	sem chan struct{}
	// clickRowsQueued counts the click batch rows claimed and not started;
	// clicksWaiting says the last claim of click rows got all it asked for.
	clickRowsQueued atomic.Int64
	clicksWaiting   atomic.Bool
	// clickRowsActive counts the click batch rows being sent.
	clickRowsActive atomic.Int64

	delivered, failed, exhausted, disabled, unsubscribed atomic.Uint64
}

// NewWorker returns a worker over db.
func NewWorker(db *models.DB, opt Options) *Worker {
	opt.defaults()
	dialer := &net.Dialer{Timeout: opt.Timeout}
	if opt.Targets != TargetsAny {
		dialer.Control = netguard.PublicOnly
	}
	tr := &http.Transport{DialContext: dialer.DialContext, Proxy: nil, TLSHandshakeTimeout: opt.Timeout,
		ResponseHeaderTimeout: opt.Timeout, MaxIdleConns: 256, MaxIdleConnsPerHost: opt.Concurrency,
		IdleConnTimeout: 90 * time.Second}
	client := &http.Client{Transport: tr, Timeout: opt.Timeout,
		// A redirect is the receiver's answer, not followed (a 3xx is not a
		// success: the attempt is retried).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// A claimed row waits at most claimSize/Concurrency rounds of attempts
	// before its own; the lease covers that and then some.
	return &Worker{db: db, opt: opt, client: client, wake: make(chan struct{}, 1),
		lease: 5*opt.Timeout + 30*time.Second, sem: make(chan struct{}, opt.Concurrency)}
}

// Stats returns the counters.
func (w *Worker) Stats() Stats {
	return Stats{Delivered: w.delivered.Load(), FailedAttempts: w.failed.Load(), Exhausted: w.exhausted.Load(),
		Disabled: w.disabled.Load(), Unsubscribed: w.unsubscribed.Load()}
}

// Wake makes the worker look for due rows now (after a test send).
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx is cancelled, then waits for the attempts in
// flight (each bounded by the timeout), records them, and releases the
// rows it claimed but did not start, so another instance or the next start
// delivers them.
func (w *Worker) Run(ctx context.Context) error {
	queue := make(chan claimed, w.claimSize())
	results, recorded := make(chan outcome, recordBatch), make(chan struct{})
	go w.recorder(results, recorded)
	if w.opt.Pace != nil {
		go w.opt.Pace.Run(ctx)
	}
	var wg sync.WaitGroup
	for range w.opt.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range queue {
				if d.Clicks > 0 && w.clickRowsQueued.Add(-1) < clickRowsPerClaim && w.clicksWaiting.Load() {
					w.Wake()
				}
				w.attempt(context.WithoutCancel(ctx), ctx, d, results)
			}
		}()
	}
	w.feed(ctx, queue)
	// Stopping: rows still queued are released, the rest finish.
	var unstarted []int64
drain:
	for {
		select {
		case d := <-queue:
			unstarted = append(unstarted, d.ID)
		default:
			break drain
		}
	}
	close(queue)
	wg.Wait()
	close(results)
	<-recorded
	if len(unstarted) > 0 {
		err := w.db.WithContext(context.WithoutCancel(ctx)).Model(&Delivery{}).Where("id IN ?", unstarted).
			Update("claimed_until", nil).Error
		if err != nil {
			w.opt.Logger.Warn("webhooks: release claims at stop (they expire with the lease)", "rows", len(unstarted), "err", err)
		}
	}
	return nil
}

// claimSize is how many rows one claim takes: a few rounds of the
// concurrency, so the claim query is amortised over many deliveries.
func (w *Worker) claimSize() int { return 4 * w.opt.Concurrency }

// feed claims due rows into queue whenever it runs low, until ctx ends.
func (w *Worker) feed(ctx context.Context, queue chan claimed) {
	nextCleanup := time.Time{}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-w.wake:
		}
		if now := Now(); now.After(nextCleanup) {
			w.cleanup(ctx, now)
			nextCleanup = now.Add(time.Hour)
		}
		for ctx.Err() == nil {
			room := cap(queue) - len(queue)
			if room < cap(queue)/2 {
				time.Sleep(5 * time.Millisecond) // the queue is still busy
				continue
			}
			// The claim is not cancelled half-way by a stop: rows it claims
			// are queued (and released at stop if not started).
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.opt.Timeout)
			batch, err := w.claim(cctx, room, false)
			if err == nil && w.clickRowsQueued.Load() < clickRowsPerClaim &&
				!(w.opt.Pace.Paced() && w.clickRowsActive.Load() > 0) {
				// Click batch rows (up to an ingest batch of requests each)
				// are taken a few at a time, when at most one is waiting:
				// the next ones are read and expanded while it is sent.
				// While paced, one at a time: expanding rows that will
				// wait would take CPU from the redirects for nothing.
				var more []claimed
				more, err = w.claim(cctx, clickRowsPerClaim, true)
				batch = append(batch, more...)
				// More may be due: the next click row to start wakes the
				// feed (Run), rather than the next poll.
				w.clicksWaiting.Store(err == nil && len(more) == clickRowsPerClaim)
			}
			cancel()
			if err != nil {
				if ctx.Err() == nil {
					w.opt.Logger.Error("webhooks: claim deliveries", "err", err)
				}
				break
			}
			for _, d := range batch {
				if d.Clicks > 0 {
					w.clickRowsQueued.Add(1)
				}
				queue <- d
			}
			if len(batch) < room {
				break
			}
		}
		timer.Reset(w.opt.PollInterval)
	}
}

// clickRowsPerClaim is how many click batch rows one claim takes.
const clickRowsPerClaim = 2

// claimed is a claimed delivery with its webhook (nil when deleted).
type claimed struct {
	Delivery
	hook *Webhook
}

// claim takes up to n due rows: click batch rows or the others.
func (w *Worker) claim(ctx context.Context, n int, clickRows bool) ([]claimed, error) {
	now := Now()
	kind := "= 0"
	if clickRows {
		kind = "> 0"
	}
	lock := ""
	if w.db.Dialect == "postgres" {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	// status is a literal (StatusPending), not a parameter: only then can
	// the planner use the partial index webhook_deliveries_claim_idx.
	var rows []Delivery
	err := w.db.WithContext(ctx).Raw(`UPDATE webhook_deliveries SET claimed_until = ? WHERE id IN (
		SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND clicks `+kind+`
		AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY next_attempt_at LIMIT ?`+lock+`)
		RETURNING id, event_id, event, webhook_id, workspace_id, body, clicks, test, status, attempts, last_status,
		next_attempt_at, claimed_until, created_at, finished_at`,
		now.Add(w.lease), now, now, n).Scan(&rows).Error
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	hookIDs := make([]string, 0, len(rows))
	for _, r := range rows {
		hookIDs = append(hookIDs, r.WebhookID)
	}
	var hooks []*Webhook
	if err := w.db.WithContext(ctx).Where("id IN ?", hookIDs).Find(&hooks).Error; err != nil {
		return nil, fmt.Errorf("load webhooks: %w", err)
	}
	byID := make(map[string]*Webhook, len(hooks))
	for _, h := range hooks {
		byID[h.ID] = h
	}
	if clickRows {
		if err := w.loadClicks(ctx, rows); err != nil {
			return nil, err
		}
	}
	out := make([]claimed, len(rows))
	for i, r := range rows {
		out[i] = claimed{Delivery: r, hook: byID[r.WebhookID]}
	}
	return out, nil
}

// loadClicks reads the claimed click batch rows' envelopes into Body
// (expandBatch).
func (w *Worker) loadClicks(ctx context.Context, rows []Delivery) error {
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	var bs []ClickBatch
	if err := w.db.WithContext(ctx).Where("delivery_id IN ?", ids).Find(&bs).Error; err != nil {
		return fmt.Errorf("load click batches: %w", err)
	}
	byID := make(map[int64]string, len(bs))
	for _, b := range bs {
		byID[b.DeliveryID] = b.Body
	}
	for i := range rows {
		body, ok := byID[rows[i].ID]
		if !ok { // cannot happen: written in the row's transaction
			w.opt.Logger.Error("webhooks: click batch without its clicks; finished empty", "delivery", rows[i].ID)
		}
		envs, missing, err := expandBatch(ctx, w.db, body)
		if err != nil {
			return fmt.Errorf("click batch %d: %w", rows[i].ID, err)
		}
		if missing > 0 {
			w.opt.Logger.Info("webhooks: clicks erased before their link.clicked delivery are not sent",
				"delivery", rows[i].ID, "clicks", missing)
		}
		rows[i].Body = envs
	}
	return nil
}

// result is one attempt's outcome.
type result struct {
	status   int // 0: no response
	respBody string
	err      error
	reqBody  []byte
	took     time.Duration
}

func (r result) ok() bool { return r.status >= 200 && r.status < 300 }

// attempt makes one HTTP attempt (a click batch: one per click) and hands
// it to the recorder. stop ends a click batch early: the clicks it did not
// reach are recorded as rows of their own, due at once.
func (w *Worker) attempt(ctx, stop context.Context, d claimed, out chan<- outcome) {
	if d.hook == nil { // deleted meanwhile; the cascade removes the row
		return
	}
	// A row whose lease ran out while it waited in the queue may have been
	// claimed again (by another instance, or by this one's next claim):
	// that claim delivers it.
	if d.ClaimedUntil != nil && Now().After(*d.ClaimedUntil) {
		return
	}
	if d.Clicks > 0 {
		out <- w.attemptClicks(ctx, stop, d)
		return
	}
	w.sem <- struct{}{}
	res := w.post(ctx, d.hook, []byte(d.Body))
	<-w.sem
	out <- outcome{d: d, res: res}
}

// part is one click of a batch row.
type part struct {
	env       string
	res       result
	attempted bool
}

// attemptClicks sends a click batch row's envelopes, one request each, up
// to Concurrency at a time (shared with every other delivery through sem).
// While it runs it extends the row's lease. After Concurrency failed
// attempts in a row it stops: the receiver is down, and the clicks not
// reached wait for the first retry's delay in rows of their own.
func (w *Worker) attemptClicks(ctx, stop context.Context, d claimed) outcome {
	w.clickRowsActive.Add(1)
	defer func() {
		if w.clickRowsActive.Add(-1) == 0 && w.clicksWaiting.Load() {
			w.Wake() // paced: the next row is claimed now
		}
	}()
	envs := splitBatch(d.Body)
	parts := make([]part, len(envs))
	for i, e := range envs {
		parts[i].env = e
	}
	renewed := make(chan struct{})
	go w.renew(ctx, d.ID, renewed)
	var next, failedRun atomic.Int64
	var wg sync.WaitGroup
	for range min(w.opt.Concurrency, len(envs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for stop.Err() == nil && failedRun.Load() < int64(w.opt.Concurrency) {
				i := int(next.Add(1) - 1)
				if i >= len(envs) {
					return
				}
				// Stopped while paced: the click is not attempted, and
				// waits in a row of its own like the others not reached.
				if w.opt.Pace.Wait(stop) != nil {
					return
				}
				w.sem <- struct{}{}
				r := w.post(ctx, d.hook, []byte(envs[i]))
				<-w.sem
				parts[i].res, parts[i].attempted = r, true
				if r.ok() {
					failedRun.Store(0)
				} else {
					failedRun.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(renewed)
	return outcome{d: d, parts: parts, backoff: failedRun.Load() >= int64(w.opt.Concurrency)}
}

// renew extends a row's claim every third of the lease until done closes,
// so a long click batch is not claimed again while it is being sent.
func (w *Worker) renew(ctx context.Context, id int64, done <-chan struct{}) {
	t := time.NewTicker(w.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			err := w.db.WithContext(ctx).Model(&Delivery{}).Where("id = ?", id).
				Update("claimed_until", Now().Add(w.lease)).Error
			if err != nil {
				w.opt.Logger.Warn("webhooks: extend a click batch's claim", "delivery", id, "err", err)
			}
		}
	}
}

const maxLoggedResponse = 64 << 10

// post sends body (the envelope) to h in h's receiver format.
func (w *Worker) post(ctx context.Context, h *Webhook, envelope []byte) result {
	body, header, err := Format(h, envelope)
	if err != nil {
		return result{err: err, reqBody: envelope}
	}
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return result{err: fmt.Errorf("build request: %w", err), reqBody: body}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Relink-Webhooks/1.0")
	req.Header.Set("Dub-Signature", Sign(h.Secret, body))
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return result{err: err, reqBody: body, took: time.Since(start)}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxLoggedResponse))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // reuse the connection
	return result{status: resp.StatusCode, respBody: string(b), reqBody: body, took: time.Since(start)}
}

// errorStatus is the status logged for an attempt without a response (§2.7).
const errorStatus = 503

// outcome is an attempt (or a click batch's attempts) waiting to be
// recorded.
type outcome struct {
	d       claimed
	res     result
	parts   []part // a click batch
	backoff bool   // the batch stopped on failures: clicks not reached wait
}

// ok reports whether every attempt succeeded.
func (o *outcome) ok() bool {
	if o.parts == nil {
		return o.res.ok()
	}
	for i := range o.parts {
		if o.parts[i].attempted && !o.parts[i].res.ok() {
			return false
		}
	}
	return true
}

// recordBatch is the most attempts recorded in one transaction.
const recordBatch = 500

// recordRetries is how often the recorder tries a batch whose transaction
// failed again, waiting recordBackoff, then twice as long each time (6.3 s
// in all, well inside the shortest lease, 30 s).
const recordRetries = 6

var recordBackoff = 100 * time.Millisecond

// recorder writes outcomes in batches, one transaction each, so the
// database's cost per delivery stays small at click volume (SQLite has one
// writer). A batch that fails to commit is tried again (recordRetries: a
// busy database, a statement over RELINK_DB_TIMEOUT), because its requests
// were sent: left unrecorded, its rows keep their claims until the lease
// expires and are sent again (at least once, but twice for nothing). What
// still fails is logged and left to the leases.
func (w *Worker) recorder(in <-chan outcome, done chan<- struct{}) {
	defer close(done)
	for first := range in {
		batch := []outcome{first}
	fill:
		for len(batch) < recordBatch {
			select {
			case o, ok := <-in:
				if !ok {
					break fill
				}
				batch = append(batch, o)
			default:
				break fill
			}
		}
		err := w.record(context.Background(), batch)
		for i, wait := 0, recordBackoff; err != nil && i < recordRetries; i, wait = i+1, 2*wait {
			w.opt.Logger.Warn("webhooks: record attempts failed; trying again", "attempts", len(batch), "retry_in", wait, "err", err)
			time.Sleep(wait)
			err = w.record(context.Background(), batch)
		}
		if err != nil {
			w.opt.Logger.Error("webhooks: record attempts; their rows are sent again when their claims expire", "attempts", len(batch), "err", err)
		}
	}
}

func (o *outcome) status() (int, string) {
	if o.res.err == nil {
		return o.res.status, ""
	}
	text := o.res.err.Error()
	if errors.Is(o.res.err, netguard.ErrNotPublic) {
		text += " (RELINK_WEBHOOK_TARGETS=public)"
	}
	return errorStatus, text
}

// record writes a batch's log rows, the deliveries' next states and the
// webhooks' failure bookkeeping (§6.4, §6.5) in one transaction. Successes
// of webhooks with no failure in the batch are written with one UPDATE per
// status code; everything else row by row, in order, so the failure count
// sees attempts in the order they ended.
func (w *Worker) record(ctx context.Context, batch []outcome) error {
	now := Now()
	failing := map[string]bool{}
	for i := range batch {
		if !batch[i].ok() {
			failing[batch[i].d.WebhookID] = true
		}
	}
	var notices []Notice
	err := w.db.Tx(ctx, func(tx *models.DB) error {
		notices = notices[:0]
		logs := make([]Attempt, 0, len(batch))
		okByStatus := map[int][]int64{}
		var okHooks []string
		var counters Stats
		for i := range batch {
			o := &batch[i]
			d := o.d
			if o.parts != nil {
				if err := w.recordClicks(ctx, tx, o, now, &counters, &notices, &logs); err != nil {
					return err
				}
				continue
			}
			if o.res.status == http.StatusGone && d.hook.Receiver == ReceiverZapier {
				counters.Unsubscribed++
				w.opt.Logger.Info("webhooks: zapier answered 410, webhook deleted", "webhook", d.WebhookID)
				if err := tx.WithContext(ctx).Delete(&Webhook{}, "id = ?", d.WebhookID).Error; err != nil {
					return fmt.Errorf("delete unsubscribed webhook: %w", err)
				}
				continue
			}
			status, errText := o.status()
			logs = append(logs, Attempt{DeliveryID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, Event: d.Event,
				MessageID: fmt.Sprintf("msg_%d_%d", d.ID, d.Attempts+1), URL: d.hook.URL, HTTPStatus: status,
				RequestBody: string(o.res.reqBody), ResponseBody: o.res.respBody, Error: errText,
				DurationMS: o.res.took.Milliseconds(), CreatedAt: now})
			if o.res.ok() && !failing[d.WebhookID] {
				counters.Delivered++
				okByStatus[status] = append(okByStatus[status], d.ID)
				okHooks = append(okHooks, d.WebhookID)
				continue
			}
			if err := w.recordOne(ctx, tx, o, status, now, &counters, &notices); err != nil {
				return err
			}
		}
		if err := insertAttempts(ctx, tx, logs); err != nil {
			return fmt.Errorf("log attempts: %w", err)
		}
		for status, idList := range okByStatus {
			if err := tx.WithContext(ctx).Model(&Delivery{}).Where("id IN ?", idList).Updates(map[string]any{
				"status": StatusDelivered, "attempts": gorm.Expr("attempts + 1"), "last_status": status,
				"claimed_until": nil, "finished_at": now}).Error; err != nil {
				return fmt.Errorf("mark delivered: %w", err)
			}
		}
		if len(okHooks) > 0 {
			if err := tx.WithContext(ctx).Model(&Webhook{}).Where("id IN ? AND consecutive_failures > 0", okHooks).
				Updates(map[string]any{"consecutive_failures": 0, "last_failed_at": nil}).Error; err != nil {
				return fmt.Errorf("reset failures: %w", err)
			}
		}
		w.delivered.Add(counters.Delivered)
		w.failed.Add(counters.FailedAttempts)
		w.exhausted.Add(counters.Exhausted)
		w.unsubscribed.Add(counters.Unsubscribed)
		return nil
	})
	if err == nil && w.opt.Notify != nil {
		for _, n := range notices {
			w.opt.Notify(n)
		}
	}
	return err
}

// recordOne writes one attempt's delivery state and bookkeeping.
func (w *Worker) recordOne(ctx context.Context, tx *models.DB, o *outcome, status int, now time.Time, c *Stats, notices *[]Notice) error {
	d := o.d
	up := map[string]any{"attempts": d.Attempts + 1, "last_status": status, "claimed_until": nil}
	if o.res.ok() {
		c.Delivered++
		up["status"], up["finished_at"] = StatusDelivered, now
	} else {
		c.FailedAttempts++
		if d.Attempts+1 > len(w.opt.Schedule) {
			c.Exhausted++
			up["status"], up["finished_at"] = StatusFailed, now
			w.opt.Logger.Warn("webhooks: delivery failed after every retry", "webhook", d.WebhookID,
				"event", d.Event, "eventId", d.EventID, "attempts", d.Attempts+1, "status", status)
		} else {
			up["next_attempt_at"] = now.Add(w.opt.Schedule[d.Attempts])
		}
	}
	if err := tx.WithContext(ctx).Model(&Delivery{}).Where("id = ?", d.ID).Updates(up).Error; err != nil {
		return fmt.Errorf("update delivery: %w", err)
	}
	return w.bookkeep(ctx, tx, d.WebhookID, o.res.ok(), now, notices)
}

// bookkeep counts consecutive failed attempts: a success resets the count,
// the 5th, 10th and 15th failure warn, the 20th and later disable (§6.4).
func (w *Worker) bookkeep(ctx context.Context, tx *models.DB, hookID string, ok bool, now time.Time, notices *[]Notice) error {
	q := tx.WithContext(ctx).Model(&Webhook{}).Where("id = ?", hookID)
	if ok {
		return q.Where("consecutive_failures > 0").
			Updates(map[string]any{"consecutive_failures": 0, "last_failed_at": nil}).Error
	}
	if err := q.Updates(map[string]any{"consecutive_failures": gormExpr("consecutive_failures + 1"),
		"last_failed_at": now}).Error; err != nil {
		return fmt.Errorf("count failure: %w", err)
	}
	var h Webhook
	if err := tx.WithContext(ctx).Where("id = ?", hookID).Take(&h).Error; err != nil {
		return fmt.Errorf("read webhook: %w", err)
	}
	n := h.ConsecutiveFailures
	switch {
	case h.DisabledAt != nil:
	case n == 5 || n == 10 || n == 15:
		w.opt.Logger.Warn("webhooks: webhook is failing to deliver", "webhook", h.ID, "workspace", h.WorkspaceID,
			"consecutiveFailures", n, "disableAt", DisableAt)
		*notices = append(*notices, Notice{Webhook: h, Failures: n})
	case n >= DisableAt:
		w.disabled.Add(1)
		w.opt.Logger.Warn("webhooks: webhook disabled after consecutive failures", "webhook", h.ID,
			"workspace", h.WorkspaceID, "consecutiveFailures", n)
		reason := ReasonFailures
		*notices = append(*notices, Notice{Webhook: h, Failures: n, Disabled: true})
		return tx.WithContext(ctx).Model(&Webhook{}).Where("id = ?", hookID).
			Updates(map[string]any{"disabled_at": now, "disabled_reason": reason}).Error
	}
	return nil
}

// cleanup deletes the delivery log and finished deliveries older than the
// retention.
func (w *Worker) cleanup(ctx context.Context, now time.Time) {
	cut := now.Add(-w.opt.Retention)
	db := w.db.WithContext(ctx)
	a := db.Where("created_at < ?", cut).Delete(&Attempt{})
	dl := db.Where("status <> ? AND finished_at < ?", StatusPending, cut).Delete(&Delivery{})
	if err := errors.Join(a.Error, dl.Error); err != nil {
		w.opt.Logger.Error("webhooks: delete old delivery log", "err", err)
	} else if a.RowsAffected+dl.RowsAffected > 0 {
		w.opt.Logger.Info("webhooks: delivery log trimmed", "attempts", a.RowsAffected, "deliveries", dl.RowsAffected,
			"olderThan", cut)
	}
}

func gormExpr(s string) any { return gorm.Expr(s) }

// recordClicks records a click batch row's attempts: a log row per attempt,
// a row of its own for each click to retry (its first attempt failed) or
// not reached, the failure count in the order of the clicks, and the batch
// row finished (delivered, or split when clicks continue elsewhere).
func (w *Worker) recordClicks(ctx context.Context, tx *models.DB, o *outcome, now time.Time, c *Stats,
	notices *[]Notice, logs *[]Attempt) error {
	d := o.d
	if d.hook.Receiver == ReceiverZapier && slices.ContainsFunc(o.parts, func(p part) bool { return p.res.status == http.StatusGone }) {
		c.Unsubscribed++
		w.opt.Logger.Info("webhooks: zapier answered 410, webhook deleted", "webhook", d.WebhookID)
		if err := tx.WithContext(ctx).Delete(&Webhook{}, "id = ?", d.WebhookID).Error; err != nil {
			return fmt.Errorf("delete unsubscribed webhook: %w", err)
		}
		return nil
	}
	var later []Delivery
	failedAny, resetDone, lastStatus := false, false, 0
	for i := range o.parts {
		p := &o.parts[i]
		row := Delivery{EventID: eventIDOf(p.env), Event: d.Event, WebhookID: d.WebhookID, WorkspaceID: d.WorkspaceID,
			Body: p.env, Status: StatusPending, NextAttemptAt: now, CreatedAt: d.CreatedAt}
		if !p.attempted {
			if o.backoff && len(w.opt.Schedule) > 0 {
				row.NextAttemptAt = now.Add(w.opt.Schedule[0])
			}
			later = append(later, row)
			continue
		}
		po := outcome{d: d, res: p.res}
		status, errText := po.status()
		lastStatus = status
		*logs = append(*logs, Attempt{DeliveryID: d.ID, WebhookID: d.WebhookID, EventID: row.EventID, Event: d.Event,
			MessageID: fmt.Sprintf("msg_%d_%d_%d", d.ID, i+1, d.Attempts+1), URL: d.hook.URL, HTTPStatus: status,
			RequestBody: string(p.res.reqBody), ResponseBody: p.res.respBody, Error: errText,
			DurationMS: p.res.took.Milliseconds(), CreatedAt: now})
		ok := p.res.ok()
		if ok {
			c.Delivered++
		} else {
			failedAny = true
			c.FailedAttempts++
			row.Attempts, row.LastStatus = 1, status
			if len(w.opt.Schedule) == 0 {
				c.Exhausted++
				row.Status, row.FinishedAt = StatusFailed, &now
			} else {
				row.NextAttemptAt = now.Add(w.opt.Schedule[0])
			}
			later = append(later, row)
		}
		// Successes before the first failure reset the count once; from the
		// first failure on, every attempt counts in order.
		if failedAny || !resetDone {
			resetDone = true
			if err := w.bookkeep(ctx, tx, d.WebhookID, ok, now, notices); err != nil {
				return err
			}
		}
	}
	if len(later) > 0 {
		if err := tx.WithContext(ctx).CreateInBatches(later, 100).Error; err != nil {
			return fmt.Errorf("queue the clicks to retry: %w", err)
		}
	}
	status := StatusDelivered
	if len(later) > 0 {
		status = StatusSplit
	}
	if err := tx.WithContext(ctx).Model(&Delivery{}).Where("id = ?", d.ID).Updates(map[string]any{
		"status": status, "attempts": d.Attempts + 1, "last_status": lastStatus, "claimed_until": nil,
		"finished_at": now}).Error; err != nil {
		return fmt.Errorf("finish click batch: %w", err)
	}
	// Every click is logged or has a row of its own now.
	if err := tx.WithContext(ctx).Delete(&ClickBatch{}, "delivery_id = ?", d.ID).Error; err != nil {
		return fmt.Errorf("drop click batch envelopes: %w", err)
	}
	return nil
}
