package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// convLink creates a link through the API and a click on it; it returns
// the link id and the click id.
func (e *linkEnv) convLink(ws string) (string, string) {
	e.t.Helper()
	l := e.ok(200, ws, "POST", "/links", `{"url":"https://shop.example/landing?utm_source=news","trackConversion":true}`).json(e.t)
	id := l["id"].(string)
	link, err := e.db.LinkByID(context.Background(), e.ws[ws].ID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	click := models.Click{ClickID: ids.Nano(16), Timestamp: time.Now(), WorkspaceID: e.ws[ws].ID, LinkID: id, Domain: link.Domain, Key: link.Key,
		URL: link.URL, Country: "DE", Continent: "EU", Device: "Mobile", Browser: "Safari", OS: "iOS", Trigger: "qr", QR: true,
		Referer: "news.example", RefererURL: "https://news.example/a", UTMSource: "news"}
	if _, err := e.db.RecordClicks(context.Background(), []models.Click{click}); err != nil {
		e.t.Fatal(err)
	}
	return id, click.ClickID
}

func TestConversionPlanGates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("pro", models.PlanPro)
		e.workspace("biz", models.PlanBusiness)
		e.workspace("adv", models.PlanAdvanced)
		e.scopedKey("readonly", "adv", "links.read")
		for _, tc := range []struct {
			key, method, path, body string
			status                  int
			msg                     string
		}{
			{"pro", "POST", "/track/lead", `{}`, 403, "Unauthorized: Need higher plan."},
			{"pro", "POST", "/track/sale", `{}`, 403, "Unauthorized: Need higher plan."},
			{"pro", "GET", "/customers", ``, 403, "Unauthorized: Need higher plan."},
			{"pro", "POST", "/partners", `{}`, 403, "Unauthorized: Need higher plan."},
			{"pro", "GET", "/partners", ``, 403, "Unauthorized: Need higher plan."},
			{"biz", "POST", "/tokens/embed/referrals", `{"tenantId":"x"}`, 403, "Unauthorized: Need higher plan."},
			{"pro", "GET", "/commissions", ``, 200, ""}, // no plan gate upstream
			{"biz", "GET", "/customers", ``, 200, ""},
			{"adv", "POST", "/tokens/embed/referrals", `{"tenantId":"nope"}`, 404, "The partner is not enrolled in this program."},
			{"readonly", "POST", "/track/lead", `{}`, 403, ""},
			{"readonly", "POST", "/tokens/embed/referrals", `{"tenantId":"x"}`, 403, ""},
			{"", "POST", "/track/lead", `{}`, 401, "Missing Authorization header."},
		} {
			t.Run(tc.key+" "+tc.method+" "+tc.path, func(t *testing.T) {
				e := e.sub(t)
				r := e.do(tc.key, tc.method, tc.path, tc.body)
				if r.status != tc.status {
					t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
				}
				if tc.status >= 400 {
					code, msg := r.errMsg(t)
					if wantCode := map[int]string{401: "unauthorized", 403: "forbidden", 404: "not_found"}[tc.status]; code != wantCode {
						t.Errorf("code %s, want %s", code, wantCode)
					}
					if tc.msg != "" && msg != tc.msg {
						t.Errorf("message %q, want %q", msg, tc.msg)
					}
				}
			})
		}
	})
}

