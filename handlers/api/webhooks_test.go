package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/models"
)

func TestWebhooksAPI(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		e.workspace("other", models.PlanBusiness)
		e.workspace("small", models.PlanPro)
		e.scopedKey("all", "acme", "apis.all")
		e.scopedKey("reader", "acme", "webhooks.read")

		r := e.ok(201, "acme", "POST", "/webhooks", `{"name":"Prod","url":"example.com/hook","triggers":["link.created","link.clicked"],"linkScope":"workspace"}`)
		var w map[string]any
		json.Unmarshal(r.body, &w)
		keys := []string{"id", "name", "url", "secret", "triggers", "linkScope", "disabledAt", "installationId"}
		for _, k := range keys {
			if _, ok := w[k]; !ok {
				t.Fatalf("missing %s: %s", k, r.body)
			}
		}
		if len(w) != len(keys) || w["url"] != "https://example.com/hook" || !strings.HasPrefix(w["secret"].(string), "whsec_") ||
			!strings.HasPrefix(w["id"].(string), "wh_") || w["linkScope"] != "workspace" {
			t.Fatalf("created %s", r.body)
		}
		id := w["id"].(string)

		e.expectErr(e.do("acme", "POST", "/webhooks", `{"name":"Dup","url":"https://example.com/hook","triggers":[]}`),
			409, "conflict", "A Webhook with this URL already exists.")
		e.expectErr(e.do("acme", "POST", "/webhooks", `{"name":"X","url":"https://x.example","triggers":["link.clicked"]}`),
			422, "unprocessable_entity", `custom: linkScope: "linkScope" is required when the "link.clicked" trigger is enabled.`)
		e.expectErr(e.do("acme", "POST", "/webhooks", `{"name":"X","url":"https://x.example","triggers":["link.created"],"linkScope":"workspace"}`),
			422, "unprocessable_entity", `custom: linkScope: "linkScope" can only be set when the "link.clicked" trigger is enabled.`)
		e.expectErr(e.do("acme", "POST", "/webhooks", `{"name":"X","url":"https://x.example","triggers":["nope"]}`),
			422, "unprocessable_entity", `invalid_value: triggers[0]: Invalid option: expected one of "link.created"|"link.updated"|"link.deleted"|"link.clicked"|"lead.created"|"sale.created"|"partner.application_submitted"|"partner.enrolled"|"partner.merged"|"commission.created"|"bounty.created"|"bounty.updated"|"payout.confirmed"|"discount_code.created"|"discount_code.deleted"`)
		e.expectErr(e.do("acme", "POST", "/webhooks", `{"url":"https://x.example","triggers":[]}`),
			422, "unprocessable_entity", "invalid_type: name: Invalid input: expected string, received undefined")
		e.expectErr(e.do("acme", "POST", "/webhooks", `{"name":"X","url":"not a url","triggers":[]}`),
			422, "unprocessable_entity", "custom: url: Invalid URL")
		e.expectErr(e.do("acme", "POST", "/webhooks", `{"name":"X","url":"https://x.example","triggers":["link.clicked"],"linkScope":"links","linkIds":["link_nope"]}`),
			400, "bad_request", "Invalid link IDs provided. Please check the links you are adding the webhook to.")
		e.expectErr(e.do("acme", "POST", "/webhooks", `{bad`), 400, "bad_request",
			"Invalid JSON format in request body. Please ensure the request body is a valid JSON object.")

		// PATCH: triggers with link.clicked need linkScope in the same body.
		e.expectErr(e.do("acme", "PATCH", "/webhooks/"+id, `{"triggers":["link.clicked"]}`),
			422, "unprocessable_entity", `custom: linkScope: "linkScope" is required when the "link.clicked" trigger is enabled.`)
		r = e.ok(200, "acme", "PATCH", "/webhooks/"+id, `{"name":"Renamed","triggers":["link.updated"]}`)
		if m := r.json(t); m["name"] != "Renamed" || m["linkScope"] != nil || m["secret"] != w["secret"] {
			t.Fatalf("patched %s", r.body)
		}

		if l := e.ok(200, "acme", "GET", "/webhooks", "").list(t); len(l) != 1 || l[0]["id"] != id {
			t.Fatalf("list %v", l)
		}
		e.ok(200, "reader", "GET", "/webhooks/"+id, "")
		e.ok(200, "acme", "GET", "/webhooks/"+id+"/links", "")
		e.ok(200, "acme", "GET", "/webhooks/"+id+"/events", "")
		e.expectErr(e.do("reader", "POST", "/webhooks", `{"name":"X","url":"https://y.example","triggers":[]}`), 403, "forbidden",
			"The provided key does not have the required permissions for this endpoint on the workspace '"+e.ws["acme"].PublicID()+"'. Having the 'webhooks.write' permission would allow this request to continue.")
		if r := e.do("all", "GET", "/webhooks", ""); r.status != 403 {
			t.Fatalf("apis.all key read webhooks: %d", r.status)
		}
		e.expectErr(e.do("other", "GET", "/webhooks/"+id, ""), 404, "not_found", webhooks.MsgNotFound)
		e.expectErr(e.do("other", "DELETE", "/webhooks/"+id, ""), 404, "not_found", webhooks.MsgNotFound)
		e.expectErr(e.do("small", "GET", "/webhooks", ""), 403, "forbidden", "Unauthorized: Need higher plan.")

		if m := e.ok(200, "acme", "DELETE", "/webhooks/"+id, "").json(t); m["id"] != id {
			t.Fatalf("delete %v", m)
		}
		e.ok(404, "acme", "GET", "/webhooks/"+id, "")
	})
}

