// Package keyuse records when each API key was last used (the console's API
// keys page shows it). The API's key gate calls Touch on every authenticated
// request; Touch only notes the use in memory, at most once per key per
// Interval, and the "api key use" job writes the noted uses in the
// background, so a request never waits on the database for it. Between
// two writes a key's recorded time lags its real last use by under Interval.
package keyuse

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/relinkhq/relink/models"
)

// Interval is the most often one key's last use is written.
const Interval = time.Minute

// Recorder notes API key uses and writes them (Run, Flush).
type Recorder struct {
	db  *models.DB
	now func() time.Time
	log *slog.Logger

	mu      sync.Mutex
	noted   map[string]time.Time // key id → the use last queued for writing
	pending map[string]time.Time // key id → use not yet written
	wake    chan struct{}
}

// New returns a recorder writing to db.
func New(db *models.DB, now func() time.Time, log *slog.Logger) *Recorder {
	return &Recorder{db: db, now: now, log: log, noted: map[string]time.Time{}, pending: map[string]time.Time{},
		wake: make(chan struct{}, 1)}
}

// Touch notes that the key was used now. It never blocks on I/O: the write
// happens in Run (or Flush), and only when the key's last noted use is
// Interval old or older.
func (r *Recorder) Touch(keyID string) {
	now := r.now()
	r.mu.Lock()
	if t, ok := r.noted[keyID]; ok && now.Sub(t) < Interval {
		r.mu.Unlock()
		return
	}
	r.noted[keyID] = now
	r.pending[keyID] = now
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default: // a write is already due
	}
}

// Pending is the number of uses noted and not yet written.
func (r *Recorder) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// Run writes noted uses as they come until ctx ends.
func (r *Recorder) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
			if err := r.Flush(ctx); err != nil && ctx.Err() == nil {
				r.log.Warn("api key last-used not written; retried with the next use", "err", err)
			}
		}
	}
}

// Flush writes every noted use now (the job's drain at shutdown). A use
// whose write fails is forgotten, so the key's next use is noted again.
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	batch := r.pending
	r.pending = map[string]time.Time{}
	now := r.now()
	for id, t := range r.noted { // keep the map as small as the keys in use
		if now.Sub(t) >= Interval {
			delete(r.noted, id)
		}
	}
	r.mu.Unlock()
	var errs []error
	for id, at := range batch {
		if err := r.db.TouchAPIKey(ctx, id, at); err != nil {
			errs = append(errs, err)
			r.mu.Lock()
			if r.noted[id].Equal(at) {
				delete(r.noted, id)
			}
			r.mu.Unlock()
		}
	}
	return errors.Join(errs...)
}