func TestTrackValidation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		long := strings.Repeat("x", 10001)
		for _, tc := range []struct {
			name, path, body string
			status           int
			code, msg        string
		}{
			{"lead: not JSON", "/track/lead", `{"eventName":`, 400, "bad_request", "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
			{"lead: not an object", "/track/lead", `[1]`, 422, "unprocessable_entity", "invalid_type: : Invalid input: expected object, received array"},
			{"lead: eventName missing", "/track/lead", `{"customerExternalId":"u"}`, 422, "unprocessable_entity", "invalid_type: eventName: Invalid input: expected string, received undefined"},
			{"lead: eventName empty", "/track/lead", `{"eventName":"  ","customerExternalId":"u"}`, 422, "unprocessable_entity", "too_small: eventName: eventName is required"},
			{"lead: eventName a number", "/track/lead", `{"eventName":5,"customerExternalId":"u"}`, 422, "unprocessable_entity", "invalid_type: eventName: Invalid input: expected string, received number"},
			{"lead: no customer id", "/track/lead", `{"eventName":"Sign up","clickId":"x"}`, 400, "bad_request", "customerExternalId is required"},
			{"lead: empty aliases", "/track/lead", `{"eventName":"Sign up","externalId":"","customerId":""}`, 400, "bad_request", "customerExternalId is required"},
			{"lead: bad email", "/track/lead", `{"eventName":"a","customerExternalId":"u","customerEmail":"nope"}`, 422, "unprocessable_entity", "invalid_format: customerEmail: Invalid email address"},
			{"lead: bad mode", "/track/lead", `{"eventName":"a","customerExternalId":"u","mode":"later"}`, 422, "unprocessable_entity", `invalid_value: mode: Invalid option: expected one of "async"|"wait"|"deferred"`},
			{"lead: quantity 0", "/track/lead", `{"eventName":"a","customerExternalId":"u","eventQuantity":0}`, 422, "unprocessable_entity", "too_small: eventQuantity: Too small: expected number to be >=1"},
			{"lead: quantity 101", "/track/lead", `{"eventName":"a","customerExternalId":"u","eventQuantity":101}`, 422, "unprocessable_entity", "too_big: eventQuantity: Too big: expected number to be <=100"},
			{"lead: quantity 1.5", "/track/lead", `{"eventName":"a","customerExternalId":"u","eventQuantity":1.5}`, 422, "unprocessable_entity", "invalid_type: eventQuantity: Invalid input: expected int, received number"},
			{"lead: metadata too long", "/track/lead", `{"eventName":"a","customerExternalId":"u","metadata":{"x":"` + long + `"}}`, 422, "unprocessable_entity", "custom: metadata: Metadata must be less than 10000 characters"},
			{"lead: no click, unknown customer", "/track/lead", `{"eventName":"a","customerExternalId":"u","clickId":""}`, 400, "bad_request",
				"The `clickId` property was not provided in the request, and no existing customer with the provided `customerExternalId` was found."},
			{"lead: unknown click", "/track/lead", `{"eventName":"a","customerExternalId":"u","clickId":"nope"}`, 404, "not_found", "Click event not found for clickId: nope"},
			{"sale: amount missing", "/track/sale", `{"customerExternalId":"u"}`, 422, "unprocessable_entity", "invalid_type: amount: amount is required"},
			{"sale: amount negative", "/track/sale", `{"customerExternalId":"u","amount":-1}`, 422, "unprocessable_entity", "too_small: amount: amount cannot be negative"},
			{"sale: amount not an integer", "/track/sale", `{"customerExternalId":"u","amount":1.25}`, 422, "unprocessable_entity", "invalid_type: amount: Invalid input: expected int, received number"},
			{"sale: bad processor", "/track/sale", `{"customerExternalId":"u","amount":1,"paymentProcessor":"visa"}`, 422, "unprocessable_entity",
				`invalid_value: paymentProcessor: Invalid option: expected one of "stripe"|"shopify"|"polar"|"paddle"|"apple"|"revenuecat"|"lemonsqueezy"|"dub"|"custom"`},
			{"sale: no customer id", "/track/sale", `{"amount":1}`, 400, "bad_request", "customerExternalId is required"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := e.sub(t)
				e.expectErr(e.do("acme", "POST", tc.path, tc.body), tc.status, tc.code, tc.msg)
			})
		}
		// Unknown customers are not an error for sales (lemonsqueezy accepted).
		r := e.ok(200, "acme", "POST", "/track/sale", `{"customerExternalId":"ghost","amount":100,"paymentProcessor":"lemonsqueezy","eventName":"Upgrade"}`)
		if string(r.body) != `{"eventName":"Upgrade","customer":null,"sale":null}` {
			t.Errorf("unknown customer sale = %s", r.body)
		}
	})
}