// outbox returns the events written to the outbox, in order.
func outbox(t *testing.T, db *models.DB) []webhooks.Delivery {
	var rows []webhooks.Delivery
	if err := db.Order("id").Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLinkEvents: link.created/updated/deleted fire from exactly the
// operations spec/webhooks.md §3.2 lists, in the link's webhook form.
func TestLinkEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		e.ok(201, "acme", "POST", "/webhooks", `{"name":"All","url":"https://example.com/h","triggers":["link.created","link.updated","link.deleted"]}`)

		l := e.ok(200, "acme", "POST", "/links", `{"url":"https://acme.com/a","key":"a"}`).json(t)
		rows := outbox(t, db)
		if len(rows) != 1 || rows[0].Event != "link.created" {
			t.Fatalf("after create: %+v", rows)
		}
		var env struct {
			ID, Event string
			Data      map[string]any
		}
		json.Unmarshal([]byte(rows[0].Body), &env)
		if !strings.HasPrefix(env.ID, "evt_") || len(env.ID) != 29 || env.Data["id"] != l["id"] {
			t.Fatalf("envelope %s", rows[0].Body)
		}
		for _, k := range []string{"identifier", "linkRetentionCleanupDisabledAt"} {
			if _, ok := env.Data[k]; ok {
				t.Fatalf("webhook link form has %s", k)
			}
		}
		for _, k := range []string{"testVariants", "testStartedAt", "webhookIds", "qrCode", "workspaceId"} {
			if _, ok := env.Data[k]; !ok {
				t.Fatalf("webhook link form lacks %s", k)
			}
		}

		id := l["id"].(string)
		e.ok(200, "acme", "PATCH", "/links/"+id, `{"url":"https://acme.com/a"}`) // no change
		if n := len(outbox(t, db)); n != 1 {
			t.Fatalf("a no-change update emitted: %d rows", n)
		}
		e.ok(200, "acme", "PATCH", "/links/"+id, `{"url":"https://acme.com/b"}`)
		e.ok(200, "acme", "PUT", "/links/upsert", `{"url":"https://acme.com/new"}`) // create path: silent
		e.ok(200, "acme", "POST", "/links/bulk", `[{"url":"https://acme.com/bulk"}]`)
		e.ok(200, "acme", "DELETE", "/links/"+id, "")
		var got []string
		for _, r := range outbox(t, db) {
			got = append(got, r.Event)
		}
		if strings.Join(got, ",") != "link.created,link.updated,link.deleted" {
			t.Fatalf("events %v", got)
		}
	})
}

