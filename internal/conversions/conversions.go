// Package conversions holds the business rules of conversion tracking and
// partner programs (partners-and-embed.md §1-5): lead and sale tracking with
// attribution through the click, de-duplication and idempotency, FX
// conversion, rewards and commissions, partner enrollment and embed tokens.
// It has no HTTP in it: handlers parse requests into the inputs below and
// render the results.
package conversions

import (
	"context"
	"log/slog"
	"time"

	"github.com/relinkhq/relink/models"
)

// Aggregator keeps derived data (the analytics helper's hourly event
// aggregates) in step with conversions. Its methods run inside the
// transaction that stores the events, after they are inserted; an error
// rolls the whole tracking call back.
type Aggregator interface {
	AddLeads(ctx context.Context, tx *models.DB, events []models.LeadEvent) error
	AddSale(ctx context.Context, tx *models.DB, event *models.SaleEvent) error
}

// NoopAggregator is the default Aggregator.
type NoopAggregator struct{}

// AddLeads does nothing.
func (NoopAggregator) AddLeads(context.Context, *models.DB, []models.LeadEvent) error { return nil }

// AddSale does nothing.
func (NoopAggregator) AddSale(context.Context, *models.DB, *models.SaleEvent) error { return nil }

// Service runs the conversion rules against the database.
type Service struct {
	DB         *models.DB
	FX         *FX
	Aggregator Aggregator
	Links      LinkCreator
	Now        func() time.Time
	Log        *slog.Logger
}

// Deps are what New needs; zero values get defaults.
type Deps struct {
	DB         *models.DB
	FX         *FX
	Aggregator Aggregator
	Links      LinkCreator
	Now        func() time.Time
	Log        *slog.Logger
}

// New returns a Service. Without FX it uses the built-in rates table.
func New(d Deps) *Service {
	s := &Service{DB: d.DB, FX: d.FX, Aggregator: d.Aggregator, Links: d.Links, Now: d.Now, Log: d.Log}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Aggregator == nil {
		s.Aggregator = NoopAggregator{}
	}
	if s.Log == nil {
		s.Log = slog.Default()
	}
	if s.FX == nil {
		fx, err := NewFX("", s.Now)
		if err != nil {
			panic(err) // the embedded table is checked by tests
		}
		s.FX = fx
	}
	if s.Links == nil {
		s.Links = BasicLinkCreator{}
	}
	return s
}

func (s *Service) now() time.Time { return s.Now().UTC() }