func TestTrackFlow(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		linkID, clickID := e.convLink("acme")
		body := fmt.Sprintf(`{"clickId":" %s ","eventName":"Sign up","customerExternalId":"u_1","customerName":"Ada","customerEmail":"ada@example.com","customerAvatar":null,"mode":"wait"}`, clickID)
		r := e.ok(200, "acme", "POST", "/track/lead", body).json(t)
		link := r["link"].(map[string]any)
		if r["click"].(map[string]any)["id"] != clickID || link["id"] != linkID || link["partnerId"] != nil || !strings.HasPrefix(link["shortLink"].(string), "http") {
			t.Fatalf("lead response %v", r)
		}
		cust := r["customer"].(map[string]any)
		if cust["name"] != "Ada" || cust["email"] != "ada@example.com" || cust["externalId"] != "u_1" || cust["avatar"] != nil {
			t.Errorf("customer %v", cust)
		}
		for _, k := range []string{"id", "domain", "key", "shortLink", "url", "partnerId", "programId", "tenantId", "externalId"} {
			if _, ok := link[k]; !ok {
				t.Errorf("link has no %q", k)
			}
		}
		// The duplicate answers link null.
		dup := e.ok(200, "acme", "POST", "/track/lead", body).json(t)
		if dup["link"] != nil || dup["customer"].(map[string]any)["name"] != "Ada" {
			t.Errorf("duplicate lead %v", dup)
		}
		sale := `{"customerExternalId":"u_1","amount":1999,"currency":"EUR","invoiceId":"inv_1","metadata":{"plan":"pro"}}`
		first := e.ok(200, "acme", "POST", "/track/sale", sale)
		again := e.ok(200, "acme", "POST", "/track/sale", `{"customerExternalId":"u_1","amount":5,"invoiceId":"inv_1"}`)
		if string(first.body) != string(again.body) {
			t.Errorf("replay %s\nwant %s", again.body, first.body)
		}
		s := first.json(t)["sale"].(map[string]any)
		if s["currency"] != "usd" || s["amount"].(float64) <= 1999 || s["invoiceId"] != "inv_1" || s["paymentProcessor"] != "custom" {
			t.Errorf("sale %v: EUR must convert to more USD cents", s)
		}
		l := e.ok(200, "acme", "GET", "/links/"+linkID, "").json(t)
		if l["leads"].(float64) != 1 || l["sales"].(float64) != 1 || l["conversions"].(float64) != 1 || l["saleAmount"] != s["amount"] {
			t.Errorf("link counters %v %v %v %v", l["leads"], l["sales"], l["conversions"], l["saleAmount"])
		}
	})
}

