package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestRecordClicks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		w := newWorkspace(t, db, "acme")
		a := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "a", URL: "https://example.com/"}
		b := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "b", URL: "https://example.org/"}
		for _, l := range []*models.Link{a, b} {
			if err := db.CreateLink(ctx, l); err != nil {
				t.Fatal(err)
			}
		}
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		mk := func(id string, l *models.Link, at time.Time) models.Click {
			return models.Click{ClickID: id, Timestamp: at, WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key,
				URL: l.URL, Country: "US", Continent: "NA", Device: "Desktop", Trigger: "link", Referer: "(direct)", RefererURL: "(direct)",
				UTMSource: "news"}
		}
		var hooked []string
		hook := func(_ context.Context, tx *models.DB, in []models.Click) error {
			// The hook sees the batch's rows inside the transaction.
			var n int64
			if err := tx.Model(&models.Click{}).Where("workspace_id = ?", w.ID).Count(&n).Error; err != nil {
				return err
			}
			for _, c := range in {
				hooked = append(hooked, c.ClickID)
			}
			hooked = append(hooked, fmt.Sprint(n))
			return nil
		}
		batch := []models.Click{mk("c1", a, t0), mk("c2", a, t0.Add(time.Minute)), mk("c3", b, t0.Add(2*time.Minute)), mk("c1", a, t0.Add(time.Hour))}
		n, err := db.RecordClicks(ctx, batch, hook)
		if err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Errorf("inserted %d, want 3 (the repeated c1 is skipped)", n)
		}
		if fmt.Sprint(hooked) != "[c1 c2 c3 3]" {
			t.Errorf("hook saw %v", hooked)
		}
		// A repeat of a stored click id is skipped too.
		if n, err := db.RecordClicks(ctx, []models.Click{mk("c2", a, t0.Add(3*time.Minute)), mk("c4", a, t0.Add(4*time.Minute))}); err != nil || n != 1 {
			t.Fatalf("second batch: n=%d err=%v", n, err)
		}
		got, err := db.LinkByID(ctx, w.ID, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Clicks != 3 || got.LastClicked == nil || !got.LastClicked.Equal(t0.Add(4*time.Minute)) {
			t.Errorf("link a: clicks=%d lastClicked=%v, want 3 at %v", got.Clicks, got.LastClicked, t0.Add(4*time.Minute))
		}
		// An older batch does not move last_clicked back.
		if _, err := db.RecordClicks(ctx, []models.Click{mk("c5", a, t0.Add(-time.Hour))}); err != nil {
			t.Fatal(err)
		}
		got, _ = db.LinkByID(ctx, w.ID, a.ID)
		if got.Clicks != 4 || !got.LastClicked.Equal(t0.Add(4*time.Minute)) {
			t.Errorf("after old click: clicks=%d lastClicked=%v", got.Clicks, got.LastClicked)
		}
		clicks, err := db.ClicksOfLink(ctx, w.ID, a.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(clicks) != 4 || clicks[0].ClickID != "c5" || clicks[1].Country != "US" || clicks[1].UTMSource != "news" || !clicks[1].Timestamp.Equal(t0) {
			t.Errorf("stored clicks: %+v", clicks)
		}
		// A failing hook rolls back the rows and the counters.
		boom := errors.New("boom")
		if _, err := db.RecordClicks(ctx, []models.Click{mk("c6", b, t0)}, func(context.Context, *models.DB, []models.Click) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("hook error = %v", err)
		}
		if n, _ := db.CountClicks(ctx, w.ID, b.ID); n != 1 {
			t.Errorf("link b clicks after rollback = %d, want 1", n)
		}
		gb, _ := db.LinkByID(ctx, w.ID, b.ID)
		if gb.Clicks != 1 {
			t.Errorf("link b counter after rollback = %d, want 1", gb.Clicks)
		}
		// Other workspaces see none of it.
		other := newWorkspace(t, db, "other")
		if n, _ := db.CountClicks(ctx, other.ID, ""); n != 0 {
			t.Errorf("other workspace counts %d clicks", n)
		}
	})
}

