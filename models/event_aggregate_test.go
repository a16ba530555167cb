package models_test

import (
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestURLQuery: the url_query dimension cuts a URL at its first '?' the
// same way in Go (the ingest hooks) and in SQL (the backfill, rebuilds and
// the raw analytics path), multi-byte characters before the cut included.
func TestURLQuery(t *testing.T) {
	cases := map[string]string{
		"https://a.example/p":                             "",
		"https://a.example/p?utm_source=x&utm_medium=y":   "?utm_source=x&utm_medium=y",
		"https://a.example/p?":                            "?",
		"https://a.example/ünïcödé/日本?utm_term=shoes#top": "?utm_term=shoes#top",
		"https://a.example/#/route?utm_source=a?b":        "?utm_source=a?b",
		"": "",
	}
	for in, want := range cases {
		if got := models.URLQuery(in); got != want {
			t.Fatalf("URLQuery(%q) = %q, want %q", in, got, want)
		}
	}
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		for in, want := range cases {
			var got string
			q := "SELECT " + models.URLQuerySQL(db.Dialect, "url") + " FROM (SELECT CAST(? AS TEXT) AS url) t"
			if err := db.Raw(q, in).Scan(&got).Error; err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%s: URLQuerySQL(%q) = %q, want %q", db.Dialect, in, got, want)
			}
		}
	})
}

// TestFoldAggregatesGrains: every event lands in its hour, its UTC day and
// its ISO week (Monday 00:00 UTC) for every dimension but the totals.
func TestFoldAggregatesGrains(t *testing.T) {
	at := time.Date(2026, 3, 1, 23, 30, 0, 0, time.FixedZone("x", -5*3600)) // Monday 04:30 UTC
	rows := models.FoldAggregates([]models.AggregateEvent{{WorkspaceID: "w", Event: models.AggClick, LinkID: "l", Timestamp: at,
		Columns: map[string]string{"url": "https://a.example/?utm_source=x", "country": "US"}}})
	got := map[string]time.Time{}
	for _, r := range rows {
		got[r.Dim+"="+r.Value] = r.Hour
	}
	hour := time.Date(2026, 3, 2, 4, 0, 0, 0, time.UTC)
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	for key, want := range map[string]time.Time{
		"total=": hour, "link=l": hour, "link@day=l": day, "link@week=l": day,
		"country=US": hour, "country@day=US": day, "country@week=US": day,
		"url_query=?utm_source=x": hour, "url_query@day=?utm_source=x": day, "url_query@week=?utm_source=x": day,
	} {
		if h, ok := got[key]; !ok || !h.Equal(want) {
			t.Fatalf("%s: hour %v (present %v), want %v; rows %v", key, h, ok, want, got)
		}
	}
	if _, ok := got["total@week="]; ok || len(rows) != 1+3+3*(len(models.AggregateDims)+1) {
		t.Fatalf("%d rows: %v", len(rows), got)
	}
	sunday := time.Date(2026, 3, 8, 23, 59, 0, 0, time.UTC)
	if w := models.WeekStart(sunday); !w.Equal(day) {
		t.Fatalf("WeekStart(%s) = %s, want %s", sunday, w, day)
	}
}
