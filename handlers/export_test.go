// Methods only tests use (issue 30 item 6: test-only exports live here).
package handlers

import (
	"context"

	"github.com/relinkhq/relink/internal/jobs"
	"github.com/relinkhq/relink/internal/linkcache"
)

// LinkCache is the redirect's cache; link and domain writes invalidate it.
func (s *Server) LinkCache() linkcache.Invalidator { return s.svc.LinkCache }

// OnShutdown adds a drain-only job to the services' jobs table: fn runs
// after the listeners stop and in-flight requests finish, after the jobs
// already in the table, sharing the shutdown deadline. Background work that
// also runs while serving belongs in internal/app's jobs table.
func (s *Server) OnShutdown(name string, fn func(context.Context) error) {
	s.svc.Jobs.Add(jobs.Job{Name: name, Drain: fn})
}