func TestRecordClicksLargeBatch(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		w := newWorkspace(t, db, "acme")
		l := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "a", URL: "https://example.com/"}
		if err := db.CreateLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		batch := make([]models.Click, 2500) // more than one SQLite statement's worth
		for i := range batch {
			batch[i] = models.Click{ClickID: fmt.Sprintf("k%05d", i), Timestamp: time.Unix(int64(i), 0), WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key}
		}
		if n, err := db.RecordClicks(ctx, batch); err != nil || n != len(batch) {
			t.Fatalf("n=%d err=%v", n, err)
		}
		if n, _ := db.CountClicks(ctx, w.ID, l.ID); n != int64(len(batch)) {
			t.Errorf("stored %d", n)
		}
	})
}

// Values are written to SQLite as SQL literals: hostile strings must come
// back as they went in (NUL and invalid UTF-8 become U+FFFD).
func TestRecordClicksLiterals(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		w := newWorkspace(t, db, "acme")
		l := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "a", URL: "https://example.com/"}
		if err := db.CreateLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		tests := []struct{ in, want string }{
			{"'); DROP TABLE clicks; --", "'); DROP TABLE clicks; --"},
			{"O'Brien''s \\ \"quoted\" `tick`", "O'Brien''s \\ \"quoted\" `tick`"},
			{"日本語 🚀 ünïcödé", "日本語 🚀 ünïcödé"},
			{"line1\nline2\r\t", "line1\nline2\r\t"},
			{"nul\x00byte", "nul\uFFFDbyte"},
			{"bad\xffutf8", "bad\uFFFDutf8"},
			{"", ""},
			{"\\N", "\\N"},
			{"\\.", "\\."},
			{"back\\slash\\\ttab\\n", "back\\slash\\\ttab\\n"},
		}
		batch := make([]models.Click, len(tests))
		for i, tt := range tests {
			batch[i] = models.Click{ClickID: fmt.Sprintf("lit%02d", i), Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC).Add(time.Duration(i) * time.Second),
				WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key, UA: tt.in, RefererURL: tt.in, Bot: i%2 == 0}
		}
		if n, err := db.RecordClicks(ctx, batch); err != nil || n != len(batch) {
			t.Fatalf("n=%d err=%v", n, err)
		}
		got, err := db.ClicksOfLink(ctx, w.ID, l.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tests) {
			t.Fatalf("stored %d rows", len(got))
		}
		for i, tt := range tests {
			c := got[i]
			if c.UA != tt.want || c.RefererURL != tt.want || c.Bot != (i%2 == 0) || !c.Timestamp.Equal(batch[i].Timestamp) {
				t.Errorf("row %d: ua %q referer %q bot %v ts %v; want %q at %v", i, c.UA, c.RefererURL, c.Bot, c.Timestamp, tt.want, batch[i].Timestamp)
			}
		}
		// Times before PostgreSQL's epoch (2000-01-01: binary COPY counts
		// from it) and before Unix's: an import of old clicks.
		for i, at := range []time.Time{time.Date(1999, 12, 31, 23, 59, 59, 999999000, time.UTC), time.Date(1969, 7, 20, 20, 17, 40, 1000, time.UTC)} {
			c := models.Click{ClickID: fmt.Sprintf("old%d", i), Timestamp: at, WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key, QR: true}
			if n, err := db.RecordClicks(ctx, []models.Click{c}); err != nil || n != 1 {
				t.Fatalf("click at %v: n=%d err=%v", at, n, err)
			}
			got, err := db.ClicksOfLink(ctx, w.ID, l.ID, 100)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, g := range got {
				if g.ClickID == c.ClickID {
					found = true
					if !g.Timestamp.Equal(at) || !g.QR {
						t.Errorf("click at %v stored at %v (qr %v)", at, g.Timestamp, g.QR)
					}
				}
			}
			if !found {
				t.Errorf("click at %v not read back", at)
			}
		}
	})
}

