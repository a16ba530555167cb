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
