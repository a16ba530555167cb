package api_test

import (
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestLinkWebhookIDs: POST /links with webhookIds naming the workspace's
// webhooks is accepted and adds the link to their link set (Dub's
// process-link.ts and create-link.ts: LinkWebhook rows); an unknown id is
// a 422 naming it; a Pro workspace is refused with Dub's plan message;
// PATCH replaces the set; the answer carries the ids it was given.
func TestLinkWebhookIDs(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		e.workspace("pro", models.PlanPro)
		e.workspace("other", models.PlanBusiness)
		first := e.ok(200, "acme", "POST", "/links", `{"url":"https://acme.com/a","key":"a"}`).json(t)["id"].(string)
		wh := e.ok(201, "acme", "POST", "/webhooks", `{"name":"Clicks","url":"https://hooks.example/c","triggers":["link.clicked"],"linkScope":"links","linkIds":["`+first+`"]}`).json(t)["id"].(string)
		foreign := e.ok(201, "other", "POST", "/webhooks", `{"name":"X","url":"https://hooks.example/x","triggers":["link.created"]}`).json(t)["id"].(string)

		l := e.ok(200, "acme", "POST", "/links", `{"url":"https://acme.com/b","key":"b","webhookIds":["`+wh+`","`+wh+`"]}`).json(t)
		if ids, _ := l["webhookIds"].([]any); len(ids) != 1 || ids[0] != wh {
			t.Fatalf("webhookIds in the answer %v, want [%s]", l["webhookIds"], wh)
		}
		linked := e.ok(200, "acme", "GET", "/webhooks/"+wh+"/links", "").body
		for _, id := range []string{first, l["id"].(string)} {
			if !contains(linked, id) {
				t.Fatalf("webhook links %s lack %s", linked, id)
			}
		}
		e.expectErr(e.do("acme", "POST", "/links", `{"url":"https://acme.com/c","webhookIds":["`+wh+`","wh_nope","`+foreign+`"]}`),
			422, "unprocessable_entity", "Invalid webhookIds detected: wh_nope, "+foreign)
		e.expectErr(e.do("pro", "POST", "/links", `{"url":"https://acme.com/c","webhookIds":["wh_x"]}`),
			403, "forbidden", "You can only use webhooks on a Business plan and above. Upgrade to Business to use this feature.")
		// An empty list is accepted anywhere; PATCH with [] clears the set.
		e.ok(200, "pro", "POST", "/links", `{"url":"https://acme.com/c","webhookIds":[]}`)
		e.ok(200, "acme", "PATCH", "/links/"+l["id"].(string), `{"webhookIds":[]}`)
		if linked := e.ok(200, "acme", "GET", "/webhooks/"+wh+"/links", "").body; contains(linked, l["id"].(string)) || !contains(linked, first) {
			t.Fatalf("after PATCH webhookIds [], webhook links %s", linked)
		}
	})
}

func contains(body []byte, s string) bool { return len(s) > 0 && strings.Contains(string(body), s) }

// TestPartnerLookupParity: GET /partners?partnerIds=a,b keeps those
// partners (Dub's partnerIds filter, comma-separated or repeated), GET
// /partners/{partnerId} answers one (Dub's [partnerId]/route.ts, 404
// "Partner not found." for another workspace's or an unknown id); the
// e-mail is kept as given and matched case-insensitively; the default
// link's key is Dub's slugify of the name.
func TestPartnerLookupParity(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newProgramEnv(t, db)
		ann := e.ok(201, "acme", "POST", "/partners", `{"email":"Ann.Lee@Example.COM","name":"Ännä Lée-Smith"}`).json(t)
		if ann["email"] != "Ann.Lee@Example.COM" {
			t.Errorf("email %v, want it as given", ann["email"])
		}
		onlyLink(t, ann, "aennae-lee-smith")
		again := e.ok(201, "acme", "POST", "/partners", `{"email":"ann.lee@example.com"}`).json(t)
		if again["id"] != ann["id"] {
			t.Errorf("the same address in another case made partner %v, want %v", again["id"], ann["id"])
		}
		camel := e.ok(201, "acme", "POST", "/partners", `{"email":"jd@example.com","name":"JohnDoe & Co"}`).json(t)
		onlyLink(t, camel, "john-doe-and-co")
		if got := e.ok(200, "acme", "GET", "/partners?email=ANN.LEE@example.com", "").list(t); len(got) != 1 || got[0]["id"] != ann["id"] {
			t.Errorf("email filter %v", got)
		}

		ids := ann["id"].(string) + "," + e.partner
		for _, q := range []string{"?partnerIds=" + ids, "?partnerIds=" + ann["id"].(string) + "&partnerIds=" + e.partner} {
			got := e.ok(200, "acme", "GET", "/partners"+q, "").list(t)
			if len(got) != 2 {
				t.Fatalf("GET /partners%s: %d partners, want 2", q, len(got))
			}
			for _, p := range got {
				if p["id"] != ann["id"] && p["id"] != e.partner {
					t.Errorf("GET /partners%s returned %v", q, p["id"])
				}
			}
		}
		one := e.ok(200, "acme", "GET", "/partners/"+e.partner, "").json(t)
		if one["id"] != e.partner || one["email"] != "pat@example.com" || len(one["links"].([]any)) != 1 {
			t.Errorf("GET /partners/{id} %v", one)
		}
		for _, k := range []string{"lastLeadAt", "platforms", "discount", "industryInterests", "salesChannels", "totalCommissions"} {
			if _, ok := one[k]; !ok {
				t.Errorf("GET /partners/{id} lacks %q", k)
			}
		}
		e.expectErr(e.do("acme", "GET", "/partners/pn_nope", ""), 404, "not_found", "Partner not found.")
		e.expectErr(e.do("other", "GET", "/partners/"+e.partner, ""), 404, "not_found", "Partner not found.")
	})
}
