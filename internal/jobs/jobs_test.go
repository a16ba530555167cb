package jobs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestTable: periodic jobs run at start and on their period, loops run until
// shutdown, and shutdown stops every job before it drains them, in order,
// joining the drain errors.
func TestTable(t *testing.T) {
	var logs bytes.Buffer
	tab := New(slog.New(slog.NewTextHandler(&logs, nil)))
	var mu sync.Mutex
	var events []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, s)
	}
	runs := make(chan struct{}, 10)
	tab.Add(Job{Name: "tick", Every: 10 * time.Millisecond, Run: func(ctx context.Context) error {
		runs <- struct{}{}
		return nil
	}, Drain: func(context.Context) error { note("drain tick"); return nil }})
	loopStarted := make(chan struct{})
	tab.Add(Job{Name: "loop", Loop: func(ctx context.Context) {
		close(loopStarted)
		<-ctx.Done()
		note("loop stopped")
	}})
	tab.Add(Job{Name: "stuck", Drain: func(context.Context) error { note("drain stuck"); return errors.New("queue stuck") }})
	tab.Add(Job{Name: "last", Drain: func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("drain without the shutdown deadline")
		}
		note("drain last")
		return nil
	}})

	ctx, cancel := context.WithCancel(context.Background())
	tab.Start(ctx)
	cancel() // the caller's context ending does not stop the jobs
	for range 3 {
		select {
		case <-runs:
		case <-time.After(5 * time.Second):
			t.Fatal("periodic job did not run three times")
		}
	}
	<-loopStarted
	mu.Lock()
	if len(events) != 0 {
		t.Fatalf("jobs stopped before Shutdown: %v", events)
	}
	mu.Unlock()

	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	err := tab.Shutdown(sctx)
	if err == nil || err.Error() != "drain stuck: queue stuck" {
		t.Fatalf("Shutdown error = %v, want the failing drain's", err)
	}
	if got := strings.Join(events, ", "); got != "loop stopped, drain tick, drain stuck, drain last" {
		t.Fatalf("shutdown order: %s", got)
	}
	// No run after shutdown.
	for len(runs) > 0 {
		<-runs
	}
	time.Sleep(30 * time.Millisecond)
	if len(runs) != 0 {
		t.Fatal("periodic job ran after Shutdown")
	}
	if !strings.Contains(logs.String(), `msg="drain failed" job=stuck`) || strings.Count(logs.String(), `msg=drained`) != 2 {
		t.Fatalf("logs: %s", logs.String())
	}
}

// TestRunErrorLogged: a failing run is logged and the schedule goes on.
func TestRunErrorLogged(t *testing.T) {
	var mu sync.Mutex
	var logs bytes.Buffer
	tab := New(slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)))
	runs := make(chan struct{}, 10)
	tab.Add(Job{Name: "flaky", Every: 5 * time.Millisecond, Run: func(context.Context) error {
		runs <- struct{}{}
		return errors.New("db down")
	}})
	tab.Start(context.Background())
	<-runs
	<-runs
	if err := tab.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), `msg="job failed" job=flaky err="db down"`) {
		t.Fatalf("logs: %s", logs.String())
	}
}

// TestShutdownDeadline: a job that does not stop is reported once the
// deadline passes, and the drains still run.
func TestShutdownDeadline(t *testing.T) {
	tab := New(slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)))
	release := make(chan struct{})
	defer close(release)
	tab.Add(Job{Name: "deaf", Loop: func(context.Context) { <-release }})
	drained := false
	tab.Add(Job{Name: "after", Drain: func(context.Context) error { drained = true; return nil }})
	tab.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := tab.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "stop deaf") {
		t.Fatalf("Shutdown error = %v", err)
	}
	if !drained {
		t.Fatal("drains did not run after a stuck job")
	}
}

// TestAddChecks: a job needs a name, and Run needs a period.
func TestAddChecks(t *testing.T) {
	for name, j := range map[string]Job{
		"no name":   {Drain: func(context.Context) error { return nil }},
		"no period": {Name: "x", Run: func(context.Context) error { return nil }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Add did not panic", name)
				}
			}()
			New(slog.Default()).Add(j)
		}()
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
