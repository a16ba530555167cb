// Package conversions holds the business rules of conversion tracking and
// partner programs (spec/partners-and-embed.md §1-5): lead and sale tracking with
// attribution through the click, de-duplication and idempotency, FX
// conversion, rewards and commissions, partner enrollment and embed tokens.
// It has no HTTP in it: handlers parse requests into the inputs below and
// render the results.
package conversions

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// Aggregator keeps derived data (the analytics event aggregates) in step
// with conversions; the default is models.EventAggregator. Its methods run inside the
// transaction that stores the events, after they are inserted; an error
// rolls the whole tracking call back.
type Aggregator interface {
	AddLeads(ctx context.Context, tx *models.DB, events []models.LeadEvent) error
	AddSale(ctx context.Context, tx *models.DB, event *models.SaleEvent) error
}

// Service runs the conversion rules against the database.
type Service struct {
	DB         *models.DB
	FX         *FX
	Aggregator Aggregator
	Links      *links.Service
	Now        func() time.Time
	Log        *slog.Logger
	// Pending writes clicks still queued in the click pipeline; a lead or
	// sale naming a click that was accepted a moment ago but not yet written
	// flushes it and looks again. Nil: no pipeline in this process.
	Pending Flusher
	// Analytics counts the events of partner analytics (PartnerAnalytics).
	Analytics analytics.Engine
	// Applicants is told about every reviewed application after its commit
	// (the partner's e-mail: approved with a sign-in link, or rejected);
	// nil: nobody is told.
	Applicants Applicants
	// ClickWindow, when set, is the attribution window: a click older than
	// it cannot be attributed a lead or sale and answers as an unknown
	// click id. Set with the ClickHouse event store, where the SQL store
	// keeps clicks only that long (RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW,
	// chstore.ClickTrim); zero: every stored click.
	ClickWindow time.Duration
}

// Applicants hears about reviewed applications (internal/portal mails the
// partner). A failure is logged: the review itself stands.
type Applicants interface {
	ApplicationApproved(ctx context.Context, prog *models.Program, p *models.Partner) error
	ApplicationRejected(ctx context.Context, prog *models.Program, p *models.Partner) error
}

// Flusher writes everything accepted so far (the click pipeline).
type Flusher interface {
	Flush(ctx context.Context) error
}

// Deps are what New needs. DB, FX, Aggregator, Links, Now and Log are
// required: New fills in nothing a caller forgot (issue 30), so a service
// built without, say, the links service's cache and webhooks cannot exist.
// Pending, Analytics and ClickWindow are optional. Webhook payloads
// write links with the links service's wire.Writer (Links.Wire).
type Deps struct {
	DB         *models.DB
	FX         *FX
	Aggregator Aggregator
	Links      *links.Service
	Now        func() time.Time
	Log        *slog.Logger
	Pending    Flusher
	Analytics  analytics.Engine
	// ClickWindow: Service.ClickWindow.
	ClickWindow time.Duration
}

// New returns a Service, or an error naming the first required dependency
// missing from d.
func New(d Deps) (*Service, error) {
	for _, r := range []struct {
		name    string
		missing bool
	}{{"DB", d.DB == nil}, {"FX", d.FX == nil}, {"Aggregator", d.Aggregator == nil}, {"Links", d.Links == nil},
		{"Now", d.Now == nil}, {"Log", d.Log == nil}} {
		if r.missing {
			return nil, fmt.Errorf("conversions.New: %s is required", r.name)
		}
	}
	return &Service{DB: d.DB, FX: d.FX, Aggregator: d.Aggregator, Links: d.Links, Now: d.Now, Log: d.Log, Pending: d.Pending,
		Analytics: d.Analytics, ClickWindow: d.ClickWindow}, nil
}

func (s *Service) now() time.Time { return s.Now().UTC() }
