package analytics_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestTopLinksFollowEdits: the engine keeps the links top_links has shown
// in memory, and a link edited (title, URL, folder, comments) or deleted
// after that shows as it is now at once, as a fresh engine shows it.
func TestTopLinksFollowEdits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		now := time.Date(2026, 11, 18, 12, 30, 0, 0, time.UTC)
		w := newWorld(t, db, "edits", now)
		w.randomEvents(rand.New(rand.NewPCG(3, 4)), 200, now.AddDate(0, 0, -20), now)
		agg, _ := w.engines()
		ask := func(e *analytics.SQLEngine) string {
			rows, err := w.query(t, e, "event=composite&groupBy=top_links&interval=30d")
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(rows)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		before := ask(agg)
		if ask(agg) != before {
			t.Fatal("the same question answered twice differently")
		}
		edited, deleted := w.links[0], w.links[1]
		if err := db.Exec("UPDATE links SET title = ?, url = ?, comments = ?, folder_id = ? WHERE id = ?",
			"Renamed & moved", "https://example.com/new?x=1", "note", w.fold, edited.ID).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Exec("DELETE FROM links WHERE id = ?", deleted.ID).Error; err != nil {
			t.Fatal(err)
		}
		after := ask(agg)
		if fresh, _ := w.engines(); after != ask(fresh) {
			t.Fatalf("cached answer differs from a fresh engine's:\n%s\n%s", after, ask(fresh))
		}
		if after == before || !strings.Contains(after, `"title":"Renamed \u0026 moved"`) || strings.Contains(after, `"id":"`+deleted.ID+`"`) {
			t.Fatalf("the edit or the deletion is not shown:\n%s", after)
		}
		// Clicks on a link, counters only: no new version, the cache stays.
		var v1, v2 int64
		db.Raw("SELECT COALESCE(MAX(version), 0) FROM link_versions WHERE workspace_id = ?", w.ws.ID).Scan(&v1)
		w.randomEvents(rand.New(rand.NewPCG(5, 6)), 20, now.Add(-time.Hour), now)
		db.Raw("SELECT COALESCE(MAX(version), 0) FROM link_versions WHERE workspace_id = ?", w.ws.ID).Scan(&v2)
		if v1 == 0 || v2 != v1 {
			t.Fatalf("link version %d, after clicks %d", v1, v2)
		}
	})
}
