package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// clickOn records a click on link id with the given geo, through the
// aggregates hook as the pipeline does.
func (e *linkEnv) clickOn(ws, id, country, region, city, continent string) {
	e.t.Helper()
	ctx := context.Background()
	l, err := e.db.LinkByID(ctx, e.ws[ws].ID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	c := models.Click{ClickID: ids.Nano(16), Timestamp: time.Now().Add(-time.Hour), WorkspaceID: l.WorkspaceID, LinkID: l.ID,
		Domain: l.Domain, Key: l.Key, URL: l.URL, Country: country, Region: region, City: city, Continent: continent,
		Device: "Desktop", Browser: "Chrome", OS: "Mac OS", Trigger: "link", Referer: "(direct)", RefererURL: "(direct)"}
	if _, err := e.db.RecordClicks(ctx, []models.Click{c}, models.AggregateClicks); err != nil {
		e.t.Fatal(err)
	}
}

// TestShortLinkOneBuilder: on a dev server the default short domain is plain
// http, and every answer carrying a shortLink says so (issue 13 item 10):
// the link object, top_links rows and the link object of /events.
func TestShortLinkOneBuilder(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanEnterprise)
		l := e.ok(200, "acme", "POST", "/links", `{"url":"https://shop.example/","domain":"localhost:8080","key":"dev"}`).json(t)
		want := "http://localhost:8080/dev"
		if l["shortLink"] != want {
			t.Fatalf("link shortLink %v, want %s", l["shortLink"], want)
		}
		e.clickOn("acme", l["id"].(string), "US", "CA", "San Francisco", "NA")
		top := e.ok(200, "acme", "GET", "/analytics?groupBy=top_links&interval=24h", "").list(t)
		if len(top) != 1 || top[0]["shortLink"] != want {
			t.Fatalf("top_links %v, want shortLink %s", top, want)
		}
		ev := e.ok(200, "acme", "GET", "/events?event=clicks&interval=24h", "").list(t)
		if len(ev) != 1 || ev[0]["link"].(map[string]any)["shortLink"] != want {
			t.Fatalf("events %v", ev)
		}
		// The event's link object builds qrCode as the link object does
		// (spec/analytics.md §6: the short link literally, not encoded).
		if qr := ev[0]["link"].(map[string]any)["qrCode"].(string); qr != l["qrCode"] || !strings.HasSuffix(qr, "/qr?url=http://localhost:8080/dev?qr=1") {
			t.Fatalf("event qrCode %s", qr)
		}
		// A custom domain stays https.
		e.ok(201, "acme", "POST", "/domains", `{"slug":"acme.link"}`)
		c := e.ok(200, "acme", "POST", "/links", `{"url":"https://shop.example/","domain":"acme.link","key":"x"}`).json(t)
		if c["shortLink"] != "https://acme.link/x" {
			t.Fatalf("custom domain shortLink %v", c["shortLink"])
		}
	})
}

// TestGeoGroupingsDropUnknown: clicks with no known location count in the
// totals but in no geo row, for every geo grouping alike (issue 13 item 10,
// spec/analytics.md §4.5).
func TestGeoGroupingsDropUnknown(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanEnterprise)
		id := e.ok(200, "acme", "POST", "/links", `{"url":"https://shop.example/"}`).json(t)["id"].(string)
		e.clickOn("acme", id, "US", "CA", "San Francisco", "NA")
		e.clickOn("acme", id, "Unknown", "Unknown", "Unknown", "")
		e.clickOn("acme", id, "DE", "Unknown", "Unknown", "EU") // country known, region and city not
		if n := e.ok(200, "acme", "GET", "/analytics?interval=24h", "").json(t)["clicks"]; n != float64(3) {
			t.Fatalf("total %v, want 3", n)
		}
		for groupBy, wantRows := range map[string]int{"countries": 2, "regions": 1, "cities": 1, "continents": 2} {
			rows := e.ok(200, "acme", "GET", "/analytics?interval=24h&groupBy="+groupBy, "").list(t)
			for _, r := range rows {
				for _, k := range []string{"country", "region", "city", "continent"} {
					v, ok := r[k].(string)
					if ok && (v == "Unknown" || v == "" || strings.HasSuffix(v, "-Unknown")) {
						t.Errorf("%s: row %v has an unknown %s", groupBy, r, k)
					}
				}
			}
			if len(rows) != wantRows {
				t.Errorf("%s: %d rows %v, want %d", groupBy, len(rows), rows, wantRows)
			}
		}
	})
}

// TestPartnerLinksCarryKeyUser: links made through POST /partners,
// POST /partners/links and PUT /partners/links/upsert carry the key's user
// as userId (issue 13 item 10).
func TestPartnerLinksCarryKeyUser(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newLinkEnv(t, db)
		acme := e.workspace("acme", models.PlanAdvanced)
		prog, _ := db.DefaultProgram(ctx, acme.ID)
		grp, _ := db.GroupByIDOrSlug(ctx, acme.ID, prog.ID, models.DefaultGroupSlug)
		domain, dest := "localhost:8080", "https://shop.example/"
		prog.Domain, prog.URL = &domain, &dest
		if err := db.SaveProgram(ctx, prog); err != nil {
			t.Fatal(err)
		}
		grp.DefaultLinks = models.JSONCol[[]models.DefaultLink]{V: []models.DefaultLink{{ID: "pgdl_1", Domain: domain, URL: dest}}, Valid: true}
		grp.AdditionalLinks = models.JSONCol[[]models.AdditionalLink]{V: []models.AdditionalLink{{Domain: "shop.example", ValidationMode: "domain"}}, Valid: true}
		if err := db.SaveGroup(ctx, grp); err != nil {
			t.Fatal(err)
		}
		user := e.ok(200, "acme", "POST", "/links", `{"url":"https://shop.example/plain"}`).json(t)["userId"]
		if user == nil {
			t.Fatal("a plain link has no userId")
		}
		p := e.ok(201, "acme", "POST", "/partners", `{"email":"pat@example.com","name":"Pat"}`).json(t)
		links := p["links"].([]any)
		if len(links) != 1 {
			t.Fatalf("default links %v", p["links"])
		}
		def, _ := db.LinkByID(ctx, acme.ID, links[0].(map[string]any)["id"].(string))
		if def.UserID == nil || *def.UserID != user {
			t.Errorf("default link userId %v, want %v", def.UserID, user)
		}
		l := e.ok(201, "acme", "POST", "/partners/links", `{"partnerId":"`+p["id"].(string)+`","url":"https://shop.example/a"}`).json(t)
		if l["userId"] != user {
			t.Errorf("POST /partners/links userId %v, want %v", l["userId"], user)
		}
		u := e.ok(200, "acme", "PUT", "/partners/links/upsert", `{"partnerId":"`+p["id"].(string)+`","url":"https://shop.example/b"}`).json(t)
		if u["userId"] != user {
			t.Errorf("upsert userId %v, want %v", u["userId"], user)
		}
	})
}
