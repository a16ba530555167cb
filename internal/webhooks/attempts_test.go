package webhooks

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestInsertAttemptsRoundTrips: delivery-log rows written by insertAttempts
// (SQL literals on SQLite, gorm batches on PostgreSQL) read back as written,
// more than one INSERT's worth, with quotes, a NUL byte and invalid UTF-8
// in a receiver's response stored as U+FFFD instead of cutting the
// statement short (or, on PostgreSQL, failing the round); the retention cut
// by created_at still finds them.
func TestInsertAttemptsRoundTrips(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		ws := workspace(t, db, models.PlanPro)
		h := hook(t, db, ws, "https://example.com/hook", LinkClicked)
		now := time.Date(2026, 11, 24, 4, 30, 0, 123456000, time.UTC)
		logs := make([]Attempt, attemptsPerInsert+7)
		for i := range logs {
			logs[i] = Attempt{DeliveryID: int64(i + 1), WebhookID: h.ID, EventID: fmt.Sprintf("evt_%d", i), Event: LinkClicked,
				MessageID: fmt.Sprintf("msg_%d", i), URL: h.URL, HTTPStatus: 200 + i%3,
				RequestBody: `{"q":"it's \"quoted\"","url":"https://a.example/?x=1&y='2'"}`, ResponseBody: "ok",
				DurationMS: int64(i), CreatedAt: now}
		}
		logs[3].ResponseBody = "nul\x00here and bad \xff byte; ' quote"
		logs[4].Error = "dial tcp: ' refused"
		if err := db.Tx(ctx, func(tx *models.DB) error { return insertAttempts(ctx, tx, logs) }); err != nil {
			t.Fatal(err)
		}
		var got []Attempt
		if err := db.Where("webhook_id = ?", h.ID).Order("delivery_id").Find(&got).Error; err != nil {
			t.Fatal(err)
		}
		if len(got) != len(logs) {
			t.Fatalf("%d rows read back, want %d", len(got), len(logs))
		}
		for i := range got {
			want := logs[i]
			if i == 3 {
				want.ResponseBody = "nul\uFFFDhere and bad \uFFFD byte; ' quote"
			}
			g := got[i]
			if g.DeliveryID != want.DeliveryID || g.EventID != want.EventID || g.MessageID != want.MessageID || g.HTTPStatus != want.HTTPStatus ||
				g.RequestBody != want.RequestBody || g.ResponseBody != want.ResponseBody || g.Error != want.Error ||
				g.DurationMS != want.DurationMS || g.URL != want.URL || g.Event != want.Event || !g.CreatedAt.Equal(now) {
				t.Errorf("row %d: read back %+v, want %+v", i, g, want)
			}
		}
		var older, newer int64
		db.Model(&Attempt{}).Where("webhook_id = ? AND created_at < ?", h.ID, now.Add(time.Second)).Count(&older)
		db.Model(&Attempt{}).Where("webhook_id = ? AND created_at < ?", h.ID, now.Add(-time.Second)).Count(&newer)
		if older != int64(len(logs)) || newer != 0 {
			t.Errorf("created_at cuts: %d before now+1s (want %d), %d before now-1s (want 0)", older, len(logs), newer)
		}
	})
}