func TestCustomersAPI(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		e.workspace("other", models.PlanBusiness)
		_, clickID := e.convLink("acme")
		for i := 1; i <= 3; i++ {
			e.ok(200, "acme", "POST", "/track/lead", fmt.Sprintf(`{"clickId":%q,"eventName":"Sign up","customerExternalId":"u_%d","customerEmail":"c%d@example.com"}`, clickID, i, i))
		}
		list := e.ok(200, "acme", "GET", "/customers?sortOrder=asc", "").list(t)
		if len(list) != 3 || list[0]["externalId"] != "u_1" || list[0]["link"] != nil {
			t.Fatalf("list %v", list)
		}
		for _, k := range []string{"id", "name", "email", "avatar", "externalId", "stripeCustomerId", "country", "sales", "saleAmount", "createdAt", "firstSaleAt", "subscriptionCanceledAt"} {
			if _, ok := list[0][k]; !ok {
				t.Errorf("customer has no %q", k)
			}
		}
		id := list[0]["id"].(string)
		// Cursor pagination walks by id.
		page := e.ok(200, "acme", "GET", "/customers?sortOrder=asc&pageSize=1&startingAfter="+id, "").list(t)
		if len(page) != 1 || page[0]["externalId"] != "u_2" {
			t.Errorf("startingAfter page %v", page)
		}
		e.expectErr(e.do("acme", "GET", "/customers?startingAfter=cus_nope", ""), 422, "unprocessable_entity", "Invalid cursor: the provided ID does not exist.")
		e.expectErr(e.do("acme", "GET", "/customers?startingAfter="+id+"&sortBy=saleAmount", ""), 422, "unprocessable_entity",
			"Cursor-based pagination only supports sorting by `createdAt`. Use offset-based pagination (page/pageSize) for other sort fields.")
		if got := e.ok(200, "acme", "GET", "/customers?email=c2@example.com", "").list(t); len(got) != 1 || got[0]["externalId"] != "u_2" {
			t.Errorf("email filter %v", got)
		}
		if got := e.ok(200, "acme", "GET", "/customers?search=c3", "").list(t); len(got) != 1 || got[0]["externalId"] != "u_3" {
			t.Errorf("search %v", got)
		}
		exp := e.ok(200, "acme", "GET", "/customers/ext_u_1?includeExpandedFields=true", "").json(t)
		if exp["id"] != id || exp["link"] == nil || exp["country"] != "DE" {
			t.Errorf("expanded %v", exp)
		}
		upd := e.ok(200, "acme", "PATCH", "/customers/"+id, `{"name":"Renamed","externalId":"u_1b","country":"FR"}`).json(t)
		if upd["name"] != "Renamed" || upd["externalId"] != "u_1b" || upd["country"] != "DE" {
			t.Errorf("updated %v (country is ignored on update)", upd)
		}
		e.expectErr(e.do("acme", "PATCH", "/customers/"+id, `{"externalId":"u_2"}`), 409, "conflict", "A customer with this external ID already exists.")
		e.expectErr(e.do("acme", "PATCH", "/customers/"+id, `{"email":"x"}`), 422, "unprocessable_entity", "invalid_format: email: Invalid email address")

		// Another workspace sees none of it and changes none of it.
		if got := e.ok(200, "other", "GET", "/customers", "").list(t); len(got) != 0 {
			t.Errorf("other workspace lists %d customers", len(got))
		}
		for _, r := range []linkResp{
			e.do("other", "GET", "/customers/"+id, ""),
			e.do("other", "GET", "/customers/ext_u_2", ""),
			e.do("other", "PATCH", "/customers/"+id, `{"name":"Hijack"}`),
			e.do("other", "DELETE", "/customers/"+id, ""),
		} {
			if r.status != 404 {
				t.Errorf("cross-workspace access: %d %s", r.status, r.body)
			}
		}
		if got := e.ok(200, "acme", "GET", "/customers/"+id, "").json(t); got["name"] != "Renamed" {
			t.Errorf("customer changed by another workspace: %v", got)
		}
		del := e.ok(200, "acme", "DELETE", "/customers/"+id, "").json(t)
		if del["id"] != id || len(del) != 1 {
			t.Errorf("delete answered %v", del)
		}
		e.expectErr(e.do("acme", "GET", "/customers/"+id, ""), 404, "not_found", models.MsgCustomerNotFound)
	})
}

// checkPartnerIsolation: workspace "other" can neither see nor touch
// acme's partner pnID, its links, commission cmID or tokens.
func checkPartnerIsolation(t *testing.T, e *linkEnv, pnID, cmID string) {
	if got := e.ok(200, "other", "GET", "/partners", "").list(t); len(got) != 0 {
		t.Errorf("other lists %d partners", len(got))
	}
	if got := e.ok(200, "other", "GET", "/commissions?partnerId="+pnID, "").list(t); len(got) != 0 {
		t.Errorf("other lists acme's commissions: %v", got)
	}
	for _, r := range []linkResp{
		e.do("other", "PATCH", "/commissions/"+cmID, `{"status":"pending"}`),
		e.do("other", "POST", "/partners/links", `{"partnerId":"`+pnID+`"}`),
		e.do("other", "GET", "/partners/analytics?partnerId="+pnID, ""),
		e.do("other", "POST", "/tokens/embed/referrals", `{"partnerId":"`+pnID+`"}`),
		e.do("other", "GET", "/partners/links?partnerId="+pnID, ""),
	} {
		if r.status != 404 && r.status != 400 {
			t.Errorf("cross-workspace: %d %s", r.status, r.body)
		}
	}
	// Posting acme's partner email in "other" creates other's own partner.
	mine := e.ok(201, "other", "POST", "/partners", `{"email":"pat@example.com"}`).json(t)
	if mine["id"] == pnID || mine["name"] == "Pat" {
		t.Errorf("other workspace got acme's partner: %v", mine)
	}
}

