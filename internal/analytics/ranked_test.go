package analytics_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// rankedGroupBys are the groupings the database ranks (ranked.go).
var rankedGroupBys = []string{"top_links", "top_urls", "top_base_urls", "top_domains", "top_folders",
	"top_link_tags", "top_partners", "top_groups"}

// TestRankedGroupingsFollowCurrentAttributes: the groupings ranked in the
// database answer exactly like the raw path before and after links are
// moved between folders, retagged, given to another partner (in another
// partner group), moved to another domain and deleted, and after a tag is
// deleted — all after their events: every event counts under the link's
// attributes as they are now.
func TestRankedGroupingsFollowCurrentAttributes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		now := time.Date(2026, 3, 30, 9, 37, 12, 0, time.UTC)
		w := newWorld(t, db, "moves", now)
		w.randomEvents(rand.New(rand.NewPCG(5, 9)), 400, now.AddDate(0, 0, -40), now.Add(time.Hour))
		agg, raw := w.engines()
		impls := w.implementations(agg)
		zones := []string{"UTC", "Europe/Berlin", "Asia/Kolkata"}
		answers := map[string]string{}
		n := 0
		check := func() (changed int) {
			for _, g := range rankedGroupBys {
				for _, ev := range events {
					for i, iv := range []string{"24h", "7d", "30d", "1y", "all"} {
						qs := "event=" + ev + "&groupBy=" + g + "&interval=" + iv + "&timezone=" + zones[i%len(zones)]
						n++ // ClickHouse answers a share of the queries (chEvery)
						w.sameAnswer(t, w.query, qs, raw, sampled(impls, n))
						a, err := w.query(t, agg, qs)
						if err != nil {
							t.Fatal(err)
						}
						j := jsonOf(t, a)
						if old, ok := answers[qs]; ok && old != j {
							changed++
						}
						answers[qs] = j
					}
				}
			}
			return changed
		}
		check()
		before, rollups := agg.RankedReads(), agg.RollupReads()
		if before == 0 || rollups == 0 {
			t.Fatalf("%d groupings ranked by the database, %d from the link-attribute rollups", before, rollups)
		}

		exec := func(q string, args ...any) {
			t.Helper()
			if err := db.Exec(q, args...).Error; err != nil {
				t.Fatal(err)
			}
		}
		// Folders: link 0 leaves "Campaigns" for a new folder, link 1 joins it.
		f2 := &models.Folder{ID: ids.New(ids.Folder), WorkspaceID: w.ws.ID, Name: "Moved", Type: "default"}
		if err := db.WithContext(w.ctx).Create(f2).Error; err != nil {
			t.Fatal(err)
		}
		exec("UPDATE links SET folder_id = ? WHERE id = ?", f2.ID, w.links[0].ID)
		exec("UPDATE links SET folder_id = ? WHERE id = ?", w.fold, w.links[1].ID)
		// Tags: link 0 loses tag 1, the root link gains it; tag 0 is deleted.
		exec("DELETE FROM link_tags WHERE link_id = ? AND tag_id = ?", w.links[0].ID, w.tags[1])
		exec("INSERT INTO link_tags (link_id, tag_id, created_at) VALUES (?,?,?)", w.links[3].ID, w.tags[1], now)
		exec("DELETE FROM link_tags WHERE tag_id = ?", w.tags[0])
		exec("DELETE FROM tags WHERE id = ?", w.tags[0])
		// Partners: link 2 goes to a second partner, moved to a new group;
		// link 1 is given to the first partner.
		ep, err := w.svc.EnrollPartner(w.ctx, w.ws, conversions.EnrollInput{Email: "sam@moves.example"})
		if err != nil {
			t.Fatal(err)
		}
		prog := ep.Enrollment.ProgramID
		g2 := ids.New(ids.Group)
		exec("INSERT INTO partner_groups (id, workspace_id, program_id, name, slug, created_at, updated_at) VALUES (?,?,?,?,?,?,?)",
			g2, w.ws.ID, prog, "Moved group", "moved-group", now, now)
		exec("UPDATE program_enrollments SET group_id = ? WHERE partner_id = ?", g2, ep.Partner.ID)
		exec("UPDATE links SET partner_id = ?, program_id = ? WHERE id = ?", ep.Partner.ID, prog, w.links[2].ID)
		exec("UPDATE links SET partner_id = ?, program_id = ? WHERE id = ?", w.part, prog, w.links[1].ID)
		// Domains and deletion: the root link moves domain, "gone" is deleted.
		exec("UPDATE links SET domain = ? WHERE id = ?", "gamma.link", w.links[3].ID)
		exec("DELETE FROM links WHERE id = ?", w.links[4].ID)

		if changed := check(); changed < 40 {
			t.Fatalf("only %d answers changed after the moves", changed)
		}
		if agg.RankedReads() == before || agg.RollupReads() == rollups {
			t.Fatal("no grouping was ranked by the database (or read the rollups) after the moves")
		}
		// The moves show where they should: the new folder, group and
		// domain have rows; the deleted tag has none.
		for qs, want := range map[string]string{
			"event=clicks&groupBy=top_folders&interval=all":   f2.ID,
			"event=clicks&groupBy=top_groups&interval=all":    g2,
			"event=clicks&groupBy=top_domains&interval=all":   "gamma.link",
			"event=clicks&groupBy=top_link_tags&interval=all": w.tags[1],
		} {
			a, err := w.query(t, agg, qs)
			if err != nil {
				t.Fatal(err)
			}
			if j := jsonOf(t, a); !strings.Contains(j, want) || strings.Contains(j, w.tags[0]) || strings.Contains(j, w.links[4].ID) {
				t.Fatalf("%s: %s (want %s, no %s)", qs, j, want, w.tags[0])
			}
		}
		// Events after the moves count under the new attributes too (the
		// ingest hook reads the links as they are now); then link 0 moves
		// back to the first folder and loses its partner, link 3 loses a
		// tag, and the second partner's enrollment is removed.
		for i := range 40 {
			l := w.links[i%4]
			w.click(l, now.Add(-time.Duration(i*37)*time.Minute), uas[i%len(uas)], places[i%len(places)], referers[i%len(referers)], false)
		}
		w.flush()
		check()
		exec("UPDATE links SET folder_id = ?, partner_id = NULL WHERE id = ?", w.fold, w.links[0].ID)
		exec("DELETE FROM link_tags WHERE link_id = ? AND tag_id = ?", w.links[3].ID, w.tags[1])
		exec("DELETE FROM program_enrollments WHERE partner_id = ?", ep.Partner.ID)
		check()
	})
}
