// Package convtest builds a conversions.Service for tests outside the
// composition root: every dependency conversions.New requires, wired as
// app.Build wires them, with the test's database and clock.
package convtest

import (
	"log/slog"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// New returns a conversions service over db with the built-in FX table, a
// links service on the same clock and the SQL event aggregator.
func New(t testing.TB, db *models.DB, now func() time.Time) *conversions.Service {
	t.Helper()
	if now == nil {
		now = time.Now
	}
	fx, err := conversions.NewFX("", now)
	if err != nil {
		t.Fatalf("fx: %v", err)
	}
	svc, err := conversions.New(conversions.Deps{DB: db, FX: fx, Aggregator: models.EventAggregator{},
		Links: &links.Service{DB: db, Now: now}, Now: now, Log: slog.Default()})
	if err != nil {
		t.Fatalf("conversions: %v", err)
	}
	return svc
}
