package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func journalOpts(dir string) ingest.Options {
	return ingest.Options{BatchSize: 50, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
		Journal: &ingest.JournalOptions{Dir: dir, MaxBytes: 1 << 30, Window: 2 * time.Millisecond, FsyncCommit: true}}
}

// A database outage longer than the memory queue: the journal keeps every
// click on disk (the queue holds 10), the process stops with the database
// still down (nothing is counted lost: the clicks stay in the journal), and
// the next start replays them all, exactly once.
func TestJournalOutageRestartReplay(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		f := setup(t, db)
		dir := t.TempDir()
		opt := journalOpts(dir)
		opt.QueueSize = 10
		p, err := ingest.Open(db, opt)
		if err != nil {
			t.Fatal(err)
		}
		restore := breakTable(t, db)
		const n = 1000
		for i := range n {
			if !p.Enqueue(f.hit(i)) {
				t.Fatalf("click %d refused during the outage", i)
			}
		}
		deadline, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		_ = p.Drain(deadline) // the database is still down
		if st := p.Stats(); st.DroppedShutdown != 0 || st.Dropped != 0 {
			t.Fatalf("clicks counted lost although journalled: %+v", st)
		}
		restore()
		p2, err := ingest.Open(db, journalOpts(dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := p2.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := p2.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		if got, lc := f.count(t), f.linkClicks(t); got != n || lc != n {
			t.Fatalf("after replay: %d rows, link counter %d; want %d", got, lc, n)
		}
	})
}

// With a journal the click channel only hands clicks from the journal to
// the writer (RELINK_CLICK_QUEUE is not its size): during an outage it
// holds at most JournalHandoff clicks however large QueueSize is (a channel
// of QueueSize clicks was a ring of hundreds of MB that every click was
// copied through, out of the CPU's cache), every click is still accepted,
// and all are written once the database is back.
func TestJournalHandoffBounded(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ctx := context.Background()
	f := setup(t, db)
	opt := journalOpts(t.TempDir())
	opt.QueueSize = 100000
	p, err := ingest.Open(db, opt)
	if err != nil {
		t.Fatal(err)
	}
	restore := breakTable(t, db)
	n := 2*ingest.JournalHandoff + 1000
	for i := range n {
		if !p.Enqueue(f.hit(i)) {
			t.Fatalf("click %d refused during the outage", i)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		q := p.Stats().Queued
		if q > ingest.JournalHandoff {
			t.Fatalf("%d clicks in the channel, want at most %d", q, ingest.JournalHandoff)
		}
		if q == ingest.JournalHandoff {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the channel never filled: %d clicks in it", q)
		}
		time.Sleep(time.Millisecond)
	}
	restore()
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.count(t); got != int64(n) {
		t.Fatalf("%d clicks stored, want %d", got, n)
	}
}

// A crash after the clicks were written but before the journal was trimmed:
// the replay finds them in the database (click id) and counts none twice,
// rows, link counter and aggregates alike.
func TestJournalReplayIsIdempotent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		f := setup(t, db)
		dir := t.TempDir()
		opt := journalOpts(dir)
		opt.Hooks = []models.ClickHook{models.AggregateClicks}
		p, err := ingest.Open(db, opt)
		if err != nil {
			t.Fatal(err)
		}
		const n = 300
		for i := range n {
			p.Enqueue(f.hit(i))
		}
		if err := p.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		// What a SIGKILL before the next trim leaves on disk.
		snapshot := t.TempDir()
		copyDir(t, dir, snapshot)
		if err := p.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		p2, err := ingest.Open(db, ingest.Options{BatchSize: 50, Hooks: opt.Hooks,
			Journal: &ingest.JournalOptions{Dir: snapshot, MaxBytes: 1 << 30}})
		if err != nil {
			t.Fatal(err)
		}
		if err := p2.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		// The once-a-second trim may have dropped a first batch before the
		// snapshot; whatever the snapshot holds is replayed as repeats.
		if st := p2.Stats(); st.Repeated == 0 || st.Repeated > n || st.Written != 0 {
			t.Fatalf("replay stats %+v: want up to %d repeats, 0 written", st, n)
		}
		if got, lc := f.count(t), f.linkClicks(t); got != n || lc != n {
			t.Fatalf("after a replay of written clicks: %d rows, link counter %d; want %d", got, lc, n)
		}
		var total int64
		if err := db.Raw("SELECT COALESCE(SUM(count),0) FROM event_aggregates WHERE workspace_id = ? AND dim = 'total'", f.ws.ID).Scan(&total).Error; err != nil {
			t.Fatal(err)
		}
		if total != n {
			t.Fatalf("aggregate total %d, want %d", total, n)
		}
	})
}

// Past RELINK_CLICK_JOURNAL_MAX clicks are refused and counted.
func TestJournalFullRefuses(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	f := setup(t, db)
	opt := journalOpts(t.TempDir())
	opt.Journal.MaxBytes = 64 << 10
	p, err := ingest.Open(db, opt)
	if err != nil {
		t.Fatal(err)
	}
	restore := breakTable(t, db)
	refused := 0
	for i := range 5000 {
		if !p.Enqueue(f.hit(i)) {
			refused++
		}
		if i%100 == 0 {
			time.Sleep(3 * time.Millisecond) // let group commits measure the size
		}
	}
	st := p.Stats()
	if refused == 0 || st.JournalRefused[ingest.ReasonJournalMax] != uint64(refused) || st.Dropped != uint64(refused) || !st.JournalFull ||
		st.JournalState != ingest.ReasonJournalMax {
		t.Fatalf("refused %d; stats %+v", refused, st)
	}
	restore()
	if err := p.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.count(t); got != int64(5000-refused) {
		t.Fatalf("stored %d, want the %d accepted", got, 5000-refused)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// Two processes on one data directory would replay and trim each other's
// clicks: the second pipeline on a journal directory in use is refused with
// a message naming the directory and RELINK_DATA_DIR; once the first has
// drained, the directory opens again.
func TestJournalDirectoryIsExclusive(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ctx := context.Background()
	setup(t, db)
	dir := t.TempDir()
	p, err := ingest.Open(db, journalOpts(dir))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ingest.Open(db, journalOpts(dir))
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "RELINK_DATA_DIR") ||
		!strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Fatalf("second pipeline on %s: err %v, want a refusal naming the directory, its owner's pid and RELINK_DATA_DIR", dir, err)
	}
	if err := p.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	p2, err := ingest.Open(db, journalOpts(dir))
	if err != nil {
		t.Fatalf("after the first pipeline drained: %v", err)
	}
	if err := p2.Drain(ctx); err != nil {
		t.Fatal(err)
	}
}
