package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestAttributionClicks: RecordAttributionClicks (the ClickHouse event
// store's SQL side) stores a batch's new clicks in the attribution table,
// every attribute a lead copies and no identity hash, counts each click
// once in the link counters however often its batch is written, skips the
// clicks an earlier release stored in clicks (a journal replayed across
// the upgrade), and AttributionClick finds a click in either table, in its
// workspace and window only.
func TestAttributionClicks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		w := newWorkspace(t, db, "acme")
		other := newWorkspace(t, db, "other")
		l := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "a", URL: "https://example.com/"}
		if err := db.CreateLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC) // batches across midnight
		hostile := "'); DROP TABLE attribution_clicks; -- \\N\t\n日本 \x00 \xff"
		mk := func(i int, at time.Time) models.Click {
			return models.Click{ClickID: fmt.Sprintf("at%04d", i), Timestamp: at, WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key,
				URL: l.URL, IdentityHash: "secret", IP: "203.0.113.9", Continent: "EU", Country: "DE", Region: "DE-BE", City: "Berlin",
				Latitude: "52.5", Longitude: "13.4", Device: "Mobile", DeviceVendor: "Apple", DeviceModel: "iPhone", Browser: "Safari",
				BrowserVersion: "17", Engine: "WebKit", EngineVersion: "605", OS: "iOS", OSVersion: "17.1", CPUArchitecture: "arm64",
				UA: hostile, Bot: i%2 == 0, QR: i%3 == 0, Trigger: "qr", Referer: "news.example", RefererURL: hostile,
				UTMSource: "s", UTMMedium: "m", UTMCampaign: "c", UTMTerm: "t", UTMContent: "x"}
		}
		batch := make([]models.Click, 1500)
		for i := range batch {
			batch[i] = mk(i, t0.Add(time.Duration(i)*100*time.Millisecond))
		}
		// Written twice (a retry), then a batch overlapping it.
		for i, want := range []int{len(batch), 0} {
			if n, err := db.RecordAttributionClicks(ctx, batch); err != nil || n != want {
				t.Fatalf("write %d: n=%d err=%v, want %d new", i+1, n, err, want)
			}
		}
		more := append([]models.Click{batch[7], batch[1499]}, mk(2000, t0.Add(time.Hour)))
		if n, err := db.RecordAttributionClicks(ctx, more); err != nil || n != 1 {
			t.Fatalf("overlapping batch: n=%d err=%v, want 1 new", n, err)
		}
		// An earlier release stored two clicks in clicks: written again
		// (the journal replayed after the upgrade), they are not counted
		// nor copied; a new click of the same batch is.
		legacy := []models.Click{mk(3000, t0.Add(2*time.Hour)), mk(3001, t0.Add(2*time.Hour+time.Second))}
		if n, err := db.RecordClicks(ctx, legacy); err != nil || n != 2 {
			t.Fatalf("legacy: n=%d err=%v", n, err)
		}
		replay := append(legacy, mk(3002, t0.Add(2*time.Hour-time.Second)))
		if n, err := db.RecordAttributionClicks(ctx, replay); err != nil || n != 1 {
			t.Fatalf("replay across the upgrade: n=%d err=%v, want 1 new", n, err)
		}
		got, err := db.LinkByID(ctx, w.ID, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Clicks != 1500+1+2+1 {
			t.Errorf("link counter %d, want %d (each click once)", got.Clicks, 1500+1+2+1)
		}
		var rows, outside, inClicks int64
		db.Raw("SELECT COUNT(*) FROM attribution_clicks WHERE workspace_id = ?", w.ID).Scan(&rows)
		db.Raw("SELECT COUNT(*) FROM clicks").Scan(&inClicks)
		if rows != 1502 || inClicks != 2 {
			t.Errorf("attribution table %d rows (want 1502), clicks %d (want the 2 legacy ones)", rows, inClicks)
		}
		if err := db.Raw("SELECT COUNT(*) FROM attribution_clicks WHERE day <> ? AND day <> ?", models.ClickDay(t0), models.ClickDay(t0)+1).Scan(&outside).Error; err != nil || outside != 0 {
			t.Errorf("%d rows outside the clicks' two days (%v)", outside, err)
		}

		// Found in the attribution table: every attribute a lead copies,
		// hostile text intact, no identity hash.
		since := t0.Add(-90 * 24 * time.Hour)
		for _, i := range []int{0, 1, 1499} {
			c, err := db.AttributionClick(ctx, w.ID, batch[i].ClickID, since)
			if err != nil {
				t.Fatalf("click %d: %v", i, err)
			}
			want := batch[i]
			want.IdentityHash = ""
			want.UA = "'); DROP TABLE attribution_clicks; -- \\N\t\n日本 \uFFFD \uFFFD"
			want.RefererURL = want.UA
			if models.AttrsOf(c) != models.AttrsOf(&want) || !c.Timestamp.Equal(want.Timestamp) || c.WorkspaceID != w.ID || c.IdentityHash != "" {
				t.Errorf("click %d read back as\n%+v\nwant\n%+v", i, *c, want)
			}
		}
		// Found in clicks (the legacy rows).
		if c, err := db.AttributionClick(ctx, w.ID, legacy[0].ClickID, since); err != nil || c.ClickID != legacy[0].ClickID || c.Country != "DE" {
			t.Errorf("legacy click: %+v %v", c, err)
		}
		// Not found: another workspace's, an unknown id, one before the
		// window (in either table).
		for _, q := range []struct {
			ws, id string
			since  time.Time
		}{
			{other.ID, batch[0].ClickID, since},
			{other.ID, legacy[0].ClickID, since},
			{w.ID, "nope", since},
			{w.ID, batch[0].ClickID, batch[1].Timestamp},
			{w.ID, legacy[0].ClickID, legacy[1].Timestamp},
		} {
			if c, err := db.AttributionClick(ctx, q.ws, q.id, q.since); !models.IsNotFound(err) {
				t.Errorf("AttributionClick(%s, %s, %v) = %+v, %v; want not found", q.ws, q.id, q.since, c, err)
			}
		}
		// Without a window every stored click is found.
		if c, err := db.AttributionClick(ctx, w.ID, batch[0].ClickID, time.Time{}); err != nil || c.ClickID != batch[0].ClickID {
			t.Errorf("without a window: %+v %v", c, err)
		}

		checkAttributionRetention(t, db, w.ID, batch, t0.Add(time.Minute))
	})
}

