// Package ingest is the click pipeline (docs/design.md "The click path"): the
// redirect hands a small copied record to Enqueue, which never blocks and
// never touches the database; one consumer goroutine enriches records (user
// agent, bot check, geo, referer, UTM, de-duplication) and writes them in
// batches through models.RecordClicks, which bumps the links' counters and
// runs the analytics hooks in the same transaction.
//
// Guarantees:
//   - Drain (registered as a shutdown drainer) writes every accepted click
//     before it returns, retrying until its deadline; with the journal, what
//     the deadline leaves stays there (logged with its count) for the next
//     start.
//   - A database outage is retried with exponential backoff. While a batch
//     waits, the consumer stops reading the queue, so the bounded queue (or
//     the journal) is the buffer: nothing is lost until it fills. Each
//     failure halves the next write's size (a batch too big for the
//     statement timeout is retried in pieces).
//   - A click that cannot be kept (queue full, or still unwritten when the
//     shutdown deadline passes) is counted in Stats and logged, never
//     silently dropped.
//
// Full queue: drop, don't block. Enqueue is called on the redirect's hot
// path. Blocking it "briefly" when the queue is full would tie redirect
// latency to database health: during an outage every redirect would wait,
// turning a recording problem into an outage of the redirects themselves,
// and under sustained overload a short wait only delays the same drop. The
// queue is sized for minutes of peak traffic instead (RELINK_CLICK_QUEUE) and
// overflow is counted (relink_clicks_dropped_total on /metrics) and logged
// at most once a second.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/useragent"
	"github.com/relinkhq/relink/models"
)

// Hit is what the redirect copies for one click. Every string must be owned
// by the Hit (Fiber reuses request buffers once the handler returns).
type Hit struct {
	ClickID     string
	LinkID      string
	WorkspaceID string // internal workspace id
	Domain      string
	Key         string
	URL         string // final destination
	Time        time.Time
	IP          string
	UA          string
	Referer     string
	QR          bool // trigger qr (?qr=1)
	// Trigger overrides link/qr: "pageview" for POST /track/visit,
	// "deeplink" for POST /track/open (whose clicks skip bot detection,
	// spec/parity.md §9: apps' user agents).
	Trigger string
	Geo     geo.Hint // from trusted proxy headers only
	Bot     bool     // request-level bot signals (HEAD, ?bot=)

	seq uint64 // journal index (0 without a journal)
}

// TriggerDeeplink marks the clicks of POST /track/open.
const TriggerDeeplink = "deeplink"

// Store writes batches; *models.DB is the real one.
type Store interface {
	RecordClicks(ctx context.Context, batch []models.Click, hooks ...models.ClickHook) (int, error)
}

// Options configure a Pipeline; zero values take the defaults.
type Options struct {
	QueueSize     int           // accepted clicks waiting for the consumer (default 50000)
	BatchSize     int           // clicks per transaction when the writer keeps up (default 1000)
	MaxBatch      int           // clicks per transaction when it falls behind (default 10×BatchSize)
	FlushInterval time.Duration // longest a click waits for a batch to fill (default 1s)
	DedupWindow   time.Duration // repeat clicks by the same visitor on a link within it are skipped (default 1h; <0 disables)
	DedupMax      int           // visitors remembered per window (default 200000)
	// KeepIP says whether a workspace's clicks keep the visitor's IP address
	// (its privacy setting); nil keeps none. The address locates the click
	// either way, and EU visitors' is never kept.
	KeepIP       func(workspaceID string) bool
	MinBackoff   time.Duration // first retry delay after a failed write (default 100ms)
	MaxBackoff   time.Duration // longest retry delay (default 10s)
	WriteTimeout time.Duration // per write attempt (default 30s)
	Now          func() time.Time
	Logger       *slog.Logger
	Geo          *geo.Locator // nil: trusted headers only
	Hooks        []models.ClickHook
	// Journal, when set, puts every accepted click on disk before it waits
	// for the database (journal.go); Open opens it.
	Journal *JournalOptions
	// OnWriteError, when set, is called after each failed write (on the
	// goroutine that wrote), with the error; observability and tests use it.
	OnWriteError func(error)
}

