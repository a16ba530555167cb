// Package domainset is the in-memory set of registered short domains (every
// workspace's domains, archived ones included): the host check of every
// request (which face serves it) and the ACME host policy read it without a
// database round trip.
//
// It is loaded when the process starts and reloaded: at once when this
// instance adds, renames, archives or deletes a domain (Changed, called by
// the link service's domain invalidation); when another instance does
// (the link cache's Redis channel carries the domain invalidation, and every
// resubscription reloads, since messages may have been missed); and every
// Refresh as a safety net.
package domainset

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/wsset"
	"github.com/relinkhq/relink/models"
)

// Refresh is the safety-net period of Run.
const Refresh = 30 * time.Second

// Set is the registered domains. Make it with New.
type Set struct{ set *wsset.Set }

// New loads the set from db; log gets reload failures.
func New(ctx context.Context, db *models.DB, log *slog.Logger) (*Set, error) {
	s, err := wsset.New(ctx, "registered domains", db.DomainSlugs)
	if err != nil {
		return nil, err
	}
	s.Refresh, s.Logger = Refresh, log
	return &Set{set: s}, nil
}

// IsRegistered reports whether host is a registered domain: any case, with
// or without a port, with or without a trailing dot, with or without a
// leading "www." (the short-link face serves www.{domain} as {domain}). The
// app and API origins and the default short domain are not rows and are
// not in the set.
func (s *Set) IsRegistered(host string) bool {
	h := Normalize(host)
	return h != "" && s.set.Has(h)
}

// Changed reloads the set after domain was added, renamed, archived or
// deleted (here or, through Redis, on another instance).
func (s *Set) Changed(domain string) { s.set.Invalidate(domain) }

// Reload rebuilds the set (after a Redis resubscription, or in tests that
// write domain rows directly).
func (s *Set) Reload(ctx context.Context) error { return s.set.Reload(ctx) }

// Run reloads the set every Refresh until ctx ends (a jobs.Job Loop).
func (s *Set) Run(ctx context.Context) { s.set.Run(ctx) }

// Normalize is the domain a Host header names: lower-case, without the port,
// the trailing dot or a leading "www.". An IPv6 literal gives "" (never a
// registered domain).
func Normalize(host string) string {
	if strings.HasPrefix(host, "[") {
		return ""
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	host = strings.TrimSuffix(host, ".")
	host = strings.ToLower(host)
	return strings.TrimPrefix(host, "www.")
}