func TestPartnersAndCommissionsAPI(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newLinkEnv(t, db)
		acme := e.workspace("acme", models.PlanAdvanced)
		e.workspace("other", models.PlanAdvanced)
		prog, _ := db.DefaultProgram(ctx, acme.ID)
		grp, _ := db.GroupByIDOrSlug(ctx, acme.ID, prog.ID, models.DefaultGroupSlug)
		pct := int64(2000)
		if err := db.SetGroupReward(ctx, grp, &models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: &pct}); err != nil {
			t.Fatal(err)
		}
		// The program's partner links live on the default short domain.
		domain, dest := "localhost:8080", "https://shop.example/"
		prog.Domain, prog.URL = &domain, &dest
		if err := db.SaveProgram(ctx, prog); err != nil {
			t.Fatal(err)
		}

		created := e.ok(201, "acme", "POST", "/partners", `{"email":"Pat@Example.com","name":"Pat","tenantId":"t_pat"}`).json(t)
		pnID := created["id"].(string)
		if !strings.HasPrefix(pnID, "pn_") || created["partnerId"] != pnID || created["programId"] != prog.ID || created["status"] != "approved" ||
			created["tenantId"] != "t_pat" || created["email"] != "Pat@Example.com" || created["saleRewardId"] == nil {
			t.Fatalf("created %v", created)
		}
		for _, k := range []string{"username", "image", "country", "companyName", "networkStatus", "defaultPayoutMethod", "paypalEmail",
			"stripeConnectId", "payoutsEnabledAt", "identityVerifiedAt", "links", "totalCommissions", "netRevenue"} {
			if _, ok := created[k]; !ok {
				t.Errorf("partner has no %q", k)
			}
		}
		again := e.ok(201, "acme", "POST", "/partners", `{"email":"pat@example.com","name":"Changed"}`).json(t)
		if again["id"] != pnID || again["name"] != "Pat" {
			t.Errorf("re-post %v: want the same, unchanged partner", again)
		}
		e.expectErr(e.do("acme", "POST", "/partners", `{"name":"x"}`), 422, "unprocessable_entity", "invalid_type: email: Invalid input: expected string, received undefined")
		e.expectErr(e.do("acme", "POST", "/partners", `{"email":"a@b.co","username":"no spaces"}`), 422, "unprocessable_entity", "custom: username: Invalid username. Must be a URL-friendly string.")
		e.expectErr(e.do("acme", "POST", "/partners", `{"email":"a@b.co","linkProps":{"title":5}}`), 422, "unprocessable_entity", "invalid_type: linkProps.title: Invalid input: expected string, received number")

		// Enrolling made pat's default link (the program's domain and
		// destination); without it, pat creates one.
		e.ok(200, "acme", "DELETE", "/links/"+onlyLink(t, created, "pat"), "")
		link := e.ok(201, "acme", "POST", "/partners/links", `{"tenantId":"t_pat","key":"pat"}`).json(t)
		if link["partnerId"] != pnID || link["programId"] != prog.ID || link["tenantId"] != "t_pat" || link["trackConversion"] != true || link["key"] != "pat" {
			t.Fatalf("partner link %v", link)
		}
		up := e.ok(200, "acme", "PUT", "/partners/links/upsert", `{"partnerId":"`+pnID+`","url":"https://shop.example/","linkProps":{"title":"Shop"}}`).json(t)
		if up["id"] != link["id"] || up["title"] != "Shop" {
			t.Errorf("upsert %v, want the same link updated", up)
		}
		e.expectErr(e.do("acme", "POST", "/partners/links", `{}`), 400, "bad_request", "Either `partnerId` or `tenantId` must be provided.")
		e.expectErr(e.do("acme", "PUT", "/partners/links/upsert", `{"partnerId":"`+pnID+`"}`), 422, "unprocessable_entity", "invalid_type: url: Invalid input: expected string, received undefined")

		// A sale through the partner link earns 20%.
		l, _ := db.LinkByID(ctx, acme.ID, link["id"].(string))
		click := models.Click{ClickID: ids.Nano(16), Timestamp: time.Now(), WorkspaceID: acme.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key, Country: "US"}
		if _, err := db.RecordClicks(ctx, []models.Click{click}); err != nil {
			t.Fatal(err)
		}
		e.ok(200, "acme", "POST", "/track/lead", `{"clickId":"`+click.ClickID+`","eventName":"Sign up","customerExternalId":"buyer"}`)
		e.ok(200, "acme", "POST", "/track/sale", `{"customerExternalId":"buyer","amount":10000,"invoiceId":"inv_9"}`)
		cms := e.ok(200, "acme", "GET", "/commissions", "").list(t)
		if len(cms) != 1 || cms[0]["earnings"].(float64) != 2000 || cms[0]["amount"].(float64) != 10000 || cms[0]["status"] != "pending" ||
			cms[0]["partner"].(map[string]any)["id"] != pnID || cms[0]["customer"].(map[string]any)["externalId"] != "buyer" {
			t.Fatalf("commissions %v", cms)
		}
		if _, ok := cms[0]["metadata"]; !ok {
			t.Error("commission has no metadata key")
		}
		cmID := cms[0]["id"].(string)
		if got := e.ok(200, "acme", "GET", "/commissions?invoiceId=inv_9&status=paid", "").list(t); len(got) != 1 {
			t.Errorf("invoiceId ignores other filters: %v", got)
		}
		if got := e.ok(200, "acme", "GET", "/commissions?type=bogus", "").list(t); len(got) != 0 {
			t.Errorf("invalid type list: %v", got)
		}
		e.expectErr(e.do("acme", "GET", "/commissions?tenantId=nope", ""), 404, "not_found", "Partner with specified tenantId nope not found.")
		list := e.ok(200, "acme", "GET", "/partners", "").list(t)
		if len(list) != 1 || list[0]["totalSaleAmount"].(float64) != 10000 || list[0]["totalCommissions"].(float64) != 2000 ||
			list[0]["netRevenue"].(float64) != 8000 || list[0]["totalClicks"].(float64) != 1 || list[0]["saleAmount"].(float64) != 10000 {
			t.Errorf("partner list %v", list)
		}
		count := e.ok(200, "acme", "GET", "/partners/analytics?tenantId=t_pat", "").json(t)
		if count["clicks"].(float64) != 1 || count["leads"].(float64) != 1 || count["sales"].(float64) != 1 || count["saleAmount"].(float64) != 10000 || count["earnings"].(float64) != 2000 {
			t.Errorf("analytics count %v", count)
		}
		patched := e.ok(200, "acme", "PATCH", "/commissions/"+cmID, `{"status":"duplicate"}`).json(t)
		if patched["status"] != "duplicate" {
			t.Errorf("patched %v", patched)
		}
		if got := e.ok(200, "acme", "GET", "/commissions", "").list(t); len(got) != 0 {
			t.Errorf("duplicate commissions are hidden by default: %v", got)
		}
		token := e.ok(201, "acme", "POST", "/tokens/embed/referrals", `{"tenantId":"t_pat"}`).json(t)
		if !strings.HasPrefix(token["publicToken"].(string), "dub_embed_") || len(token["publicToken"].(string)) != 35 || token["expires"] == nil {
			t.Errorf("token %v", token)
		}
		e.expectErr(e.do("acme", "POST", "/tokens/embed/referrals", `{}`), 422, "unprocessable_entity", "custom: : You must provide either partnerId, tenantId, or partner.")
		e.expectErr(e.do("acme", "POST", "/tokens/embed/referrals", `{"partner":{"email":"bad"}}`), 422, "unprocessable_entity", "invalid_format: partner.email: Invalid email address")

		checkPartnerIsolation(t, e, pnID, cmID)
	})
}