// TestConversionEvents: partner.enrolled, lead.created, commission.created
// and sale.created from the operations of spec/webhooks.md §3.4-3.9, shaped as
// Dub's.
func TestConversionEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newLinkEnv(t, db)
		acme := e.workspace("acme", models.PlanAdvanced)
		prog, _ := db.DefaultProgram(ctx, acme.ID)
		grp, _ := db.GroupByIDOrSlug(ctx, acme.ID, prog.ID, models.DefaultGroupSlug)
		pct := int64(2000)
		if err := db.SetGroupReward(ctx, grp, &models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: &pct}); err != nil {
			t.Fatal(err)
		}
		domain, dest := "localhost:8080", "https://shop.example/"
		prog.Domain, prog.URL = &domain, &dest
		if err := db.SaveProgram(ctx, prog); err != nil {
			t.Fatal(err)
		}
		e.ok(201, "acme", "POST", "/webhooks", `{"name":"Conv","url":"https://example.com/c","triggers":["lead.created","sale.created","partner.enrolled","commission.created"]}`)

		pn := e.ok(201, "acme", "POST", "/partners", `{"email":"pat@example.com","name":"Pat"}`).json(t)
		e.ok(201, "acme", "POST", "/partners", `{"email":"pat@example.com"}`) // existing: no event
		l, _ := db.LinkByID(ctx, acme.ID, onlyLink(t, pn, "pat"))
		click := models.Click{ClickID: ids.Nano(16), Timestamp: time.Now().Add(-time.Minute), WorkspaceID: acme.ID, LinkID: l.ID,
			Domain: l.Domain, Key: l.Key, URL: l.URL, Country: "US"}
		if _, err := db.RecordClicks(ctx, []models.Click{click}); err != nil {
			t.Fatal(err)
		}
		lead := `{"clickId":"` + click.ClickID + `","eventName":"Sign up","customerExternalId":"buyer","customerEmail":"b@example.com"}`
		e.ok(200, "acme", "POST", "/track/lead", lead)
		e.ok(200, "acme", "POST", "/track/lead", lead) // duplicate: nothing
		e.ok(200, "acme", "POST", "/track/sale", `{"customerExternalId":"buyer","amount":10000,"metadata":{"plan":"pro"}}`)

		var events []string
		byEvent := map[string]map[string]json.RawMessage{}
		for _, r := range outbox(t, db) {
			events = append(events, r.Event)
			var env struct{ Data map[string]json.RawMessage }
			json.Unmarshal([]byte(r.Body), &env)
			byEvent[r.Event] = env.Data
		}
		if strings.Join(events, ",") != "partner.enrolled,lead.created,commission.created,sale.created" {
			t.Fatalf("events %v", events)
		}
		pe := byEvent["partner.enrolled"]
		if string(pe["id"]) != `"`+pn["id"].(string)+`"` || string(pe["status"]) != `"approved"` || pe["links"] == nil {
			t.Fatalf("partner.enrolled %v", pe)
		}
		// The partner's link carries the partner without a lead reward too
		// (issue 36: Dub sends it whether or not a lead commission exists).
		ld := byEvent["lead.created"]
		var leadPartner map[string]any
		json.Unmarshal(ld["partner"], &leadPartner)
		if leadPartner["id"] != pn["id"] || leadPartner["email"] != "pat@example.com" {
			t.Fatalf("lead.created partner %s, want Pat without a lead reward", ld["partner"])
		}
		if string(ld["eventName"]) != `"Sign up"` || string(ld["metadata"]) != "null" {
			t.Fatalf("lead.created %v", ld)
		}
		var cust map[string]any
		json.Unmarshal(ld["customer"], &cust)
		if _, ok := cust["country"]; ok || cust["name"] != "b@example.com" || cust["externalId"] != "buyer" {
			t.Fatalf("lead customer %v", cust)
		}
		var clk map[string]any
		json.Unmarshal(ld["click"], &clk)
		if clk["id"] != click.ClickID || clk["country"] != "US" || clk["referer"] != "(direct)" {
			t.Fatalf("lead click %v", clk)
		}
		sd := byEvent["sale.created"]
		var sale, partner map[string]any
		json.Unmarshal(sd["sale"], &sale)
		json.Unmarshal(sd["partner"], &partner)
		if sale["amount"].(float64) != 10000 || sale["currency"] != "usd" || sale["invoiceId"] != "" || sale["paymentProcessor"] != "custom" {
			t.Fatalf("sale %v", sale)
		}
		if partner["id"] != pn["id"] || partner["totalCommissions"].(float64) != 2000 {
			t.Fatalf("sale partner %v", partner)
		}
		if string(sd["metadata"]) != `{"plan":"pro"}` {
			t.Fatalf("sale metadata %s", sd["metadata"])
		}
		var slink map[string]any
		json.Unmarshal(sd["link"], &slink)
		if slink["sales"].(float64) != 1 || slink["saleAmount"].(float64) != 10000 || slink["leads"].(float64) != 1 {
			t.Fatalf("sale link counters %v", slink)
		}
		cd := byEvent["commission.created"]
		if string(cd["earnings"]) != "2000" || string(cd["type"]) != `"sale"` || cd["metadata"] == nil || cd["customer"] == nil {
			t.Fatalf("commission.created %v", cd)
		}
	})
}
