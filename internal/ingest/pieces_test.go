package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// tooBigStore is the real database that refuses any batch larger than max,
// as PostgreSQL's statement_timeout does a transaction too big to finish in
// time on a contended machine. The first write waits at a gate, so the
// pending batch grows behind it. failAfter, when set, makes every write
// after that many successes fail (the database going away mid-drain).
type tooBigStore struct {
	db        *models.DB
	max       int
	gate      chan struct{}
	once      sync.Once
	mu        sync.Mutex
	sizes     []int // successful writes
	failAfter int
}

// written is how many writes succeeded.
func (s *tooBigStore) written() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sizes)
}

var errTooBig = errors.New("canceling statement due to statement timeout")

func (s *tooBigStore) RecordClicks(ctx context.Context, batch []models.Click, hooks ...models.ClickHook) (int, error) {
	s.once.Do(func() { <-s.gate })
	s.mu.Lock()
	stop := s.failAfter > 0 && len(s.sizes) >= s.failAfter
	s.mu.Unlock()
	if len(batch) > s.max || stop {
		return 0, errTooBig
	}
	n, err := s.db.RecordClicks(ctx, batch, hooks...)
	if err == nil {
		s.mu.Lock()
		s.sizes = append(s.sizes, len(batch))
		s.mu.Unlock()
	}
	return n, err
}

// A batch that fails because it is too big (a statement timeout) is
// retried in pieces half as big after each failure, until they fit: the
// writer does not retry the same batch forever, and everything is written.
func TestTooBigBatchIsWrittenInPieces(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := setup(t, db)
		s := &tooBigStore{db: db, max: 30, gate: make(chan struct{})}
		dir := t.TempDir()
		opt := journalOpts(dir)
		opt.BatchSize, opt.MaxBatch, opt.FlushInterval = 10, 100, time.Hour
		p, err := ingest.Open(s, opt)
		if err != nil {
			t.Fatal(err)
		}
		const n = 350
		for i := range n {
			if !p.Enqueue(f.hit(i)) {
				t.Fatalf("click %d refused", i)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for p.Stats().Pending < 100 { // the first write waits; pending grows to MaxBatch
			if time.Now().After(deadline) {
				t.Fatalf("pending did not grow: %+v", p.Stats())
			}
			time.Sleep(time.Millisecond)
		}
		close(s.gate)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := p.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		st := p.Stats()
		if got := f.count(t); got != n || st.Written != n {
			t.Fatalf("stored %d (written %d), want %d; stats %+v", got, st.Written, n, st)
		}
		if st.WriteErrors == 0 {
			t.Errorf("no write failed: the too-big batch was never tried (%v)", s.sizes)
		}
		for _, sz := range s.sizes {
			if sz > s.max {
				t.Errorf("a write of %d clicks succeeded past the store's limit", sz)
			}
		}
		// Everything written: the journal holds nothing for the next start.
		p2, err := ingest.Open(db, journalOpts(dir))
		if err != nil {
			t.Fatal(err)
		}
		if b := p2.Stats().JournalBacklog; b != 0 {
			t.Errorf("journal backlog after a complete drain: %d", b)
		}
		if err := p2.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// The database goes away while a held batch is half written and the
// shutdown budget runs out: the stop says how many clicks it left in the
// journal, the watermark stayed below the unwritten pieces, and the next
// start writes every one of them (none twice).
func TestShutdownDeadlineLeavesTheRestInTheJournal(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := setup(t, db)
		s := &tooBigStore{db: db, max: 40, gate: make(chan struct{}), failAfter: 2}
		dir := t.TempDir()
		var logs bytes.Buffer
		opt := journalOpts(dir)
		opt.BatchSize, opt.MaxBatch, opt.FlushInterval = 10, 100, time.Hour
		opt.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		p, err := ingest.Open(s, opt)
		if err != nil {
			t.Fatal(err)
		}
		const n = 200
		for i := range n {
			if !p.Enqueue(f.hit(i)) {
				t.Fatalf("click %d refused", i)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for p.Stats().Pending < 100 {
			if time.Now().After(deadline) {
				t.Fatalf("pending did not grow: %+v", p.Stats())
			}
			time.Sleep(time.Millisecond)
		}
		close(s.gate)
		// The store takes two writes and fails every one after, so the
		// stop's deadline leaves the rest whatever the machine's speed. Wait
		// for those two first: under make test's load none had ended within
		// the 500 ms deadline (CI, 2026-11-29).
		for end := time.Now().Add(2 * time.Minute); s.written() < s.failAfter && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_ = p.Drain(ctx)
		written := f.count(t)
		if written == 0 || written == n {
			t.Fatalf("stored %d before the deadline: want some but not all (sizes %v)", written, s.sizes)
		}
		if st := p.Stats(); st.DroppedShutdown != 0 || st.Dropped != 0 {
			t.Errorf("clicks counted lost although journalled: %+v", st)
		}
		m := regexp.MustCompile(`stay in the journal.* clicks=(\d+)`).FindStringSubmatch(logs.String())
		if m == nil {
			t.Fatalf("the stop did not log how many clicks it left in the journal:\n%s", logs.String())
		}
		if left, _ := strconv.Atoi(m[1]); int64(left) < n-written {
			t.Errorf("logged %d clicks left, but %d are unwritten", left, n-written)
		}
		p2, err := ingest.Open(db, journalOpts(dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := p2.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got, lc := f.count(t), f.linkClicks(t); got != n || lc != n {
			t.Fatalf("after the next start: %d rows, link counter %d; want %d", got, lc, n)
		}
	})
}
