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

// TestFourWeekStart: four-week blocks are four whole ISO weeks counted from
// Monday 1970-01-05 (ClickHouse's intDiv(seconds - 345600, 2419200) *
// 2419200 + 345600), before the epoch too.
func TestFourWeekStart(t *testing.T) {
	for _, c := range []struct{ at, want string }{
		{"2026-10-31T23:30:00Z", "2026-10-26T00:00:00Z"},
		{"2026-11-22T23:59:59Z", "2026-10-26T00:00:00Z"},
		{"2026-11-23T00:00:00Z", "2026-11-23T00:00:00Z"},
		{"1970-01-05T00:00:00Z", "1970-01-05T00:00:00Z"},
		{"1970-01-04T23:00:00Z", "1969-12-08T00:00:00Z"},
	} {
		at, _ := time.Parse(time.RFC3339, c.at)
		if got := models.FourWeekStart(at); got.Format(time.RFC3339) != c.want {
			t.Errorf("FourWeekStart(%s) = %s, want %s", c.at, got.Format(time.RFC3339), c.want)
		}
	}
	for h := range 24 * 60 {
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * 7 * time.Hour)
		b := models.FourWeekStart(at)
		if b.After(at) || !at.Before(b.AddDate(0, 0, 28)) || !b.Equal(models.WeekStart(b)) || (b.Unix()-345600)%2419200 != 0 {
			t.Fatalf("FourWeekStart(%s) = %s", at, b)
		}
	}
}

// TestRevisionRows: every aggregate write counts one revision per
// workspace, kind and UTC day whose per-link or per-URL rows it changes
// (the sealed vectors' staleness check), and a rebuild drops the vectors.
func TestRevisionRows(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := t.Context()
		w, err := db.CreateWorkspace(ctx, "Rev", "rev", models.PlanPro)
		if err != nil {
			t.Fatal(err)
		}
		l := &models.Link{WorkspaceID: w.ID, Domain: "rev.link", Key: "a", URL: "https://example.com/a"}
		if err := db.CreateLink(ctx, l); err != nil {
			t.Fatal(err)
		}
		day1 := time.Date(2026, 11, 2, 23, 30, 0, 0, time.UTC)
		day2 := day1.Add(2 * time.Hour) // the next UTC day
		click := func(id string, at time.Time) models.Click {
			return models.Click{ClickID: id, Timestamp: at, WorkspaceID: w.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key, URL: l.URL, Country: "US"}
		}
		revs := func() map[string]int64 {
			var rows []models.EventAggregate
			if err := db.Where("workspace_id = ? AND dim = ?", w.ID, models.DimRevision).Find(&rows).Error; err != nil {
				t.Fatal(err)
			}
			out := map[string]int64{}
			for _, r := range rows {
				out[r.Event+" "+r.Hour.UTC().Format(time.DateOnly)] = r.Count
			}
			return out
		}
		for _, batch := range [][]models.Click{{click("c1", day1), click("c2", day1), click("c3", day2)}, {click("c4", day2)}} {
			if _, err := db.RecordClicks(ctx, batch, models.AggregateClicks); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]int64{"click 2026-11-02": 1, "click 2026-11-03": 2}
		if got := revs(); len(got) != len(want) || got["click 2026-11-02"] != 1 || got["click 2026-11-03"] != 2 {
			t.Fatalf("revisions %v, want %v", got, want)
		}
		if err := db.Exec("INSERT INTO aggregate_vectors (workspace_id, event, dim, hour, rev, data) VALUES (?, ?, ?, ?, ?, ?)",
			w.ID, models.AggClick, "link@day", models.DayStart(day1), 1, []byte{1}).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.RebuildAggregates(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := db.Raw("SELECT COUNT(*) FROM aggregate_vectors WHERE workspace_id = ?", w.ID).Scan(&n).Error; err != nil || n != 0 {
			t.Fatalf("after a rebuild: %d vectors (%v)", n, err)
		}
	})
}
