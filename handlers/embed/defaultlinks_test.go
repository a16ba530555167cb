package embed_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

type embedLink struct {
	ID                        string  `json:"id"`
	Domain                    string  `json:"domain"`
	Key                       string  `json:"key"`
	URL                       string  `json:"url"`
	PartnerGroupDefaultLinkID *string `json:"partnerGroupDefaultLinkId"`
}

func TestDefaultLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newEnv(t, db, "acme")
		prog, err := db.DefaultProgram(ctx, e.ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		g, err := db.GroupByIDOrSlug(ctx, e.ws.ID, prog.ID, models.DefaultGroupSlug)
		if err != nil {
			t.Fatal(err)
		}
		// Carol enrolls while the group's default links are set to none:
		// she gets none (the program's link is the default only while the
		// group's list was never set).
		g.DefaultLinks = models.Some([]models.DefaultLink{})
		if err := db.SaveGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		e.api(201, "POST", "/partners", `{"email":"carol@partners.example","name":"carol","tenantId":"carol"}`)
		tokC := e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"carol"}`)["publicToken"].(string)
		g.DefaultLinks = models.Some([]models.DefaultLink{{Domain: appHost, URL: "https://shop.example/welcome"}})
		g.UTMTemplate = models.Some(map[string]string{"utm_source": "partners"})
		if err := db.SaveGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		g, _ = db.GroupByID(ctx, e.ws.ID, g.ID)
		dlID := g.DefaultLinks.V[0].ID
		if !strings.HasPrefix(dlID, "pgdl_") {
			t.Fatalf("default link id %q not assigned on save", dlID)
		}

		links := func(tok string) []embedLink {
			t.Helper()
			r := e.do(appHost, "GET", "/api/embed/referrals/links", "", bearer(tok))
			var out []embedLink
			if err := json.Unmarshal([]byte(r.body), &out); err != nil {
				t.Fatalf("%d %s", r.status, r.body)
			}
			return out
		}

		t.Run("enrolment creates the default link and records it", func(t *testing.T) {
			e.api(201, "POST", "/partners", `{"email":"dana@partners.example","name":"dana","tenantId":"dana","username":"dana"}`)
			tok := e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"dana"}`)["publicToken"].(string)
			ls := links(tok)
			if len(ls) != 1 || ls[0].PartnerGroupDefaultLinkID == nil || *ls[0].PartnerGroupDefaultLinkID != dlID {
				t.Fatalf("dana's links %+v, want one from %s", ls, dlID)
			}
			if ls[0].Key != "dana" || !strings.HasPrefix(ls[0].URL, "https://shop.example/welcome") || !strings.Contains(ls[0].URL, "utm_source=partners") {
				t.Errorf("default link %+v", ls[0])
			}
			// Its destination is fixed; its key is not.
			r := e.do(appHost, "PATCH", "/api/embed/referrals/links/"+ls[0].ID, `{"url":"https://shop.example/other"}`, bearer(tok))
			if r.status != 403 || !strings.Contains(r.body, `"code":"forbidden"`) || !strings.Contains(r.body, "You cannot update the destination URL of your default link.") {
				t.Errorf("destination change: %d %s", r.status, r.body)
			}
			r = e.do(appHost, "PATCH", "/api/embed/referrals/links/"+ls[0].ID, `{"key":"dana-shop"}`, bearer(tok))
			var up embedLink
			_ = json.Unmarshal([]byte(r.body), &up)
			if r.status != 200 || up.Key != "dana-shop" || up.URL != ls[0].URL || up.PartnerGroupDefaultLinkID == nil {
				t.Errorf("key change: %d %s", r.status, r.body)
			}
			// The edit form hides the destination of a default link.
			f := e.do(appHost, "GET", "/embed/referrals/fragments/links?form="+ls[0].ID, "", bearer(tok))
			d := doc(t, f.body)
			if d.Find(`[data-testid="link-form"]`).Length() != 1 || d.Find(`select[name="domain"]`).Length() != 0 {
				t.Errorf("default link form shows a destination: %s", f.body)
			}
		})

		t.Run("embed create without a destination fills the missing default link", func(t *testing.T) {
			r := e.do(appHost, "POST", "/api/embed/referrals/links", `{"key":"carol"}`, bearer(tokC))
			var l embedLink
			_ = json.Unmarshal([]byte(r.body), &l)
			if r.status != 201 || l.PartnerGroupDefaultLinkID == nil || *l.PartnerGroupDefaultLinkID != dlID || !strings.HasPrefix(l.URL, "https://shop.example/welcome") {
				t.Fatalf("first link: %d %s", r.status, r.body)
			}
			// The default link exists now: the next one is an additional link.
			r = e.do(appHost, "POST", "/api/embed/referrals/links", `{"key":"carol-2"}`, bearer(tokC))
			_ = json.Unmarshal([]byte(r.body), &l)
			if r.status != 201 || l.PartnerGroupDefaultLinkID != nil {
				t.Errorf("second link: %d %s", r.status, r.body)
			}
			r = e.do(appHost, "POST", "/api/embed/referrals/links", `{"key":"carol-3","url":"https://shop.example/sale"}`, bearer(tokC))
			_ = json.Unmarshal([]byte(r.body), &l)
			if r.status != 201 || l.PartnerGroupDefaultLinkID != nil {
				t.Errorf("link with a destination: %d %s", r.status, r.body)
			}
			// An additional link's destination may change.
			r = e.do(appHost, "PATCH", "/api/embed/referrals/links/"+l.ID, `{"url":"https://shop.example/sale-2"}`, bearer(tokC))
			if r.status != 200 {
				t.Errorf("additional link destination: %d %s", r.status, r.body)
			}
			if n := len(links(tokC)); n != 3 {
				t.Errorf("carol has %d links", n)
			}
		})
	})
}
