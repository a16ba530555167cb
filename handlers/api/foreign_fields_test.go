package api_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// otherRefs are workspace other's resources, each named with foreignSecret
// where it has a name, so an answer that shows one is caught.
type otherRefs struct {
	prog, group, partner, link, tag, folder, customer, webhook, bounty, click, commission, discount, payout string
}

const foreignSecret = "other-secret"

// notReferences are the document's *Id fields that name no resource of
// another workspace: ids a client makes up (externalId, tenantId,
// invoiceId, productId, a Stripe customer id), the Stripe endpoint's
// workspace (public by design, signed), and the routes a partner's token or
// portal session scopes instead of an API key (tests/embed and the portal
// tests cover those).
func notReference(op, field string) bool {
	switch field {
	case "externalId", "externalIds", "tenantId", "invoiceId", "productId", "customerExternalId",
		"customer.externalId", "customer.stripeCustomerId", "sale.invoiceId", "linkProps.externalId",
		"linkProps.tenantId", "data.externalId", "data.tenantId", "workspaceId":
		return true
	}
	_, path, _ := strings.Cut(op, " ")
	return strings.HasPrefix(path, "/embed/") || strings.HasPrefix(path, "/partner-profile/")
}

// referenceFields lists every parameter and body field of the served
// document that names a resource by id ("…Id", "…Ids", "ids"), as
// "METHOD /path field".
func referenceFields(t *testing.T) []string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name string `json:"name"`
			} `json:"parameters"`
			RequestBody struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	isRef := func(n string) bool {
		last := n[strings.LastIndexByte(n, '.')+1:]
		return strings.HasSuffix(last, "Id") || strings.HasSuffix(last, "Ids") || last == "ids"
	}
	var out []string
	for path, ops := range doc.Paths {
		for m, o := range ops {
			op := strings.ToUpper(m) + " " + path
			names := map[string]bool{}
			for _, p := range o.Parameters {
				names[p.Name] = true
			}
			if c, ok := o.RequestBody.Content["application/json"]; ok {
				bodyNames(c.Schema, "", names)
			}
			for n := range names {
				if isRef(n) && !notReference(op, n) {
					out = append(out, op+" "+n)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// bodyNames collects a body schema's property names (one level of nesting
// as "parent.child"), through unions and arrays.
func bodyNames(s map[string]any, prefix string, out map[string]bool) {
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[k].([]any)
		for _, x := range list {
			if m, ok := x.(map[string]any); ok {
				bodyNames(m, prefix, out)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok && prefix == "" {
		bodyNames(items, prefix, out)
	}
	props, _ := s["properties"].(map[string]any)
	for n, p := range props {
		out[prefix+n] = true
		if m, ok := p.(map[string]any); ok && prefix == "" {
			bodyNames(m, n+".", out)
		}
	}
}

// otherFixture makes other's resources.
func otherFixture(t *testing.T, e *programEnv, db *models.DB) otherRefs {
	t.Helper()
	ctx := context.Background()
	ws := e.linkEnv.ws["other"]
	var o otherRefs
	prog := mustProgram(t, db, ws)
	o.prog = prog.ID
	g, err := db.GroupByIDOrSlug(ctx, ws.ID, prog.ID, models.DefaultGroupSlug)
	if err != nil {
		t.Fatal(err)
	}
	o.group = g.ID
	s := foreignSecret
	o.partner = e.ok(201, "other", "POST", "/partners", `{"email":"`+s+`@example.com","name":"`+s+`","tenantId":"t_other"}`).json(t)["id"].(string)
	o.link = e.ok(200, "other", "POST", "/links", `{"url":"https://`+s+`.example/x","key":"otherkey2"}`).json(t)["id"].(string)
	o.tag = e.ok(201, "other", "POST", "/tags", `{"name":"`+s+`"}`).json(t)["id"].(string)
	o.folder = e.ok(201, "other", "POST", "/folders", `{"name":"`+s+`"}`).json(t)["id"].(string)
	o.customer = e.ok(201, "other", "POST", "/customers", `{"externalId":"cust_other","email":"`+s+`@example.com","name":"`+s+`","country":"US"}`).json(t)["id"].(string)
	o.webhook = e.ok(201, "other", "POST", "/webhooks", `{"name":"`+s+`","url":"https://`+s+`.example/hook","triggers":["link.created"]}`).json(t)["id"].(string)
	e.ok(202, "other", "POST", "/commissions", `{"type":"custom","partnerId":"`+o.partner+`","amount":1000,"description":"`+s+`"}`)
	if cs := e.ok(200, "other", "GET", "/commissions?partnerId="+o.partner, "").list(t); len(cs) == 1 {
		o.commission = cs[0]["id"].(string)
	} else {
		t.Fatalf("other's commissions: %v", cs)
	}
	now := time.Now().UTC()
	b := &models.Bounty{WorkspaceID: ws.ID, ProgramID: prog.ID, Name: s, Type: "submission", StartsAt: now.Add(-time.Hour)}
	if err := db.CreateBounty(ctx, b, now); err != nil {
		t.Fatal(err)
	}
	o.bounty = b.ID
	d := &models.Discount{ID: "disc_other0000001", Amount: 10, Type: "percentage", Provider: "custom"}
	if err := db.SetGroupDiscount(ctx, g, d); err != nil {
		t.Fatal(err)
	}
	o.discount = d.ID
	o.click = "otherclick0000001"
	if err := db.Create(&models.Click{ClickID: o.click, Timestamp: now, WorkspaceID: ws.ID, LinkID: o.link,
		Domain: "localhost:8080", Key: "otherkey2", URL: "https://" + s + ".example/x"}).Error; err != nil {
		t.Fatal(err)
	}
	o.payout = "po_other0000001"
	if err := db.Create(&models.Payout{ID: o.payout, WorkspaceID: ws.ID, ProgramID: prog.ID, PartnerID: o.partner, Amount: 100, Currency: "usd", Status: "pending"}).Error; err != nil {
		t.Fatal(err)
	}
	return o
}

// foreignField is one request of acme naming other's resource in field
// ("METHOD /document/path field"). status 0: any 4xx; 200: a list or
// analytics filter, answered for acme's data only (nothing of other's in
// it); msg: the error message (or, on a 200, text the answer holds).
type foreignField struct {
	field, method, path, body string
	status                    int
	msg                       string
}

func foreignFields(e *programEnv, o otherRefs, ownHook string) []foreignField {
	l, q := e.link, func(s string) string { return `"` + s + `"` }
	url := func(k string) string { return `"url":"https://acme.example/` + k + `"` }
	badTags := "Invalid tagIds detected: " + o.tag
	return []foreignField{
		{"POST /links tagId", "POST", "/links", `{` + url("f1") + `,"tagId":` + q(o.tag) + `}`, 422, badTags},
		{"POST /links webhookIds", "POST", "/links", `{` + url("f2") + `,"webhookIds":[` + q(o.webhook) + `]}`, 0, ""},
		{"POST /links/bulk tagIds", "POST", "/links/bulk", `[{` + url("f3") + `,"tagIds":[` + q(o.tag) + `]}]`, 200, badTags},
		{"POST /links/bulk folderId", "POST", "/links/bulk", `[{` + url("f4") + `,"folderId":` + q(o.folder) + `}]`, 200, `"error"`},
		{"POST /links/bulk webhookIds", "POST", "/links/bulk", `[{` + url("f5") + `,"webhookIds":[` + q(o.webhook) + `]}]`, 200, `"error"`},
		{"POST /links/bulk tagId", "POST", "/links/bulk", `[{` + url("f6") + `,"tagId":` + q(o.tag) + `}]`, 200, badTags},
		{"PATCH /links/{linkId} webhookIds", "PATCH", "/links/" + l, `{"webhookIds":[` + q(o.webhook) + `]}`, 0, ""},
		{"PATCH /links/{linkId} tagId", "PATCH", "/links/" + l, `{"tagId":` + q(o.tag) + `}`, 422, badTags},
		{"PUT /links/{linkId} tagIds", "PUT", "/links/" + l, `{"tagIds":[` + q(o.tag) + `]}`, 422, badTags},
		{"PUT /links/{linkId} folderId", "PUT", "/links/" + l, `{"folderId":` + q(o.folder) + `}`, 404, ""},
		{"PUT /links/{linkId} programId", "PUT", "/links/" + l, `{"programId":` + q(o.prog) + `}`, 404, "Program not found."},
		{"PUT /links/upsert tagIds", "PUT", "/links/upsert", `{` + url("f7") + `,"tagIds":[` + q(o.tag) + `]}`, 422, badTags},
		{"PUT /links/upsert folderId", "PUT", "/links/upsert", `{` + url("f8") + `,"folderId":` + q(o.folder) + `}`, 404, ""},
		{"PUT /links/upsert webhookIds", "PUT", "/links/upsert", `{` + url("f9") + `,"webhookIds":[` + q(o.webhook) + `]}`, 0, ""},
		{"PUT /links/upsert tagId", "PUT", "/links/upsert", `{` + url("f10") + `,"tagId":` + q(o.tag) + `}`, 422, badTags},
		{"PATCH /links/bulk linkIds", "PATCH", "/links/bulk", `{"linkIds":[` + q(o.link) + `],"data":{"title":"stolen"}}`, 200, ""},
		{"PATCH /links/bulk data.tagIds", "PATCH", "/links/bulk", `{"linkIds":[` + q(l) + `],"data":{"tagIds":[` + q(o.tag) + `]}}`, 0, ""},
		{"PATCH /links/bulk data.tagId", "PATCH", "/links/bulk", `{"linkIds":[` + q(l) + `],"data":{"tagId":` + q(o.tag) + `}}`, 0, ""},
		{"PATCH /links/bulk data.folderId", "PATCH", "/links/bulk", `{"linkIds":[` + q(l) + `],"data":{"folderId":` + q(o.folder) + `}}`, 0, ""},
		{"PATCH /links/bulk data.webhookIds", "PATCH", "/links/bulk", `{"linkIds":[` + q(l) + `],"data":{"webhookIds":[` + q(o.webhook) + `]}}`, 422, "Invalid webhookIds detected: " + o.webhook},
		{"PATCH /links/bulk data.partnerId", "PATCH", "/links/bulk", `{"linkIds":[` + q(l) + `],"data":{"partnerId":` + q(o.partner) + `}}`, 200, `"error":"Partner not found."`},
		{"PATCH /links/bulk data.programId", "PATCH", "/links/bulk", `{"linkIds":[` + q(l) + `],"data":{"programId":` + q(o.prog) + `}}`, 200, `"error":"Program not found."`},
		{"GET /links/export folderId", "GET", "/links/export?folderId=" + o.folder, ``, 0, ""},
		{"GET /links/export tagIds", "GET", "/links/export?tagIds=" + o.tag, ``, 200, ""},
		{"GET /tags ids", "GET", "/tags?ids=" + o.tag, ``, 200, ""},
		{"DELETE /tags/{id} id", "DELETE", "/tags/" + o.tag, ``, 404, ""},
		{"PUT /tags/{id} id", "PUT", "/tags/" + o.tag, `{"name":"x"}`, 404, ""},
		{"DELETE /folders/{id} id", "DELETE", "/folders/" + o.folder, ``, 404, ""},
		{"GET /folders/{id}/users id", "GET", "/folders/" + o.folder + "/users", ``, 404, ""},
		{"POST /partners groupId", "POST", "/partners", `{"email":"new@example.com","name":"New","groupId":` + q(o.group) + `}`, 0, ""},
		// The partner is enrolled; its default link, refused by the links
		// API, is not made (logged), so nothing names other's tag.
		{"POST /partners linkProps.tagIds", "POST", "/partners", `{"email":"new2@example.com","name":"New","tenantId":"t_new","linkProps":{"tagIds":[` + q(o.tag) + `]}}`, 201, `"links":[]`},
		{"POST /partners/links linkProps.tagIds", "POST", "/partners/links", `{"tenantId":"t_new","url":"https://shop.example/t","linkProps":{"tagIds":[` + q(o.tag) + `]}}`, 422, badTags},
		{"PUT /partners/links/upsert linkProps.tagIds", "PUT", "/partners/links/upsert", `{"tenantId":"t_new","url":"https://shop.example/u","linkProps":{"tagIds":[` + q(o.tag) + `]}}`, 422, badTags},
		{"POST /partners/ban partnerId", "POST", "/partners/ban", `{"partnerId":` + q(o.partner) + `,"reason":"spam"}`, 0, ""},
		{"POST /partners/deactivate partnerId", "POST", "/partners/deactivate", `{"partnerId":` + q(o.partner) + `}`, 0, ""},
		{"GET /partners groupId", "GET", "/partners?groupId=" + o.group, ``, 200, ""},
		{"GET /partners/applications groupId", "GET", "/partners/applications?groupId=" + o.group, ``, 200, ""},
		{"GET /partners/{partnerId} partnerId", "GET", "/partners/" + o.partner, ``, 404, ""},
		{"POST /commissions partnerId", "POST", "/commissions", `{"type":"custom","partnerId":` + q(o.partner) + `,"amount":100}`, 0, ""},
		{"POST /commissions customerId", "POST", "/commissions", `{"type":"lead","partnerId":` + q(e.partner) + `,"customerId":` + q(o.customer) + `,"linkId":` + q(l) + `,"eventName":"x"}`, 0, ""},
		{"POST /commissions linkId", "POST", "/commissions", `{"type":"lead","partnerId":` + q(e.partner) + `,"linkId":` + q(o.link) + `,"customer":{"externalId":"c1"},"eventName":"x"}`, 0, ""},
		{"PATCH /commissions/{id} id", "PATCH", "/commissions/" + o.commission, `{"status":"canceled"}`, 404, ""},
		{"GET /commissions customerId", "GET", "/commissions?customerId=" + o.customer, ``, 200, ""},
		{"GET /commissions groupId", "GET", "/commissions?groupId=" + o.group, ``, 200, ""},
		{"GET /commissions payoutId", "GET", "/commissions?payoutId=" + o.payout, ``, 200, ""},
		{"GET /payouts groupId", "GET", "/payouts?groupId=" + o.group, ``, 200, ""},
		{"GET /customers programId", "GET", "/customers?programId=" + o.prog, ``, 200, ""},
		{"GET /customers/{id} id", "GET", "/customers/" + o.customer, ``, 404, ""},
		{"PATCH /customers/{id} id", "PATCH", "/customers/" + o.customer, `{"name":"x"}`, 404, ""},
		{"DELETE /customers/{id} id", "DELETE", "/customers/" + o.customer, ``, 404, ""},
		{"POST /discount-codes partnerId", "POST", "/discount-codes", `{"partnerId":` + q(o.partner) + `,"linkId":` + q(l) + `,"code":"X1"}`, 0, ""},
		{"POST /discount-codes linkId", "POST", "/discount-codes", `{"partnerId":` + q(e.partner) + `,"linkId":` + q(o.link) + `,"code":"X2"}`, 0, ""},
		{"GET /discount-codes partnerId", "GET", "/discount-codes?partnerId=" + o.partner, ``, 0, ""},
		{"GET /discount-codes discountId", "GET", "/discount-codes?partnerId=" + e.partner + "&discountId=" + o.discount, ``, 404, "Discount not found."},
		{"GET /bounties/{bountyId}/submissions bountyId", "GET", "/bounties/" + o.bounty + "/submissions", ``, 404, ""},
		{"GET /bounties/{bountyId}/submissions groupId", "GET", "/bounties/" + o.bounty + "/submissions?groupId=" + o.group, ``, 404, ""},
		{"GET /bounties/{bountyId}/submissions partnerId", "GET", "/bounties/" + o.bounty + "/submissions?partnerId=" + o.partner, ``, 404, ""},
		{"POST /bounties/{bountyId}/submissions/{submissionId}/approve bountyId", "POST", "/bounties/" + o.bounty + "/submissions/sub_x/approve", `{}`, 404, ""},
		{"POST /bounties/{bountyId}/submissions/{submissionId}/approve submissionId", "POST", "/bounties/" + o.bounty + "/submissions/sub_x/approve", `{}`, 404, ""},
		{"POST /bounties/{bountyId}/submissions/{submissionId}/reject bountyId", "POST", "/bounties/" + o.bounty + "/submissions/sub_x/reject", `{}`, 404, ""},
		{"POST /bounties/{bountyId}/submissions/{submissionId}/reject submissionId", "POST", "/bounties/" + o.bounty + "/submissions/sub_x/reject", `{}`, 404, ""},
		{"POST /track/lead clickId", "POST", "/track/lead", `{"clickId":` + q(o.click) + `,"eventName":"Sign up","customerExternalId":"lead1"}`, 0, ""},
		{"POST /track/lead/client clickId", "POST", "/track/lead/client", `{"clickId":` + q(o.click) + `,"eventName":"Sign up","customerExternalId":"lead2"}`, 0, ""},
		{"POST /track/sale clickId", "POST", "/track/sale", `{"clickId":` + q(o.click) + `,"customerExternalId":"cust_other","amount":100}`, 404, "Click event not found for clickId: " + o.click},
		{"POST /track/sale/client clickId", "POST", "/track/sale/client", `{"clickId":` + q(o.click) + `,"customerExternalId":"cust_other","amount":100}`, 0, ""},
		{"GET /webhooks/{webhookId} webhookId", "GET", "/webhooks/" + o.webhook, ``, 404, ""},
		{"PATCH /webhooks/{webhookId} webhookId", "PATCH", "/webhooks/" + o.webhook, `{"name":"x"}`, 404, ""},
		{"DELETE /webhooks/{webhookId} webhookId", "DELETE", "/webhooks/" + o.webhook, ``, 404, ""},
		{"GET /webhooks/{webhookId}/events webhookId", "GET", "/webhooks/" + o.webhook + "/events", ``, 404, ""},
		{"GET /webhooks/{webhookId}/folders webhookId", "GET", "/webhooks/" + o.webhook + "/folders", ``, 404, ""},
		{"GET /webhooks/{webhookId}/links webhookId", "GET", "/webhooks/" + o.webhook + "/links", ``, 404, ""},
		{"POST /webhooks linkIds", "POST", "/webhooks", `{"name":"h","url":"https://acme.example/h","triggers":["link.clicked"],"linkIds":[` + q(o.link) + `]}`, 0, ""},
		{"POST /webhooks folderIds", "POST", "/webhooks", `{"name":"h","url":"https://acme.example/h","triggers":["link.clicked"],"folderIds":[` + q(o.folder) + `]}`, 0, ""},
		{"PATCH /webhooks/{webhookId} linkIds", "PATCH", "/webhooks/" + ownHook, `{"triggers":["link.clicked"],"linkIds":[` + q(o.link) + `]}`, 0, ""},
		{"GET /analytics customerId", "GET", "/analytics?customerId=" + o.customer, ``, 200, ""},
		{"GET /analytics tagIds", "GET", "/analytics?tagIds=" + o.tag, ``, 200, ""},
		{"GET /analytics partnerTagId", "GET", "/analytics?partnerTagId=ptag_other", ``, 200, ""},
		{"GET /analytics/export linkId", "GET", "/analytics/export?linkId=" + o.link, ``, 200, ""},
		{"GET /events customerId", "GET", "/events?customerId=" + o.customer, ``, 200, ""},
		{"GET /events folderId", "GET", "/events?folderId=" + o.folder, ``, 404, ""},
		{"GET /events partnerId", "GET", "/events?partnerId=" + o.partner, ``, 200, ""},
		{"GET /events groupId", "GET", "/events?groupId=" + o.group, ``, 200, ""},
		{"GET /events programId", "GET", "/events?programId=" + o.prog, ``, 200, ""}, // Dub checks programId on /analytics only
		{"GET /events tagId", "GET", "/events?tagId=" + o.tag, ``, 200, ""},
		{"GET /events tagIds", "GET", "/events?tagIds=" + o.tag, ``, 200, ""},
		{"GET /events partnerTagId", "GET", "/events?partnerTagId=ptag_other", ``, 200, ""},
		{"GET /commissions partnerTagId", "GET", "/commissions?partnerTagId=ptag_other", ``, 200, ""},
		{"PUT /links/{linkId} linkId", "PUT", "/links/" + o.link, `{"url":"https://acme.example/stolen"}`, 401, "Link does not belong to workspace ws_" + e.ws.ID + "."},
		{"GET /events/export linkId", "GET", "/events/export?linkId=" + o.link, ``, 200, ""},
	}
}

// coveredByTestForeignReferences are the fields TestForeignReferences walks.
var coveredByTestForeignReferences = []string{
	"POST /links partnerId", "POST /links programId", "POST /links tagIds", "POST /links folderId",
	"PATCH /links/{linkId} partnerId", "PATCH /links/{linkId} programId", "PATCH /links/{linkId} tagIds",
	"PATCH /links/{linkId} folderId", "PATCH /links/{linkId} linkId", "DELETE /links/{linkId} linkId",
	"GET /links/{linkId} linkId", "PUT /links/{linkId} partnerId", "PUT /links/upsert partnerId",
	"PUT /links/upsert programId", "POST /links/bulk partnerId", "POST /links/bulk programId",
	"POST /partners/links partnerId", "PUT /partners/links/upsert partnerId",
	"POST /partners/applications/approve partnerId", "POST /partners/applications/approve groupId",
	"POST /partners/applications/reject partnerId", "GET /partners/links partnerId", "GET /partners/analytics partnerId",
	"GET /links/info linkId", "GET /folders/{id} id", "PATCH /tags/{id} id", "PATCH /folders/{id} id",
	"GET /analytics folderId", "GET /analytics programId", "GET /analytics linkId", "GET /analytics partnerId",
	"GET /analytics tagId", "GET /analytics groupId", "GET /events linkId", "GET /commissions partnerId",
	"GET /payouts partnerId", "GET /customers linkId", "GET /customers partnerId", "GET /links tagIds",
	"GET /links/count tagIds", "DELETE /links/bulk linkIds",
}

// TestForeignReferenceFields walks every field of the served document
// that names a resource by id (referenceFields: a new one fails the test
// until it is walked here or in TestForeignReferences) with workspace
// other's id, as workspace acme: each is refused (4xx) or, for a list or
// analytics filter, answers acme's data only; no answer shows other's
// data, and nothing of acme's ends up naming other's resources, whose own
// state is unchanged.
func TestForeignReferenceFields(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newProgramEnv(t, db)
		o := otherFixture(t, e, db)
		// acme's partners may add links to shop.example (for the linkProps rows).
		ctx := context.Background()
		g, err := db.GroupByIDOrSlug(ctx, e.ws.ID, e.prog.ID, models.DefaultGroupSlug)
		if err != nil {
			t.Fatal(err)
		}
		g.AdditionalLinks = models.Some([]models.AdditionalLink{{Domain: "shop.example", ValidationMode: "domain"}})
		if err := db.SaveGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		ownHook := e.ok(201, "acme", "POST", "/webhooks", `{"name":"own","url":"https://acme.example/hook","triggers":["link.created"]}`).json(t)["id"].(string)
		rows := foreignFields(e, o, ownHook)
		covered := map[string]bool{}
		for _, f := range coveredByTestForeignReferences {
			covered[f] = true
		}
		for _, r := range rows {
			covered[r.field] = true
		}
		for _, f := range referenceFields(t) {
			if !covered[f] {
				t.Errorf("%s names a resource by id and no test walks it with another workspace's id", f)
			}
		}
		for _, r := range rows {
			checkForeign(t, e, r)
		}
		foreignStateIntact(t, e, db, o)
	})
}

func checkForeign(t *testing.T, e *programEnv, r foreignField) {
	t.Helper()
	got := e.do("acme", r.method, r.path, r.body)
	for i := 0; got.status == 429 && i < 5; i++ { // the analytics routes' per-second limit
		time.Sleep(time.Second)
		got = e.do("acme", r.method, r.path, r.body)
	}
	what := r.field + ": " + r.method + " " + r.path + " " + r.body
	switch {
	case r.status == 0 && (got.status < 400 || got.status >= 500):
		t.Errorf("%s: status %d, want 4xx: %.300s", what, got.status, got.body)
	case r.status != 0 && got.status != r.status:
		t.Errorf("%s: status %d, want %d: %.300s", what, got.status, r.status, got.body)
	case r.status < 300 && r.msg != "":
		if !strings.Contains(string(got.body), r.msg) {
			t.Errorf("%s: answer lacks %s: %.300s", what, r.msg, got.body)
		}
	case r.msg != "":
		if _, m := got.errMsg(t); m != r.msg {
			t.Errorf("%s: message %q, want %q", what, m, r.msg)
		}
	}
	if strings.Contains(string(got.body), foreignSecret) || strings.Contains(string(got.body), "stolen") {
		t.Errorf("%s: the answer shows the other workspace's data: %.300s", what, got.body)
	}
}

// foreignStateIntact: nothing of acme names other's resources, and other's
// resources are as they were.
func foreignStateIntact(t *testing.T, e *programEnv, db *models.DB, o otherRefs) {
	t.Helper()
	acme := e.ws.ID
	for q, args := range map[string][]any{
		`SELECT COUNT(*) FROM links WHERE workspace_id = ? AND (partner_id = ? OR program_id = ? OR folder_id = ?)`: {acme, o.partner, o.prog, o.folder},
		`SELECT COUNT(*) FROM link_tags WHERE tag_id = ?`:                                                           {o.tag},
		`SELECT COUNT(*) FROM webhook_links WHERE webhook_id = ? OR link_id = ?`:                                    {o.webhook, o.link},
		`SELECT COUNT(*) FROM commissions WHERE workspace_id = ? AND (partner_id = ? OR customer_id = ?)`:           {acme, o.partner, o.customer},
		`SELECT COUNT(*) FROM lead_events WHERE click_id = ?`:                                                       {o.click},
		`SELECT COUNT(*) FROM discount_codes WHERE partner_id = ? OR link_id = ?`:                                   {o.partner, o.link},
	} {
		var n int64
		if err := db.Raw(q, args...).Scan(&n).Error; err != nil {
			t.Errorf("%s: %v", q, err)
		} else if n != 0 {
			t.Errorf("%s %v: %d rows", q, args, n)
		}
	}
	other := e.ok(200, "other", "GET", "/links/"+o.link, "").json(t)
	if other["title"] == "stolen" {
		t.Errorf("acme's bulk update changed other's link: %v", other)
	}
	if p := e.ok(200, "other", "GET", "/partners/"+o.partner, "").json(t); p["status"] != "approved" {
		t.Errorf("other's partner is %v after acme's ban and deactivate", p["status"])
	}
	for _, path := range []string{"/customers/" + o.customer, "/webhooks/" + o.webhook, "/folders/" + o.folder} {
		e.ok(200, "other", "GET", path, "")
	}
	if c := e.ok(200, "other", "GET", "/commissions?partnerId="+o.partner, "").list(t); len(c) != 1 || c[0]["status"] == "canceled" {
		t.Errorf("other's commission after acme's PATCH: %v", c)
	}
}