// queueCap is the channel's capacity: QueueSize without a journal; with
// one, the journal is the buffer and the channel only hands clicks from the
// journal's reader to the writer, so it is kept small enough to stay in the
// CPU's cache.
func queueCap(o Options) int {
	if o.Journal != nil {
		return min(o.QueueSize, journalHandoff)
	}
	return o.QueueSize
}

// journalHandoff is the channel's capacity with a journal (queueCap).
const journalHandoff = 4096

func (o *Options) defaults() {
	if o.QueueSize <= 0 {
		o.QueueSize = 50000
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 1000
	}
	if o.MaxBatch < o.BatchSize {
		o.MaxBatch = 10 * o.BatchSize
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = time.Second
	}
	if o.DedupWindow == 0 {
		o.DedupWindow = time.Hour
	}
	if o.DedupMax <= 0 {
		o.DedupMax = 200000
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Stats are the pipeline's counters since start.
type Stats struct {
	Accepted        uint64 `json:"accepted"`         // handed over by redirects
	Dropped         uint64 `json:"dropped"`          // refused: queue full
	DroppedShutdown uint64 `json:"dropped_shutdown"` // still unwritten at the shutdown deadline
	Bots            uint64 `json:"bots"`             // not recorded: bot or crawler
	Deduplicated    uint64 `json:"deduplicated"`     // not recorded: same visitor and link within the window
	Repeated        uint64 `json:"repeated"`         // not recorded: click id already stored
	Written         uint64 `json:"written"`          // rows stored
	Batches         uint64 `json:"batches"`          // successful transactions
	WriteErrors     uint64 `json:"write_errors"`     // failed write attempts (each retried)
	Queued          int    `json:"queued"`           // waiting in the queue now
	Pending         int    `json:"pending"`          // enriched, waiting for a write now

	// The click journal (zero without one).
	JournalBacklog uint64 `json:"journal_backlog"` // clicks in the journal not yet in the database
	JournalBytes   int64  `json:"journal_bytes"`   // size of the journal on disk
	// JournalFull: the journal refuses clicks now; JournalState says why
	// (ReasonJournalMax, ReasonJournalDisk; "" when it accepts them).
	JournalFull  bool   `json:"journal_full"`
	JournalState string `json:"journal_state"`
	// JournalWriteFailures counts failed group writes (each group is kept
	// and written again; none is lost by it).
	JournalWriteFailures uint64 `json:"journal_write_failures"`
	// JournalLost: accepted clicks that reached neither the journal nor the
	// database (a stuck journal at a shutdown whose database was down too).
	JournalLost uint64 `json:"journal_lost"`
	// Refused because the journal could not take them, by reason (also in
	// Dropped): ReasonJournalMax, ReasonJournalDisk.
	JournalRefused map[string]uint64 `json:"journal_refused"`
}

// Pipeline is the click pipeline. Create it with New; stop it with Drain.
type Pipeline struct {
	store Store
	opt   Options
	log   *slog.Logger

	mu     sync.RWMutex // guards closed against sends on the closed queue
	closed bool
	queue  chan Hit

	flushReq chan chan error
	drainc   chan context.Context
	done     chan struct{}
	drainErr error

	accepted, dropped, droppedShutdown, bots, dedup, repeated, written, batches, writeErrors atomic.Uint64
	pending                                                                                  atomic.Int64
	lastDropLog                                                                              atomic.Int64

	// Owned by the consumer goroutine.
	uaCache map[string]useragent.Info
	seen    dedupSet
	lastSeq uint64 // journal index of the last hit taken from the queue

	j         *journal // nil without a journal
	feedStop  chan struct{}
	feedDone  chan struct{}
	feedAbort chan struct{}
	fed       atomic.Uint64
	// refusals by the journal's state (journalMax, journalDisk)
	jRefusedMax, jRefusedDisk atomic.Uint64
	heldAtStop                int // clicks a stuck journal handed to the queue at Drain
}

// New starts a pipeline writing to store, without a journal (Options.Journal
// is ignored: use Open).
func New(store Store, opt Options) *Pipeline {
	opt.Journal = nil
	p, _ := Open(store, opt)
	return p
}

// Open starts a pipeline writing to store, with the click journal when
// opt.Journal is set: what the journal holds from a previous run is
// replayed first.
func Open(store Store, opt Options) (*Pipeline, error) {
	opt.defaults()
	p := &Pipeline{
		store:    store,
		opt:      opt,
		log:      opt.Logger,
		queue:    make(chan Hit, queueCap(opt)),
		flushReq: make(chan chan error),
		drainc:   make(chan context.Context, 1),
		done:     make(chan struct{}),
		uaCache:  map[string]useragent.Info{},
		seen:     newDedupSet(opt.DedupWindow, opt.DedupMax),
	}
	if opt.Journal != nil {
		j, err := openJournal(*opt.Journal, opt.Logger)
		if err != nil {
			return nil, err
		}
		p.j, p.feedStop, p.feedDone, p.feedAbort = j, make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(p.feedDone)
			j.feed(func(h Hit) bool {
				select {
				case p.queue <- h:
					p.fed.Store(h.seq)
					return true
				case <-p.feedAbort:
					return false
				}
			}, p.feedStop)
		}()
	}
	go p.run()
	return p, nil
}

// Enqueue hands a click to the pipeline without blocking. It returns false
// when the click was refused (queue full or pipeline drained); the refusal is
// counted and logged.
func (p *Pipeline) Enqueue(h Hit) bool {
	p.mu.RLock()
	if p.closed {
		p.mu.RUnlock()
		p.refuse("pipeline stopped")
		return false
	}
	if p.j != nil {
		s := p.j.append(&h)
		p.mu.RUnlock()
		switch s {
		case journalOK:
			p.accepted.Add(1)
			return true
		case journalMax:
			p.jRefusedMax.Add(1)
			p.refuse("click journal full (RELINK_CLICK_JOURNAL_MAX)")
		default:
			p.jRefusedDisk.Add(1)
			p.refuse("click journal cannot write (disk full or I/O error; see the journal's error)")
		}
		return false
	}
	select {
	case p.queue <- h:
		p.mu.RUnlock()
		p.accepted.Add(1)
		return true
	default:
		p.mu.RUnlock()
		p.refuse("queue full")
		return false
	}
}

func (p *Pipeline) refuse(why string) {
	n := p.dropped.Add(1)
	now := p.opt.Now().UnixNano()
	last := p.lastDropLog.Load()
	if now-last >= int64(time.Second) && p.lastDropLog.CompareAndSwap(last, now) {
		p.log.Error("click not recorded", "reason", why, "dropped_total", n, "queue_size", p.opt.QueueSize)
	}
}

// Stats returns the counters.
func (p *Pipeline) Stats() Stats {
	st := Stats{
		Accepted: p.accepted.Load(), Dropped: p.dropped.Load(), DroppedShutdown: p.droppedShutdown.Load(),
		Bots: p.bots.Load(), Deduplicated: p.dedup.Load(), Repeated: p.repeated.Load(), Written: p.written.Load(),
		Batches: p.batches.Load(), WriteErrors: p.writeErrors.Load(), Queued: len(p.queue), Pending: int(p.pending.Load()),
	}
	if j := p.j; j != nil {
		if last, c := j.last.Load(), j.committed.Load(); last > c {
			st.JournalBacklog = last - c
		}
		state := j.state.Load()
		st.JournalBytes, st.JournalFull, st.JournalState = j.size.Load(), state != journalOK, stateReason(state)
		st.JournalWriteFailures, st.JournalLost = j.failures.Load(), j.lost.Load()
		st.JournalRefused = map[string]uint64{ReasonJournalMax: p.jRefusedMax.Load(), ReasonJournalDisk: p.jRefusedDisk.Load()}
	}
	return st
}

// Flush writes every click accepted before the call (one attempt per batch)
// and returns the first write error; clicks that failed stay pending and are
// retried. Tests and seeding use it to flush synchronously.
func (p *Pipeline) Flush(ctx context.Context) error {
	if err := p.journalCaughtUp(ctx); err != nil {
		return err
	}
	reply := make(chan error, 1)
	select {
	case p.flushReq <- reply:
	case <-p.done:
		return errors.New("ingest: pipeline stopped")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Drain stops accepting clicks and writes everything accepted, retrying
// failed writes until ctx ends. Clicks still unwritten then are counted in
// DroppedShutdown, logged, and reported in the error. It is the server's
// shutdown drainer; calling it again waits for the first call.
func (p *Pipeline) Drain(ctx context.Context) error {
	p.mu.Lock()
	first := !p.closed
	p.closed = true
	p.mu.Unlock()
	if first && p.j != nil {
		// The last group to the log, then the reader hands over the rest.
		// With the database down the queue does not move: at the deadline
		// the reader stops and the rest stays in the journal (written on
		// the next start, not lost).
		held := p.j.closeWrites()
		close(p.feedStop)
		select {
		case <-p.feedDone:
		case <-ctx.Done():
			close(p.feedAbort)
			<-p.feedDone
		}
		p.handOver(ctx, held)
	}
	if first {
		close(p.queue)
	}
	if first {
		p.drainc <- ctx
	}
	<-p.done
	if first && p.j != nil {
		// What the budget did not cover stays in the journal: say how much.
		if left := p.j.last.Load() - min(p.j.committed.Load(), p.j.last.Load()); left > 0 {
			p.log.Warn("click journal: clicks not written before the shutdown deadline stay in the journal; the next start writes them first",
				"clicks", left, "err", p.drainErr)
		}
		if err := p.j.closeLog(); err != nil {
			return errors.Join(p.drainErr, fmt.Errorf("ingest: close click journal: %w", err))
		}
	}
	return p.drainErr
}

// handOver queues the clicks a stuck journal could not write before the
// stop (a full disk): they go to the database directly; what the shutdown
// deadline leaves of them is counted lost (final).
func (p *Pipeline) handOver(ctx context.Context, held []byte) {
	recs := records(held)
	if len(recs) == 0 {
		return
	}
	p.log.Error("click journal: clicks the journal could not write go to the database directly at this stop", "clicks", len(recs))
	for i, r := range recs {
		h, err := decodeHit(r)
		if err != nil {
			continue
		}
		select {
		case p.queue <- h: // the consumer reads until the queue is closed
			p.heldAtStop++
		case <-ctx.Done():
			p.j.lost.Add(uint64(len(recs) - i))
			p.log.Error("clicks lost at shutdown: the journal could not write them and the deadline passed", "clicks", len(recs)-i)
			return
		}
	}
}

// journalCaughtUp commits the journal's open group and waits until the
// reader has handed every committed click to the queue.
func (p *Pipeline) journalCaughtUp(ctx context.Context) error {
	if p.j == nil {
		return nil
	}
	if err := p.j.sync(ctx); err != nil {
		return err
	}
	target := p.j.last.Load()
	for p.fed.Load() < target && p.j.committed.Load() < target {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// writer is the state of the consumer goroutine (run): the batch being
// filled, the write in flight, and a batch being written in pieces (a
// failed batch waiting for its retry, or one larger than limit). Only run's
// goroutine touches it.
type writer struct {
	p       *Pipeline
	pending []models.Click
	// inflight carries the result of the write in progress; nil when none.
	inflight      chan error
	inflightBatch []models.Click
	inflightHeld  bool // the write in flight is the head of held
	// held is written in pieces of at most limit clicks, in order; after a
	// failure its next piece waits for retry.
	held  []models.Click
	retry <-chan time.Time
	// limit is the most clicks one write carries: MaxBatch, halved after
	// each failed write (a batch too big to finish within the database's
	// statement timeout on a contended machine is retried smaller, instead
	// of failing the same way forever) and doubled after each success.
	limit   int
	backoff time.Duration
	// The journal index each batch covers (bots and repeats included): a
	// committed batch moves the journal's watermark to it; held moves it
	// when its last piece is written.
	inflightUpto, heldUpto uint64
	// spare holds written batches' arrays for newBatch to reuse: a batch
	// grows to MaxBatch while a write is in flight, and growing a fresh
	// array of clicks (about 600 bytes each) every batch cost more CPU than
	// enriching the clicks (bench/README.md, "The cost of a stored click").
	spare [][]models.Click
}

// maxSpare is how many written batches' arrays the writer keeps.
const maxSpare = 2

func (w *writer) newBatch() []models.Click {
	if n := len(w.spare); n > 0 {
		b := w.spare[n-1]
		w.spare = w.spare[:n-1]
		return b
	}
	return make([]models.Click, 0, w.p.opt.BatchSize)
}

// recycle keeps b's array for a later batch; nothing may use b after the
// store returned (RecordClicks and the hooks run synchronously).
func (w *writer) recycle(b []models.Click) {
	if len(w.spare) < maxSpare && cap(b) > 0 {
		clear(b) // drop the strings for the collector
		w.spare = append(w.spare, b[:0])
	}
}

// start writes b, which covers the journal up to upto, in the background;
// the result arrives on w.inflight. A batch over limit is held and written
// in pieces.
func (w *writer) start(b []models.Click, upto uint64) {
	if len(b) > w.limit {
		w.held, w.heldUpto = b, upto
		w.startHeld()
		return
	}
	w.launch(b, upto, false)
}

// startHeld writes the next piece of held.
func (w *writer) startHeld() {
	w.retry = nil
	w.launch(w.held[:min(len(w.held), w.limit)], 0, true)
}

func (w *writer) launch(b []models.Click, upto uint64, held bool) {
	w.inflightBatch, w.inflight, w.inflightUpto, w.inflightHeld = b, make(chan error, 1), upto, held
	go func(ch chan<- error) {
		ctx, cancel := context.WithTimeout(context.Background(), w.p.opt.WriteTimeout)
		defer cancel()
		ch <- w.p.write(ctx, b)
	}(w.inflight)
}

// finished takes the result of the write in flight: a success moves the
// watermark (or starts held's next piece), a failure holds the batch for a
// retry in smaller pieces after a backoff.
func (w *writer) finished(err error) error {
	p, b, wasHeld := w.p, w.inflightBatch, w.inflightHeld
	w.inflight, w.inflightBatch, w.inflightHeld = nil, nil, false
	if err == nil {
		p.pending.Add(-int64(len(b)))
		w.backoff = 0
		w.limit = min(2*w.limit, p.opt.MaxBatch)
		if !wasHeld {
			p.markCommitted(w.inflightUpto)
			w.recycle(b)
			return nil
		}
		if w.held = w.held[len(b):]; len(w.held) == 0 {
			w.held = nil
			p.markCommitted(w.heldUpto)
			return nil
		}
		w.startHeld()
		return nil
	}
	if !wasHeld {
		w.held, w.heldUpto = b, w.inflightUpto
	}
	w.limit = max(w.limit/2, 1)
	w.backoff = min(max(2*w.backoff, p.opt.MinBackoff), p.opt.MaxBackoff)
	w.retry = time.After(w.backoff)
	p.log.Error("writing clicks failed; retrying", "clicks", len(b), "waiting", len(w.held), "retry_in", w.backoff,
		"next_write_at_most", w.limit, "queued", len(p.queue), "queue_size", p.opt.QueueSize, "err", err)
	return err
}

func (w *writer) idle() bool { return w.inflight == nil && w.held == nil }

// startFull writes the pending batch when it is full and nothing else is
// being written.
func (w *writer) startFull() {
	if len(w.pending) >= w.p.opt.BatchSize && w.idle() {
		w.start(w.pending, w.p.lastSeq)
		w.pending = w.newBatch()
	}
}

// settle writes until nothing is in flight or held, one attempt per piece
// (Flush): the first error is returned and the rest stays held.
func (w *writer) settle() error {
	for w.inflight != nil || w.held != nil {
		if w.inflight == nil {
			w.startHeld() // a held batch waiting for its retry: now
		}
		if err := w.finished(<-w.inflight); err != nil {
			return err
		}
	}
	return nil
}

// takeQueued moves up to n queued clicks into pending without waiting;
// closed reports the queue was closed (Drain).
func (w *writer) takeQueued(n int) (closed bool) {
	p := w.p
	// Up to BatchSize when the writer is free (start it soon); up to
	// MaxBatch while it is busy.
	limit := p.opt.MaxBatch
	if w.idle() {
		limit = p.opt.BatchSize
	}
	for ; n > 0 && len(w.pending) < limit; n-- {
		select {
		case h, ok := <-p.queue:
			if !ok {
				return true
			}
			w.pending = p.add(w.pending, h)
		default:
			return false
		}
	}
	return false
}

// drain finishes the write in flight (and held's pieces) and writes the
// rest (Drain), within ctx.
func (w *writer) drain(ctx context.Context) {
	for w.inflight != nil {
		select {
		case err := <-w.inflight:
			_ = w.finished(err) // logged; a failed piece stays held
		case <-ctx.Done():
			// The budget is spent with a write in flight: it may still
			// commit, but it is not known to, so its clicks join the rest
			// (left in the journal, or counted lost without one).
			if !w.inflightHeld {
				w.held = w.inflightBatch
			}
			w.inflight, w.inflightBatch = nil, nil
		}
	}
	rest := append(w.held, w.pending...)
	w.held, w.pending = nil, nil
	w.final(ctx, rest)
}

// tick writes what is pending at the flush interval.
func (w *writer) tick() {
	switch {
	case len(w.pending) > 0 && w.idle():
		w.start(w.pending, w.p.lastSeq)
		w.pending = w.newBatch()
	case len(w.pending) == 0 && w.idle():
		w.p.markCommitted(w.p.lastSeq) // only bots and repeats since the last batch
	}
}

// flush writes everything accepted before the call: the write in flight, a
// held batch, pending, and what is queued now (Flush).
func (w *writer) flush() error {
	if err := w.settle(); err != nil {
		return err
	}
	n := len(w.p.queue) // only what was accepted before the call
	for {
		before := len(w.pending)
		closed := w.takeQueued(n)
		n -= len(w.pending) - before
		if len(w.pending) == 0 {
			return nil
		}
		b := w.pending
		w.pending = w.newBatch()
		w.start(b, w.p.lastSeq)
		if err := w.settle(); err != nil {
			return err
		}
		if closed || n <= 0 {
			return nil
		}
	}
}

// run is the consumer. It enriches clicks into the pending batch while the
// previous batch is being written (one write in flight, on its own
// goroutine), so enrichment and the database overlap. A batch is written
// when it reaches BatchSize (or at the flush interval); while a write is in
// flight the pending batch keeps growing up to MaxBatch, so when the
// writer falls behind it writes fewer, larger transactions (group commit:
// the per-transaction costs, the commit, the counter and aggregate upserts,
// are shared by more clicks) instead of falling further behind. A failed
// batch is retried with backoff, in pieces half as big after each failure;
// while it waits, and while a MaxBatch pending batch waits for the write in
// flight, the queue is not read: the queue (or the journal) is the buffer.
func (p *Pipeline) run() {
	defer close(p.done)
	w := &writer{p: p, limit: p.opt.MaxBatch}
	w.pending = w.newBatch()
	ticker := time.NewTicker(p.opt.FlushInterval)
	defer ticker.Stop()
	for {
		in := p.queue
		if w.held != nil || len(w.pending) >= p.opt.MaxBatch {
			in = nil
		}
		select {
		case h, ok := <-in:
			if !ok {
				w.drain(<-p.drainc)
				return
			}
			w.pending = p.add(w.pending, h)
			if w.takeQueued(p.opt.MaxBatch) {
				w.drain(<-p.drainc)
				return
			}
			w.startFull()
		case err := <-w.inflight:
			_ = w.finished(err) // logged and retried
			w.startFull()
		case <-ticker.C:
			w.tick()
		case <-w.retry:
			w.startHeld()
		case reply := <-p.flushReq:
			reply <- w.flush()
		case ctx := <-p.drainc:
			w.drain(ctx)
			return
		}
	}
}

// final writes rest and everything left in the (closed) queue in pieces of
// at most limit, halving the piece after each failure and retrying with
// backoff until ctx ends (the shutdown budget). What is still unwritten
// then stays in the journal for the next start (logged with its count), or
// without a journal is counted lost.
func (w *writer) final(ctx context.Context, rest []models.Click) {
	p := w.p
	for h := range p.queue {
		rest = p.add(rest, h)
	}
	p.pending.Store(int64(len(rest)))
	backoff := p.opt.MinBackoff
	for len(rest) > 0 {
		n := min(len(rest), w.limit)
		wctx, cancel := context.WithTimeout(ctx, p.opt.WriteTimeout)
		err := p.write(wctx, rest[:n])
		cancel()
		if err == nil {
			rest = rest[n:]
			p.pending.Store(int64(len(rest)))
			w.limit = min(2*w.limit, p.opt.MaxBatch)
			continue
		}
		w.limit = max(w.limit/2, 1)
		p.log.Error("writing clicks at shutdown failed; retrying", "clicks", len(rest), "next_write_at_most", w.limit,
			"retry_in", backoff, "err", err)
		select {
		case <-ctx.Done():
			p.pending.Store(0)
			if p.j != nil {
				// Not lost: they stay in the journal (Drain logs how many)
				// and are written on the next start; except what a stuck
				// journal handed over (handOver), which is in none.
				if held := uint64(min(p.heldAtStop, len(rest))); held > 0 {
					p.j.lost.Add(held)
					p.log.Error("clicks lost at shutdown: the journal could not write them and the database did not take them", "clicks", held, "err", err)
				}
				return
			}
			lost := uint64(len(rest))
			p.droppedShutdown.Add(lost)
			p.drainErr = fmt.Errorf("ingest: %d clicks not written before the shutdown deadline: %w", lost, err)
			p.log.Error("clicks lost at shutdown", "clicks", lost, "err", err)
			return
		case <-time.After(backoff):
			backoff = min(2*backoff, p.opt.MaxBackoff)
		}
	}
	p.markCommitted(p.lastSeq)
}

func (p *Pipeline) write(ctx context.Context, batch []models.Click) error {
	n, err := p.store.RecordClicks(ctx, batch, p.opt.Hooks...)
	if err != nil {
		p.writeErrors.Add(1)
		if p.opt.OnWriteError != nil {
			p.opt.OnWriteError(err)
		}
		return err
	}
	p.batches.Add(1)
	p.written.Add(uint64(n))
	p.repeated.Add(uint64(len(batch) - n))
	return nil
}

// markCommitted moves the journal's watermark: every click up to journal
// index upto is in the database (or was a bot or a repeat).
func (p *Pipeline) markCommitted(upto uint64) {
	if p.j != nil && upto > p.j.committed.Load() {
		p.j.committed.Store(upto)
	}
}

// add enriches h and appends it, unless it is a bot or a repeat.
func (p *Pipeline) add(batch []models.Click, h Hit) []models.Click {
	if h.seq > p.lastSeq {
		p.lastSeq = h.seq
	}
	// Headers are the visitor's bytes: a NUL or invalid UTF-8 in the user
	// agent or referer would make PostgreSQL refuse the whole batch.
	h.UA, h.Referer, h.IP = cleanText(h.UA), cleanText(h.Referer), cleanText(h.IP)
	ua, ok := p.uaCache[h.UA]
	if !ok {
		ua = useragent.Parse(h.UA)
		if len(p.uaCache) >= 4096 {
			clear(p.uaCache)
		}
		p.uaCache[h.UA] = ua
	}
	if (h.Bot || ua.Bot) && h.Trigger != TriggerDeeplink {
		p.bots.Add(1)
		return batch
	}
	identity := IdentityHash(h.IP, h.UA)
	if p.opt.DedupWindow > 0 && p.seen.seen(p.seen.key(identity, h.Domain, h.Key), h.Time) {
		p.dedup.Add(1)
		return batch
	}
	loc := p.opt.Geo.Locate(h.IP, h.Geo)
	c := models.Click{
		// Microseconds: PostgreSQL's precision, so both dialects store the same.
		ClickID: h.ClickID, Timestamp: h.Time.UTC().Truncate(time.Microsecond), WorkspaceID: h.WorkspaceID, LinkID: h.LinkID,
		Domain: h.Domain, Key: h.Key, URL: h.URL, IdentityHash: identity, IP: h.IP,
		Continent: loc.Continent, Country: loc.Country, Region: loc.Region, City: loc.City,
		Latitude: loc.Latitude, Longitude: loc.Longitude,
		Device: ua.Device, DeviceVendor: ua.DeviceVendor, DeviceModel: ua.DeviceModel,
		Browser: ua.Browser, BrowserVersion: ua.BrowserVersion, Engine: ua.Engine, EngineVersion: ua.EngineVersion,
		OS: ua.OS, OSVersion: ua.OSVersion, CPUArchitecture: ua.CPU, UA: h.UA,
		QR: h.QR, Trigger: "link", Referer: "(direct)", RefererURL: "(direct)",
	}
	if geo.InEU(loc.Country) || p.opt.KeepIP == nil || !p.opt.KeepIP(h.WorkspaceID) {
		c.IP = ""
	}
	if c.UA == "" {
		c.UA = useragent.Unknown
	}
	if h.QR {
		c.Trigger = "qr"
	}
	if h.Trigger != "" {
		c.Trigger = h.Trigger
	}
	if h.Referer != "" {
		c.RefererURL = h.Referer
		if u, err := url.Parse(h.Referer); err == nil && u.Hostname() != "" {
			c.Referer = strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
		} else {
			c.Referer = "(direct)"
		}
	}
	if i := strings.IndexByte(h.URL, '?'); i >= 0 {
		q := h.URL[i+1:]
		if j := strings.IndexByte(q, '#'); j >= 0 {
			q = q[:j]
		}
		if v, err := url.ParseQuery(q); err == nil || len(v) > 0 {
			c.UTMSource, c.UTMMedium, c.UTMCampaign = v.Get("utm_source"), v.Get("utm_medium"), v.Get("utm_campaign")
			c.UTMTerm, c.UTMContent = v.Get("utm_term"), v.Get("utm_content")
		}
	}
	p.pending.Add(1)
	if len(batch) == cap(batch) {
		// A batch outgrows BatchSize only while a write is in flight, and
		// then it keeps growing towards MaxBatch: one allocation of that
		// size (kept by recycle for later batches) instead of append's
		// doublings, each a copy of every click so far.
		batch = slices.Grow(batch, max(p.opt.MaxBatch-len(batch), 1))
	}
	return append(batch, c)
}

// cleanText drops NUL bytes and replaces invalid UTF-8, which no text column
// on PostgreSQL accepts; valid text is returned as is without allocating.
func cleanText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// IdentityHash is spec/links.md §10.4's visitor identity: sha256 hex of "ip-ua".
func IdentityHash(ip, ua string) string {
	sum := sha256.Sum256([]byte(ip + "-" + ua))
	return hex.EncodeToString(sum[:])
}

// dedupSet remembers visitor+link keys for a window, in two generations so
// memory stays bounded: a key is a repeat if it was seen less than window
// ago. When a generation exceeds max keys it is rotated early (the oldest
// memories are forgotten first, so a repeat may then be counted again).
//
// A key is kept as 128 bits of two independently seeded maphash sums of
// the visitor, domain and key, and its time as Unix nanoseconds: the maps
// hold no pointers, so the garbage collector does not walk them (up to
// max entries, rebuilt every window), and no key string is built per
// click. Two different keys collide (and a click is taken for a repeat)
// with odds of about max²/2¹²⁹: under 10⁻²⁶ at a million keys. The seeds
// are the process's own, so the sums cannot be steered from outside.
type dedupSet struct {
	window    time.Duration
	max       int
	seeds     [2]maphash.Seed
	cur, prev map[dedupKey]int64
	curStart  time.Time
}

type dedupKey [2]uint64

func newDedupSet(window time.Duration, max int) dedupSet {
	return dedupSet{window: window, max: max, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
}

// key is the visitor's key for a link: identity, domain and the key
// lower-cased, each ended by a NUL.
func (d *dedupSet) key(identity, domain, key string) dedupKey {
	key = strings.ToLower(key)
	var k dedupKey
	for i := range k {
		var h maphash.Hash
		h.SetSeed(d.seeds[i])
		h.WriteString(identity)
		h.WriteByte(0)
		h.WriteString(domain)
		h.WriteByte(0)
		h.WriteString(key)
		k[i] = h.Sum64()
	}
	return k
}

func (d *dedupSet) seen(key dedupKey, at time.Time) bool {
	if d.cur == nil || at.Sub(d.curStart) >= d.window || len(d.cur) >= d.max {
		d.prev, d.cur, d.curStart = d.cur, make(map[dedupKey]int64), at
	}
	ns := at.UnixNano()
	for _, m := range []map[dedupKey]int64{d.cur, d.prev} {
		if t, ok := m[key]; ok && ns-t < int64(d.window) && ns >= t {
			return true
		}
	}
	d.cur[key] = ns
	return false
}
