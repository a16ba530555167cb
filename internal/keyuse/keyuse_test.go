package keyuse_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/keyuse"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func lastUsed(t *testing.T, db *models.DB, wsID, id string) *time.Time {
	t.Helper()
	ks, err := db.ListAPIKeys(context.Background(), wsID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		if k.ID == id {
			return k.LastUsedAt
		}
	}
	t.Fatalf("key %s not listed", id)
	return nil
}

// TestTouchWritesAtMostOncePerInterval: uses are noted in memory, written
// by Flush, and a key used again within a minute is not queued again.
func TestTouchWritesAtMostOncePerInterval(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Acme", Slug: "acme", Plan: models.PlanPro})
		if err != nil {
			t.Fatal(err)
		}
		ws := c.Workspace
		k, _, err := db.CreateAPIKey(ctx, ws.ID, "CI", nil)
		if err != nil {
			t.Fatal(err)
		}
		other, _, err := db.CreateAPIKey(ctx, ws.ID, "other", nil)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2030, 5, 1, 12, 0, 0, 0, time.UTC)
		clk := &clock{t: t0}
		r := keyuse.New(db, clk.now, slog.New(slog.NewTextHandler(io.Discard, nil)))

		r.Touch(k.ID)
		if lastUsed(t, db, ws.ID, k.ID) != nil {
			t.Fatal("Touch wrote to the database on the request path")
		}
		clk.add(30 * time.Second)
		r.Touch(k.ID) // within the interval: nothing new
		if n := r.Pending(); n != 1 {
			t.Fatalf("pending = %d after two uses of one key, want 1", n)
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got := lastUsed(t, db, ws.ID, k.ID); got == nil || !got.Equal(t0) {
			t.Fatalf("last used = %v, want %v", got, t0)
		}
		if got := lastUsed(t, db, ws.ID, other.ID); got != nil {
			t.Fatalf("an unused key got last used %v", got)
		}

		clk.add(29 * time.Second) // 59 s after the written use
		r.Touch(k.ID)
		if n := r.Pending(); n != 0 {
			t.Fatalf("a use 59 s after the last write was queued (pending %d)", n)
		}
		clk.add(2 * time.Second)
		r.Touch(k.ID)
		r.Touch(other.ID)
		if n := r.Pending(); n != 2 {
			t.Fatalf("pending = %d, want 2", n)
		}
		if err := r.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := lastUsed(t, db, ws.ID, k.ID), t0.Add(61*time.Second); got == nil || !got.Equal(want) {
			t.Fatalf("last used = %v, want %v", got, want)
		}
		if got := lastUsed(t, db, ws.ID, other.ID); got == nil {
			t.Fatal("the other key's use was not written")
		}
	})
}

// TestRunWritesInTheBackground: the job's loop writes a noted use without
// anyone calling Flush.
func TestRunWritesInTheBackground(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Acme", Slug: "acme", Plan: models.PlanPro})
		if err != nil {
			t.Fatal(err)
		}
		k, _, err := db.CreateAPIKey(ctx, c.Workspace.ID, "CI", nil)
		if err != nil {
			t.Fatal(err)
		}
		r := keyuse.New(db, time.Now, slog.New(slog.NewTextHandler(io.Discard, nil)))
		done := make(chan struct{})
		go func() { r.Run(ctx); close(done) }()
		r.Touch(k.ID)
		for i := 0; lastUsed(t, db, c.Workspace.ID, k.ID) == nil; i++ {
			if i > 500 {
				t.Fatal("the loop never wrote the use")
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		<-done
	})
}

// TestTouchAPIKeyNeverGoesBack: an older use written late does not replace
// a newer one.
func TestTouchAPIKeyNeverGoesBack(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Acme", Slug: "acme", Plan: models.PlanPro})
		if err != nil {
			t.Fatal(err)
		}
		k, _, err := db.CreateAPIKey(ctx, c.Workspace.ID, "CI", nil)
		if err != nil {
			t.Fatal(err)
		}
		newer := time.Date(2030, 5, 1, 12, 5, 0, 0, time.UTC)
		if err := db.TouchAPIKey(ctx, k.ID, newer); err != nil {
			t.Fatal(err)
		}
		if err := db.TouchAPIKey(ctx, k.ID, newer.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got := lastUsed(t, db, c.Workspace.ID, k.ID); got == nil || !got.Equal(newer) {
			t.Fatalf("last used = %v, want %v", got, newer)
		}
	})
}
