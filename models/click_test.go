package models_test

import (
	"context"
	"errors"
	"fmt"
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