// Every sortBy of GET /partners and GET /customers and every groupBy and
// interval of /partners/analytics runs on both dialects.
func TestConversionListOptions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanAdvanced)
		for _, email := range []string{"a@example.com", "b@example.com"} {
			e.ok(201, "acme", "POST", "/partners", `{"email":"`+email+`","tenantId":"t_`+email[:1]+`"}`)
		}
		for _, s := range []string{"createdAt", "totalClicks", "totalLeads", "totalConversions", "totalSales", "totalSaleAmount",
			"totalCommissions", "netRevenue", "earningsPerClick", "averageLifetimeValue", "clickToLeadRate", "clickToConversionRate",
			"leadToConversionRate", "returnOnAdSpend", "clicks", "saleAmount"} {
			for _, o := range []string{"asc", "desc"} {
				if got := e.ok(200, "acme", "GET", "/partners?sortBy="+s+"&sortOrder="+o, "").list(t); len(got) != 2 {
					t.Errorf("sortBy=%s %s: %d partners", s, o, len(got))
				}
			}
		}
		asc := e.ok(200, "acme", "GET", "/partners?sortBy=createdAt&sortOrder=asc", "").list(t)
		if asc[0]["email"] != "a@example.com" {
			t.Errorf("createdAt asc starts with %v", asc[0]["email"])
		}
		if got := e.ok(200, "acme", "GET", "/partners?groupId=-default&country=US", "").list(t); len(got) != 0 {
			t.Errorf("exclusion filter: %d partners", len(got))
		}
		if got := e.ok(200, "acme", "GET", "/partners?search=b@example.com", "").list(t); len(got) != 1 {
			t.Errorf("search by email: %d partners", len(got))
		}
		if r := e.do("acme", "GET", "/partners?sortBy=bogus", ""); r.status != 422 {
			t.Errorf("unknown sortBy: %d", r.status)
		}
		for _, s := range []string{"createdAt", "saleAmount", "firstSaleAt", "subscriptionCanceledAt"} {
			e.ok(200, "acme", "GET", "/customers?sortBy="+s, "")
		}
		// Analytics has a per-second budget per key: a fresh key per request.
		n := 0
		key := func() string {
			n++
			name := fmt.Sprintf("k%d", n)
			e.scopedKey(name, "acme", "apis.all")
			return name
		}
		for _, g := range []string{"count", "timeseries", "top_links"} {
			for _, i := range []string{"24h", "7d", "30d", "90d", "1y", "mtd", "qtd", "ytd", "all"} {
				e.ok(200, key(), "GET", "/partners/analytics?tenantId=t_a&groupBy="+g+"&interval="+i+"&timezone=America/New_York", "")
			}
		}
		series := e.ok(200, key(), "GET", "/partners/analytics?tenantId=t_a&groupBy=timeseries&interval=7d", "")
		var buckets []map[string]any
		// "7d" is now − 7 days (internal/interval, spec/analytics.md §3.3): 8
		// daily buckets, the first partial, as GET /analytics answers.
		if err := json.Unmarshal(series.body, &buckets); err != nil || len(buckets) != 8 {
			t.Errorf("7d timeseries: %d buckets, %v", len(buckets), err)
		}
		e.expectErr(e.do(key(), "GET", "/partners/analytics?tenantId=t_a&timezone=Mars/Base", ""), 422, "unprocessable_entity", "invalid_value: timezone: Invalid timezone: Mars/Base")
		e.expectErr(e.do(key(), "GET", "/partners/analytics?groupBy=count", ""), 400, "bad_request", "Either `partnerId` or `tenantId` must be provided.")
	})
}
