// Package wsset is a set of workspace ids read from the database and kept in
// memory, so that a hot path (the click batches) asks "does this workspace
// have X?" without a query. It is reloaded when this instance changes X
// (Invalidate) and every Refresh for changes made by other instances.
package wsset

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Set is the set; Load lists its members. Make it with New.
type Set struct {
	Name    string // in errors and logs
	Load    func(ctx context.Context) ([]string, error)
	Refresh time.Duration // default 10s
	Logger  *slog.Logger

	set    atomic.Pointer[map[string]bool]
	reload sync.Mutex // one reload at a time: an older answer never replaces a newer one
}

// New returns the set, loaded.
func New(ctx context.Context, name string, load func(ctx context.Context) ([]string, error)) (*Set, error) {
	s := &Set{Name: name, Load: load}
	return s, s.Reload(ctx)
}

// Reload rebuilds the set.
func (s *Set) Reload(ctx context.Context) error {
	s.reload.Lock()
	defer s.reload.Unlock()
	ids, err := s.Load(ctx)
	if err != nil {
		return fmt.Errorf("load %s: %w", s.Name, err)
	}
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	s.set.Store(&m)
	return nil
}

// Invalidate reloads the set after a change of member's settings.
func (s *Set) Invalidate(member string) {
	if err := s.Reload(context.Background()); err != nil {
		s.log().Error("reload set", "set", s.Name, "member", member, "err", err)
	}
}

// Has reports whether workspaceID is in the set.
func (s *Set) Has(workspaceID string) bool {
	p := s.set.Load()
	return p != nil && (*p)[workspaceID]
}

// Empty reports whether the set has no member: a hot path's one atomic
// load when no workspace uses the feature.
func (s *Set) Empty() bool {
	p := s.set.Load()
	return p == nil || len(*p) == 0
}

// Run reloads the set every Refresh until ctx ends (a jobs.Job Loop).
func (s *Set) Run(ctx context.Context) {
	every := s.Refresh
	if every <= 0 {
		every = 10 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Reload(ctx); err != nil && ctx.Err() == nil {
				s.log().Error("reload set", "set", s.Name, "err", err)
			}
		}
	}
}

func (s *Set) log() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}
