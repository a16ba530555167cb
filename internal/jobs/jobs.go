// Package jobs is the table of background work a Relink process runs next to
// its HTTP server: the click pipeline's flush at shutdown, the hourly
// commission schedule, and whatever a feature adds (webhook delivery, journal
// replay, retention). Its model is goatcounter's cron.Tasks: a named list,
// each entry saying what runs, how often, and what finishing means.
//
// A Table is filled once by the composition root (internal/app) and run by
// the server: Start when it begins serving, Shutdown after the listeners
// have stopped and in-flight requests have finished.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Job is one entry of the table. Every hook is optional; a job has at least
// one of Run (with Every), Loop and Drain.
type Job struct {
	// Name appears in logs and shutdown errors ("drain clicks: …").
	Name string

	// Every and Run: periodic work. Run is called once at Start and then
	// every Every until the job stops. Its error is logged; the next period
	// runs regardless. ctx ends when the job stops.
	Every time.Duration
	Run   func(ctx context.Context) error

	// Loop: a job with its own loop (a delivery worker). It runs in its own
	// goroutine from Start and must return soon after ctx ends (at stop).
	Loop func(ctx context.Context)

	// Drain finishes pending work at shutdown, after the job's Run or Loop
	// has returned, within ctx's deadline (RELINK_SHUTDOWN_TIMEOUT, shared by
	// every drain). The click pipeline's drain writes the clicks still queued.
	Drain func(ctx context.Context) error
}

// Table is the process's jobs, started and stopped in the order they were
// added.
type Table struct {
	log *slog.Logger

	mu      sync.Mutex
	jobs    []Job
	started bool
	cancel  context.CancelFunc
	running []*running // one per job, when started
}

type running struct {
	done chan struct{} // closed when the job's Run/Loop goroutine returns
}

// New returns an empty table that logs to log.
func New(log *slog.Logger) *Table {
	return &Table{log: log}
}

// Add appends a job. Jobs added after Start are not started, but are still
// drained at Shutdown (a drain-only job may be added at any time).
func (t *Table) Add(j Job) {
	if j.Name == "" {
		panic("jobs: a job needs a name")
	}
	if j.Run != nil && j.Every <= 0 {
		panic(fmt.Sprintf("jobs: job %q has Run without a period", j.Name))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.jobs = append(t.jobs, j)
}

// Jobs returns the table's entries, in order.
func (t *Table) Jobs() []Job {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Job(nil), t.jobs...)
}

// Start runs every job's Run schedule and Loop in goroutines of their own.
// They run until Shutdown (the context passed here only carries values; its
// cancellation does not stop the jobs). Start is a no-op the second time.
func (t *Table) Start(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.started {
		return
	}
	t.started = true
	ctx, t.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for _, j := range t.jobs {
		r := &running{done: make(chan struct{})}
		t.running = append(t.running, r)
		switch {
		case j.Run != nil:
			go t.schedule(ctx, j, r.done)
		case j.Loop != nil:
			go func() {
				defer close(r.done)
				j.Loop(ctx)
			}()
		default:
			close(r.done)
		}
	}
}

// schedule calls j.Run now and every j.Every until ctx ends.
func (t *Table) schedule(ctx context.Context, j Job, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(j.Every)
	defer tick.Stop()
	for {
		if err := j.Run(ctx); err != nil && ctx.Err() == nil {
			t.log.Error("job failed", "job", j.Name, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Shutdown stops the jobs' schedules and loops (waiting for a run in
// progress, up to ctx's deadline), then drains the jobs in the order they
// were added, every drain sharing ctx's deadline. A failing drain is logged
// and the next still runs; the errors are joined.
func (t *Table) Shutdown(ctx context.Context) error {
	t.mu.Lock()
	jobs, run, cancel := append([]Job(nil), t.jobs...), t.running, t.cancel
	t.mu.Unlock()
	var errs []error
	if cancel != nil {
		cancel()
		for i, r := range run {
			select {
			case <-r.done:
			case <-ctx.Done():
				errs = append(errs, fmt.Errorf("stop %s: %w", jobs[i].Name, ctx.Err()))
				t.log.Error("job did not stop before the shutdown deadline", "job", jobs[i].Name)
			}
		}
	}
	for _, j := range jobs {
		if j.Drain == nil {
			continue
		}
		if err := j.Drain(ctx); err != nil {
			errs = append(errs, fmt.Errorf("drain %s: %w", j.Name, err))
			t.log.Error("drain failed", "job", j.Name, "err", err)
			continue
		}
		t.log.Info("drained", "job", j.Name)
	}
	return errors.Join(errs...)
}
