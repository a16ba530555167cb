package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestRegionAggregatesRepair: migration 00320 moves the counts of region
// rows written with a city's value ("C<sep>R<sep>", the folder's bug for
// events with no city) into their region's row, creating it when missing,
// and leaves every other row — city rows with the same value included —
// as it was.
func TestRegionAggregatesRepair(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		h := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
		day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
		week := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
		sep := models.KeySep
		row := func(dim string, at time.Time, value string, n, amount int64) models.EventAggregate {
			return models.EventAggregate{WorkspaceID: "w1", Event: models.AggSale, Dim: dim, Hour: at, Value: value, Count: n, Amount: amount}
		}
		seed := []models.EventAggregate{
			row("region", h, "US"+sep+"CA", 2, 200),             // a region's good row
			row("region", h, "US"+sep+"CA"+sep, 3, 300),         // its bad twin
			row("region@day", day, "DE"+sep+"BE"+sep, 1, 10),    // bad, no good row yet
			row("region@week", week, "FR"+sep+"IDF"+sep, 4, 40), // bad, weekly
			row("city", h, "US"+sep+"CA"+sep, 3, 300),           // a city with no name: correct, kept
			row("country", h, "US", 5, 500),                     // untouched
		}
		if err := db.AddEventAggregates(ctx, seed); err != nil {
			t.Fatal(err)
		}
		// Apply the migration again on these rows.
		if err := db.Exec("DELETE FROM goose_db_version WHERE version_id = 320").Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		var got []models.EventAggregate
		if err := db.Where("workspace_id = ?", "w1").Order("dim, value").Find(&got).Error; err != nil {
			t.Fatal(err)
		}
		want := map[string][2]int64{
			"city|US" + sep + "CA" + sep:   {3, 300},
			"country|US":                   {5, 500},
			"region|US" + sep + "CA":       {5, 500},
			"region@day|DE" + sep + "BE":   {1, 10},
			"region@week|FR" + sep + "IDF": {4, 40},
		}
		if len(got) != len(want) {
			t.Fatalf("%d rows after the repair, want %d: %+v", len(got), len(want), got)
		}
		for _, r := range got {
			w, ok := want[r.Dim+"|"+r.Value]
			if !ok || r.Count != w[0] || r.Amount != w[1] {
				t.Fatalf("row %s %q: count %d amount %d, want %v (present %v)", r.Dim, r.Value, r.Count, r.Amount, w, ok)
			}
		}
	})
}
