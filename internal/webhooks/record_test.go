package webhooks

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
)

// TestRecordRetried: when the transaction recording a sent request fails
// (the database is locked by another writer past RELINK_DB_TIMEOUT), the
// recorder tries again instead of leaving the row to its lease, so the
// event is marked delivered as soon as the database is free and is sent
// once, not again when its claim expires.
func TestRecordRetried(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ctx := context.Background()
	ws := workspace(t, db, "business")
	r := newReceiver(t)
	r.secret = hook(t, db, ws, r.srv.URL, LinkCreated).Secret

	// The first request takes SQLite's write lock on another connection
	// and keeps it for 3 s: the worker's record transaction, bounded by
	// 6 × 250 ms (models.TxTimeoutFactor), fails at least once meanwhile,
	// and a retry records it. (Bounded by 6 × 20 ms, every attempt, retries
	// included, failed on a loaded machine, where a lone transaction took
	// longer than that, and the lease's expiry sent the event again: CI,
	// 2026-11-29.)
	var locker *sql.Conn
	released := make(chan struct{})
	r.answer = func(n int) int {
		if n == 1 {
			c, err := db.SQL().Conn(ctx)
			if err != nil {
				t.Error(err)
				return 200
			}
			if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
				t.Error(err)
			}
			locker = c
			go func() {
				time.Sleep(3 * time.Second)
				_, _ = locker.ExecContext(ctx, "ROLLBACK")
				_ = locker.Close()
				close(released)
			}()
		}
		return 200
	}
	short := *db
	short.Timeout = 250 * time.Millisecond
	o := fastOpts()
	start(t, &short, o)
	emit(t, db, ws, 1)
	select {
	case <-released:
	case <-time.After(30 * time.Second):
		t.Fatal("the event was not sent")
	}
	// The lease is 5 × 2 s + 30 s: without a retry the row would stay
	// pending for 40 s.
	waitFor(t, "the delivery recorded", func() bool { return pending(t, db) == 0 })
	var d Delivery
	if err := db.First(&d).Error; err != nil {
		t.Fatal(err)
	}
	if d.Status != StatusDelivered || d.FinishedAt == nil {
		t.Fatalf("delivery %+v, want delivered", d)
	}
	time.Sleep(200 * time.Millisecond)
	if distinct, total, bad := r.counts(); distinct != 1 || total != 1 || bad != 0 {
		t.Fatalf("distinct %d total %d bad %d; want the event once", distinct, total, bad)
	}
}