// checkAttributionRetention: retention reaches the attribution table: the
// clicks before cut (600 of batch) go, from both tables, a chunk at a time.
func checkAttributionRetention(t *testing.T, db *models.DB, ws string, batch []models.Click, cut time.Time) {
	t.Helper()
	ctx := context.Background()
	var deleted, rows int64
	for {
		n, err := db.DeleteClicksBefore(ctx, ws, cut, 250)
		if err != nil {
			t.Fatal(err)
		}
		deleted += n
		if n < 250 {
			break
		}
	}
	db.Raw("SELECT COUNT(*) FROM attribution_clicks WHERE workspace_id = ?", ws).Scan(&rows)
	if deleted != 600 || rows != 1502-600 {
		t.Errorf("retention deleted %d (want 600), %d rows left (want %d)", deleted, rows, 1502-600)
	}
	if _, err := db.AttributionClick(ctx, ws, batch[599].ClickID, time.Time{}); !models.IsNotFound(err) {
		t.Errorf("a click past retention is still found: %v", err)
	}
	if _, err := db.AttributionClick(ctx, ws, batch[600].ClickID, time.Time{}); err != nil {
		t.Errorf("the first click after the cut: %v", err)
	}
}

// TestAttributionRepeats: a click id that comes again (the redirect's
// cookie keeps it for an hour) is stored and counted once, also when the
// repeat falls on the next UTC day (the attribution table's key holds the
// day) and when both are in one batch.
func TestAttributionRepeats(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		w := newWorkspace(t, db, "acme")
		l := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "a", URL: "https://example.com/"}
		if err := db.CreateLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		mk := func(id string, at time.Time) models.Click {
			return models.Click{ClickID: id, Timestamp: at, WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key, Country: "US"}
		}
		midnight := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
		steps := []struct {
			batch []models.Click
			want  int
		}{
			{[]models.Click{mk("r1", midnight.Add(-20*time.Minute))}, 1},
			// r1 again after midnight, in a later batch.
			{[]models.Click{mk("r1", midnight.Add(30*time.Minute)), mk("r2", midnight.Add(-time.Minute))}, 1},
			// r3 and its repeat across midnight in one batch.
			{[]models.Click{mk("r3", midnight.Add(-time.Second)), mk("r3", midnight.Add(40*time.Minute)), mk("r4", midnight.Add(time.Minute))}, 2},
			// r2's repeat after midnight, r4's on its own day.
			{[]models.Click{mk("r2", midnight.Add(50*time.Minute)), mk("r4", midnight.Add(55*time.Minute))}, 0},
		}
		for i, s := range steps {
			if n, err := db.RecordAttributionClicks(ctx, s.batch); err != nil || n != s.want {
				t.Fatalf("batch %d: %d new, %v; want %d", i+1, n, err, s.want)
			}
		}
		var rows int64
		db.Raw("SELECT COUNT(*) FROM attribution_clicks WHERE workspace_id = ?", w.ID).Scan(&rows)
		got, err := db.LinkByID(ctx, w.ID, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		if rows != 4 || got.Clicks != 4 {
			t.Fatalf("%d rows, link counter %d; want 4 and 4 (r1 to r4 once each)", rows, got.Clicks)
		}
	})
}
