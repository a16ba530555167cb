package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/models"
)

// TestClickStoredOnce is issue 34 item 2 through the binary: `relink serve`
// started with environment variables only, RELINK_CLICKHOUSE_URL set. A
// redirect's click is stored once: ClickHouse holds the whole click, the SQL
// database only its slim row (no identity hash) in the attribution table
// (nothing in clicks) and no SQL event aggregate
// counts it, while the link's counter does. A lead tracked with its click
// id through /track/lead is attributed to it (the slim row is what the
// lead copies), and /events lists the lead with the click's link and
// country. Runs on each kind of ClickHouse (chtest).
func TestClickStoredOnce(t *testing.T) {
	chtest.Each(t, func(t *testing.T, chURL string) {
		dbURL := "sqlite:" + filepath.Join(t.TempDir(), "relink.db")
		const short = "go.once.test"
		r := relink(t, map[string]string{"RELINK_DATABASE_URL": dbURL}, "workspace", "create", "--name", "Once", "--slug", "once", "--plan", "business")
		if r.code != 0 {
			t.Fatalf("workspace create: exit %d: %s", r.code, r.stderr)
		}
		_, key := decodeCreated(t, r.stdout)
		in := startInstance(t, "once", map[string]string{
			"RELINK_DATABASE_URL":                  dbURL,
			"RELINK_CLICKHOUSE_URL":                chURL,
			"RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW": "30d",
			"RELINK_SHORT_DOMAIN":                  short,
			"RELINK_CLICK_FLUSH_INTERVAL":          "50ms",
			"RELINK_LOG_FORMAT":                    "json",
		})
		var link struct{ ID string }
		if st := in.call(t, "POST", "/links", key, map[string]any{"url": "https://example.com/shop", "key": "once", "domain": short, "trackConversion": true}, &link); st != 200 {
			t.Fatalf("create link: %d", st)
		}
		if st, _ := in.redirect(t, short, "once", "203.0.113.77"); st != 302 {
			t.Fatalf("redirect: %d", st)
		}
		ch, err := chstore.Open(chURL)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var clickID, identity, chCountry string
		deadline := time.Now().Add(30 * time.Second)
		for clickID == "" {
			if err := ch.Query(ctx, "SELECT click_id, identity_hash, country FROM clicks", func(c []string) error {
				clickID, identity, chCountry = c[0], c[1], c[2]
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if clickID == "" && time.Now().After(deadline) {
				t.Fatal("the click did not reach ClickHouse in 30 s")
			}
			time.Sleep(100 * time.Millisecond)
		}
		if identity == "" {
			t.Fatal("ClickHouse's click has no identity hash")
		}

		db, err := models.Open(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var rows []models.Click
		if err := db.Table(models.AttributionTable).Select(models.AttributionSelect).Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].ClickID != clickID || rows[0].LinkID != link.ID || rows[0].Country != chCountry {
			t.Fatalf("the SQL database's attribution table holds %+v, want the slim row of %s", rows, clickID)
		}
		var inClicks int64
		db.Raw("SELECT COUNT(*) FROM clicks").Scan(&inClicks)
		if inClicks != 0 {
			t.Fatalf("the SQL clicks table holds %d rows, want none", inClicks)
		}
		var aggs, counter int64
		db.Raw("SELECT COUNT(*) FROM event_aggregates WHERE event = ?", models.AggClick).Scan(&aggs)
		db.Raw("SELECT clicks FROM links WHERE id = ?", link.ID).Scan(&counter)
		if aggs != 0 || counter != 1 {
			t.Fatalf("SQL click aggregates %d (want none), link counter %d (want 1)", aggs, counter)
		}

		var lead struct {
			Click    struct{ ID string }
			Customer struct{ ExternalID string }
		}
		if st := in.call(t, "POST", "/track/lead", key, map[string]any{"clickId": clickID, "eventName": "Sign up", "customerExternalId": "cus_once", "mode": "wait"}, &lead); st != 200 || lead.Click.ID != clickID {
			t.Fatalf("track lead: %d %+v", st, lead)
		}
		var leadCountry string
		db.Raw("SELECT country FROM lead_events WHERE click_id = ?", clickID).Scan(&leadCountry)
		if leadCountry != chCountry {
			t.Fatalf("the lead copied country %q, the click's is %q", leadCountry, chCountry)
		}
		// /events counts in ClickHouse: the lead arrives through the outbox.
		deadline = time.Now().Add(30 * time.Second)
		for {
			var evs []struct {
				Click struct{ ID string }
				Link  struct{ ID string }
			}
			in.events(t, "leads", key, &evs)
			if len(evs) == 1 && evs[0].Click.ID == clickID && evs[0].Link.ID == link.ID {
				break
			}
			if len(evs) > 1 || time.Now().After(deadline) {
				t.Fatalf("/events?event=leads = %+v", evs)
			}
			time.Sleep(time.Second)
		}
		// The click itself: /events?event=clicks from ClickHouse.
		var clicks []struct{ Click struct{ ID string } }
		if in.events(t, "clicks", key, &clicks); len(clicks) != 1 || clicks[0].Click.ID != clickID {
			t.Fatalf("/events?event=clicks: %+v", clicks)
		}
	})
}

// events asks GET /events for the last 24 hours' events of a kind, waiting
// out the analytics rate limit.
func (in *instance) events(t *testing.T, event, key string, out any) {
	t.Helper()
	for range 30 {
		st := in.call(t, "GET", "/events?event="+event+"&interval=24h", key, nil, out)
		if st == 200 {
			return
		}
		if st != 429 {
			t.Fatalf("%s: events %s: %d", in.name, event, st)
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("%s: events %s: rate limited for 30 s", in.name, event)
}