// TestRecordClicksSQLiteStatement: on SQLite, RecordClicks inserts through
// one prepared statement on the driver's connection (click_sqlite.go); the
// rows it stores equal, column by column, those of the literal INSERTs
// (InsertClicksSQLite), hostile text and every field included, and a click
// id already stored is skipped.
func TestRecordClicksSQLiteStatement(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ctx := context.Background()
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Raw(func(dc any) error {
		if !models.SQLiteHandleFound(dc) {
			return fmt.Errorf("driver connection %T not recognised: the prepared-statement path would not run", dc)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	w := newWorkspace(t, db, "acme")
	l := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "a", URL: "https://example.com/"}
	if err := db.CreateLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	hostile := []string{"'); DROP TABLE clicks; --", "O'Brien \"q\" `t`", "日本語 🚀", "nul\x00byte", "bad\xffutf8", "", "a\nb", strings.Repeat("long ", 200)}
	// Column k's value changes every 1 + k%4 rows (the statement binds only
	// the values that differ from the previous row's), through empty and
	// long ones.
	mk := func(prefix string, i int) models.Click {
		s := func(k int) string {
			if v := hostile[(i/(1+k%4)+k)%len(hostile)]; v != "" {
				return v + fmt.Sprint(k)
			}
			return ""
		}
		return models.Click{ClickID: fmt.Sprintf("%s%03d", prefix, i), Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC).Add(time.Duration(i) * time.Minute),
			WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: s(1), URL: s(2), IdentityHash: s(3), IP: s(4), Continent: s(5), Country: s(6),
			Region: s(7), City: s(8), Latitude: s(9), Longitude: s(10), Device: s(11), DeviceVendor: s(12), DeviceModel: s(13), Browser: s(14),
			BrowserVersion: s(15), Engine: s(16), EngineVersion: s(17), OS: s(18), OSVersion: s(19), CPUArchitecture: s(20), UA: s(21),
			Bot: i/2%2 == 0, QR: i/3%2 == 0, Trigger: s(22), Referer: s(23), RefererURL: s(24), UTMSource: s(25), UTMMedium: s(26),
			UTMCampaign: s(27), UTMTerm: s(28), UTMContent: s(29)}
	}
	// s: 2×16 rows a step and 9 a row a step (no stored id: the chunked
	// path); u: a batch with an id twice (the chunked path meets it, rolls
	// back, and the row-by-row path skips it); v: stored ids among new
	// ones, in the first chunk. Each against the same rows as literals.
	var viaStmt, viaText, dupStmt, dupText []models.Click
	for i := range 41 {
		viaStmt, viaText = append(viaStmt, mk("s", i)), append(viaText, mk("t", i))
	}
	for i := range 30 {
		dupStmt, dupText = append(dupStmt, mk("u", i)), append(dupText, mk("w", i))
	}
	fallbacks := models.ChunkFallbacks()
	if n, err := db.RecordClicks(ctx, viaStmt); err != nil || n != len(viaStmt) {
		t.Fatalf("prepared statements: n=%d err=%v", n, err)
	}
	if got := models.ChunkFallbacks() - fallbacks; got != 0 {
		t.Fatalf("a batch of new clicks fell back from the chunked insert (%d)", got)
	}
	if n, err := db.RecordClicks(ctx, append(dupStmt, dupStmt[20])); err != nil || n != len(dupStmt) {
		t.Fatalf("a batch with a repeated id: n=%d err=%v, want %d", n, err, len(dupStmt))
	}
	if got := models.ChunkFallbacks() - fallbacks; got != 1 {
		t.Fatalf("%d fallbacks from the chunked insert after a batch with a repeated id, want 1", got)
	}
	if n, err := db.RecordClicks(ctx, viaStmt[:5]); err != nil || n != 0 {
		t.Fatalf("stored ids again: n=%d err=%v, want 0 inserted", n, err)
	}
	var mixed []models.Click
	for i := range 20 {
		mixed = append(mixed, viaStmt[i], mk("v", i))
	}
	if n, err := db.RecordClicks(ctx, mixed); err != nil || n != 20 {
		t.Fatalf("stored ids among new ones: n=%d err=%v, want 20 inserted", n, err)
	}
	if err := db.Tx(ctx, func(tx *models.DB) error {
		if _, err := tx.InsertClicksSQLite(ctx, viaText); err != nil {
			return err
		}
		_, err := tx.InsertClicksSQLite(ctx, dupText)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	cols := strings.Join(models.ClickColumns[1:], " || char(31) || ")
	read := func(prefix string) []string {
		var out []string
		if err := db.Raw("SELECT "+cols+" FROM clicks WHERE click_id LIKE ? ORDER BY click_id", prefix+"%").Scan(&out).Error; err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, p := range [][2]string{{"s", "t"}, {"u", "w"}} {
		a, b := read(p[0]), read(p[1])
		if len(a) != len(b) || len(a) < 30 {
			t.Fatalf("%s: %d and %d rows", p, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s row %d: prepared statement stored %q, literals %q", p[0], i, a[i], b[i])
			}
		}
	}
	var v int64
	if err := db.Raw("SELECT count(*) FROM clicks WHERE click_id LIKE 'v%'").Scan(&v).Error; err != nil || v != 20 {
		t.Fatalf("%d v rows (err %v), want 20", v, err)
	}
}

// The SQLite click writer keeps its connection between batches (its page
// cache stays warm), gives it up after a failed batch, writes on a pooled
// connection while another batch holds it, and DB.Close closes it.
func TestRecordClicksSQLiteKeepsWriterConn(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ctx := context.Background()
	w := newWorkspace(t, db, "acme")
	l := &models.Link{WorkspaceID: w.ID, Domain: "acme.link", Key: "a", URL: "https://example.com/"}
	if err := db.CreateLink(ctx, l); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	batch := func(prefix string) []models.Click {
		var b []models.Click
		for i := range 20 {
			b = append(b, models.Click{ClickID: fmt.Sprintf("%s%03d", prefix, i), Timestamp: at.Add(time.Duration(i) * time.Second),
				WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key, URL: l.URL})
		}
		return b
	}
	record := func(ctx context.Context, prefix string) error {
		n, err := db.RecordClicks(ctx, batch(prefix))
		if err == nil && n != 20 {
			err = fmt.Errorf("%d of 20 clicks inserted", n)
		}
		return err
	}
	if models.WriterConn(db) != nil {
		t.Fatal("a writer connection before the first batch")
	}
	if err := record(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	first := models.WriterConn(db)
	if first == nil {
		t.Fatal("no connection kept after a committed batch")
	}
	if err := record(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got := models.WriterConn(db); got != first {
		t.Fatal("the second batch did not keep the first batch's connection")
	}
	release := models.HoldWriter(db)
	err := record(ctx, "c") // the kept connection is taken: a pooled one writes
	release()
	if err != nil {
		t.Fatalf("batch beside a held writer connection: %v", err)
	}
	if got := models.WriterConn(db); got != first {
		t.Fatal("a batch on a pooled connection replaced the kept one")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := record(cancelled, "d"); err == nil {
		t.Fatal("a batch with a cancelled context succeeded")
	}
	if models.WriterConn(db) != nil {
		t.Fatal("the connection of a failed batch was kept")
	}
	if err := record(ctx, "e"); err != nil {
		t.Fatalf("the batch after a failed one: %v", err)
	}
	if models.WriterConn(db) == nil {
		t.Fatal("no connection kept after the batch that followed a failed one")
	}
	var n int64
	if err := db.Raw("SELECT count(*) FROM clicks").Scan(&n).Error; err != nil || n != 80 {
		t.Fatalf("%d clicks stored (err %v), want 80 (batches a, b, c, e)", n, err)
	}
	sqlDB := db.SQL()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if open := sqlDB.Stats().OpenConnections; open != 0 {
		t.Fatalf("%d connections open after Close (the writer's kept one not closed?)", open)
	}
}
