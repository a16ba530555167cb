package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// programEnv is a workspace "acme" (advanced) with a program on the default
// short domain, a flat $5 lead and 10% sale reward, a 0-day holding period
// and partner "pat" with one link; plus workspace "other".
type programEnv struct {
	*linkEnv
	ws      *models.Workspace
	prog    *models.Program
	partner string
	link    string
}

func newProgramEnv(t *testing.T, db *models.DB) *programEnv {
	t.Helper()
	ctx := context.Background()
	e := newLinkEnv(t, db)
	acme := e.workspace("acme", models.PlanAdvanced)
	e.workspace("other", models.PlanAdvanced)
	e.workspace("pro", models.PlanPro)
	prog, _ := db.DefaultProgram(ctx, acme.ID)
	grp, _ := db.GroupByIDOrSlug(ctx, acme.ID, prog.ID, models.DefaultGroupSlug)
	five, pct := int64(500), int64(1000)
	if err := db.SetGroupReward(ctx, grp, &models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: &five}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetGroupReward(ctx, grp, &models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: &pct}); err != nil {
		t.Fatal(err)
	}
	grp.HoldingPeriodDays = 0
	if err := db.SaveGroup(ctx, grp); err != nil {
		t.Fatal(err)
	}
	domain, dest := "localhost:8080", "https://shop.example/"
	prog.Domain, prog.URL = &domain, &dest
	if err := db.SaveProgram(ctx, prog); err != nil {
		t.Fatal(err)
	}
	// The program has a domain and a destination, so enrolling pat makes
	// pat's default link (key "pat", the program's destination).
	created := e.ok(201, "acme", "POST", "/partners", `{"email":"pat@example.com","name":"Pat","tenantId":"t_pat"}`).json(t)
	pn, link := created["id"].(string), onlyLink(t, created, "pat")
	return &programEnv{linkEnv: e, ws: acme, prog: prog, partner: pn, link: link}
}

// onlyLink is the id of the one link of an enrolled partner, which must
// have key.
func onlyLink(t *testing.T, partner map[string]any, key string) string {
	t.Helper()
	ls, _ := partner["links"].([]any)
	if len(ls) != 1 || ls[0].(map[string]any)["key"] != key {
		t.Fatalf("partner links %v, want one with key %q", partner["links"], key)
	}
	return ls[0].(map[string]any)["id"].(string)
}

func (e *programEnv) commissions(t *testing.T, query string) []map[string]any {
	t.Helper()
	return e.ok(200, "acme", "GET", "/commissions"+query, "").list(t)
}

func TestCreateCommissionValidation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newProgramEnv(t, db)
		pn := e.partner
		for _, tc := range []struct {
			name, body string
			status     int
			code, msg  string
		}{
			{"not JSON", `{"type":`, 400, "bad_request", "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
			{"no type", `{"partnerId":"pn_x","amount":500}`, 422, "unprocessable_entity", "invalid_union: type: Invalid input"},
			{"unknown type", `{"type":"bonus","partnerId":"pn_x","amount":500}`, 422, "unprocessable_entity", "invalid_union: type: Invalid input"},
			{"custom without partner", `{"type":"custom","amount":-500,"description":"fraud"}`, 422, "unprocessable_entity", "invalid_type: partnerId: Invalid input: expected string, received undefined"},
			{"custom amount 0", `{"type":"custom","partnerId":"pn_x","amount":0}`, 422, "unprocessable_entity", "custom: amount: Amount cannot be 0."},
			{"custom fraction", `{"type":"custom","partnerId":"pn_x","amount":1.5}`, 422, "unprocessable_entity", "invalid_type: amount: Invalid input: expected int, received number"},
			{"clawback without description", `{"type":"custom","partnerId":"pn_x","amount":-500}`, 422, "unprocessable_entity", "custom: description: `description` is required when creating a clawback (negative amount)."},
			{"clawback blank description", `{"type":"custom","partnerId":"pn_x","amount":-500,"description":"  "}`, 422, "unprocessable_entity", "custom: description: `description` is required when creating a clawback (negative amount)."},
			{"description too long", `{"type":"custom","partnerId":"pn_x","amount":5,"description":"` + strings.Repeat("d", 191) + `"}`, 422, "unprocessable_entity", "too_big: description: Too big: expected string to have <=190 characters"},
			{"bad date", `{"type":"custom","partnerId":"pn_x","amount":5,"date":"someday"}`, 422, "unprocessable_entity", "custom: date: Invalid date"},
			{"sale without amount", `{"type":"sale","partnerId":"pn_x","customerId":"cus_x"}`, 422, "unprocessable_entity", "custom: saleAmount: `saleAmount` is required when `importStripeInvoices` is false."},
			{"sale amount 0", `{"type":"sale","partnerId":"pn_x","customerId":"cus_x","saleAmount":0}`, 422, "unprocessable_entity", "custom: saleAmount: Sale amount cannot be 0."},
			{"sale object without amount", `{"type":"sale","partnerId":"pn_x","customerId":"cus_x","sale":{}}`, 422, "unprocessable_entity", "custom: sale.amount: `sale.amount` or `saleAmount` is required when `importStripeInvoices` is false."},
			{"customer without externalId", `{"type":"lead","partnerId":"pn_x","customer":{"country":"US"}}`, 422, "unprocessable_entity", "invalid_type: customer.externalId: External ID is required"},
			{"customer without country", `{"type":"lead","partnerId":"pn_x","customer":{"externalId":"u"}}`, 422, "unprocessable_entity", "invalid_type: customer.country: Invalid input: expected string, received undefined"},
			{"not enrolled", `{"type":"custom","partnerId":"pn_nobody","amount":5}`, 404, "not_found", "Partner pn_nobody is not enrolled in program " + e.prog.ID + "."},
			{"lead without customer", `{"type":"lead","partnerId":"` + pn + `"}`, 400, "bad_request", "Either customerId or customer must be provided."},
			{"lead with both customers", `{"type":"lead","partnerId":"` + pn + `","customerId":"cus_1","customer":{"externalId":"u","country":"US"}}`, 400, "bad_request", "Either customerId or customer must be provided, not both."},
			{"foreign link", `{"type":"lead","partnerId":"` + pn + `","linkId":"link_nope","customerId":"cus_1"}`, 404, "not_found", "Link link_nope does not belong to partner pat@example.com (" + pn + ")."},
			{"unknown customer", `{"type":"lead","partnerId":"` + pn + `","customerId":"cus_nope"}`, 404, "not_found", "Customer cus_nope not found."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", "POST", "/commissions", tc.body), tc.status, tc.code, tc.msg)
			})
		}
		e.expectErr(e.do("pro", "POST", "/commissions", `{}`), 403, "forbidden", "Unauthorized: Need higher plan.")
		if got := e.commissions(t, "?status=pending"); len(got) != 0 {
			t.Errorf("rejected requests created commissions: %v", got)
		}
	})
}

func TestCreateCommissionEffects(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newProgramEnv(t, db)
		pn := e.partner
		r := e.ok(202, "acme", "POST", "/commissions", `{"type":"custom","partnerId":"`+pn+`","amount":"1500","description":"Launch bonus","date":"2026-01-02"}`).json(t)
		if r["success"] != true || r["message"] != "Your commissions are being created and will appear shortly." {
			t.Fatalf("custom: %v", r)
		}
		r = e.ok(202, "acme", "POST", "/commissions", `{"type":"custom","partnerId":"`+pn+`","amount":-500,"description":"order_canceled"}`).json(t)
		if r["message"] != "A clawback has been queued for the partner!" {
			t.Fatalf("clawback: %v", r)
		}
		cms := e.commissions(t, "?type=custom&sortBy=createdAt&sortOrder=asc")
		if len(cms) != 2 || cms[0]["earnings"].(float64) != 1500 || cms[0]["amount"].(float64) != 0 || cms[0]["createdAt"] != "2026-01-02T00:00:00.000Z" ||
			cms[1]["earnings"].(float64) != -500 || cms[1]["description"] != "order_canceled" || cms[0]["userId"] == nil {
			t.Fatalf("custom commissions %v", cms)
		}
		// Custom commissions skip the holding period: processed into one payout at once.
		for _, c := range cms {
			if c["status"] != "processed" {
				t.Errorf("commission %s is %s, want processed", c["id"], c["status"])
			}
		}
		payouts := e.ok(200, "acme", "GET", "/payouts", "").list(t)
		if len(payouts) != 1 || payouts[0]["amount"].(float64) != 1000 || payouts[0]["status"] != "pending" || payouts[0]["currency"] != "USD" ||
			payouts[0]["partner"].(map[string]any)["id"] != pn || payouts[0]["periodStart"] != "2026-01-02T00:00:00.000Z" {
			t.Fatalf("payouts %v", payouts)
		}
		if ep, _ := db.EnrolledPartnerByID(ctx, e.ws.ID, e.prog.ID, pn); ep.Stats.Commissions != 1000 {
			t.Errorf("totalCommissions %d, want 1000", ep.Stats.Commissions)
		}

		// A lead with a new customer: customer, click, lead event and a $5 commission.
		e.ok(202, "acme", "POST", "/commissions", `{"type":"lead","partnerId":"`+pn+`","customer":{"externalId":"cust_1","country":"DE","email":"c1@example.com"},"leadEventName":"Sign up"}`)
		cust, err := db.CustomerByExternalID(ctx, e.ws.ID, "cust_1")
		if err != nil || cust.LinkID == nil || *cust.LinkID != e.link || cust.PartnerID == nil || *cust.PartnerID != pn || cust.ClickID == nil {
			t.Fatalf("customer %+v %v", cust, err)
		}
		leads := e.commissions(t, "?type=lead")
		if len(leads) != 1 || leads[0]["earnings"].(float64) != 500 || leads[0]["customer"].(map[string]any)["id"] != cust.ID {
			t.Fatalf("lead commissions %v", leads)
		}
		l := e.ok(200, "acme", "GET", "/links/"+e.link, "").json(t)
		if l["clicks"].(float64) != 1 || l["leads"].(float64) != 1 {
			t.Errorf("link counters %v %v", l["clicks"], l["leads"])
		}
		// A second lead commission for the same customer earns nothing.
		e.ok(202, "acme", "POST", "/commissions", `{"type":"lead","partnerId":"`+pn+`","customerId":"`+cust.ID+`"}`)
		if got := e.commissions(t, "?type=lead"); len(got) != 1 {
			t.Errorf("repeated lead: %d lead commissions", len(got))
		}
		// A sale (SDK-ahead fields): 10% of 20000 cents, invoice idempotent.
		e.ok(202, "acme", "POST", "/commissions", `{"type":"sale","partnerId":"`+pn+`","customerId":"`+cust.ID+`","importStripeInvoices":false,"sale":{"amount":20000,"invoiceId":"inv_1","metadata":{"plan":"pro"}}}`)
		sales := e.commissions(t, "?type=sale")
		if len(sales) != 1 || sales[0]["amount"].(float64) != 20000 || sales[0]["earnings"].(float64) != 2000 || sales[0]["invoiceId"] != "inv_1" {
			t.Fatalf("sale commissions %v", sales)
		}
		e.expectErr(e.do("acme", "POST", "/commissions", `{"type":"sale","partnerId":"`+pn+`","customerId":"`+cust.ID+`","saleAmount":100,"invoiceId":"inv_1"}`),
			409, "conflict", "There is already a commission for the invoice inv_1.")
		e.expectErr(e.do("acme", "POST", "/commissions", `{"type":"sale","partnerId":"`+pn+`","customerId":"`+cust.ID+`","importStripeInvoices":true}`),
			400, "bad_request", "Your workspace isn't connected to Stripe yet. Relink has no Stripe integration: send `saleAmount` (or `sale.amount`) with `importStripeInvoices: false` instead.")
		if l := e.ok(200, "acme", "GET", "/links/"+e.link, "").json(t); l["sales"].(float64) != 1 || l["saleAmount"].(float64) != 20000 {
			t.Errorf("link sales %v %v", l["sales"], l["saleAmount"])
		}
		// Another workspace's customer is refused.
		foreign := &models.Customer{ID: "cus_foreign", WorkspaceID: e.linkEnv.ws["other"].ID, ExternalID: "x", CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if err := db.CreateCustomer(ctx, foreign); err != nil {
			t.Fatal(err)
		}
		e.expectErr(e.do("acme", "POST", "/commissions", `{"type":"lead","partnerId":"`+pn+`","customerId":"cus_foreign"}`),
			400, "bad_request", "Customer cus_foreign does not belong to the workspace.")
		// A partner without links.
		bareP := e.ok(201, "acme", "POST", "/partners", `{"email":"bare@example.com"}`).json(t)
		bare := bareP["id"].(string)
		e.ok(200, "acme", "DELETE", "/links/"+onlyLink(t, bareP, "bare"), "")
		e.expectErr(e.do("acme", "POST", "/commissions", `{"type":"lead","partnerId":"`+bare+`","customerId":"`+cust.ID+`"}`),
			400, "bad_request", "Partner bare@example.com ("+bare+") has no links.")
		// "other" cannot create commissions for acme's partner.
		e.expectErr(e.do("other", "POST", "/commissions", `{"type":"custom","partnerId":"`+pn+`","amount":5}`), 404, "not_found",
			"Partner "+pn+" is not enrolled in program "+mustProgram(t, db, e.linkEnv.ws["other"]).ID+".")
	})
}

func mustProgram(t *testing.T, db *models.DB, ws *models.Workspace) *models.Program {
	t.Helper()
	p, err := db.DefaultProgram(context.Background(), ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBulkUpdateCommissions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newProgramEnv(t, db)
		pn := e.partner
		for _, amount := range []string{"100", "200", "300"} {
			e.ok(202, "acme", "POST", "/commissions", `{"type":"custom","partnerId":"`+pn+`","amount":`+amount+`}`)
		}
		cms := e.commissions(t, "?sortBy=createdAt&sortOrder=asc")
		a, b, c := cms[0]["id"].(string), cms[1]["id"].(string), cms[2]["id"].(string)
		payout := e.ok(200, "acme", "GET", "/payouts", "").list(t)[0]
		if payout["amount"].(float64) != 600 {
			t.Fatalf("payout %v", payout)
		}
		for _, tc := range []struct {
			name, body string
			status     int
			code, msg  string
		}{
			{"no ids", `{"commissionIds":[],"status":"canceled"}`, 422, "unprocessable_entity", "too_small: commissionIds: At least one commission ID is required."},
			{"duplicates", `{"commissionIds":["a","a"],"status":"canceled"}`, 422, "unprocessable_entity", "custom: commissionIds: commissionIds must be unique."},
			{"too many", `{"commissionIds":` + jsonString(manyIDs(101)) + `,"status":"canceled"}`, 422, "unprocessable_entity", "too_big: commissionIds: You can only update up to 100 commissions at a time."},
			{"bad status", `{"commissionIds":["a"],"status":"paid"}`, 422, "unprocessable_entity", `invalid_value: status: Invalid option: expected one of "pending"|"refunded"|"duplicate"|"canceled"|"fraud"`},
			{"missing status", `{"commissionIds":["a"]}`, 422, "unprocessable_entity", `invalid_value: status: Invalid option: expected one of "pending"|"refunded"|"duplicate"|"canceled"|"fraud"`},
			{"unknown id", `{"commissionIds":["` + a + `","cm_nope"],"status":"canceled"}`, 404, "not_found", "Cannot update commissions: One or more commissions were not found in this program or the IDs are invalid."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", "PATCH", "/commissions/bulk", tc.body), tc.status, tc.code, tc.msg)
			})
		}
		e.expectErr(e.do("other", "PATCH", "/commissions/bulk", `{"commissionIds":["`+a+`"],"status":"canceled"}`), 404, "not_found",
			"Cannot update commissions: One or more commissions were not found in this program or the IDs are invalid.")
		// Answer ordered by id; the payout loses the two commissions.
		got := e.ok(200, "acme", "PATCH", "/commissions/bulk", `{"commissionIds":["`+c+`","`+a+`"],"status":"canceled"}`).list(t)
		if len(got) != 2 || got[0]["id"] != min(a, c) || got[1]["id"] != max(a, c) || got[0]["status"] != "canceled" {
			t.Fatalf("bulk answer %v", got)
		}
		p := e.ok(200, "acme", "GET", "/payouts", "").list(t)
		if len(p) != 1 || p[0]["amount"].(float64) != 200 {
			t.Fatalf("payout after cancel %v", p)
		}
		if cm, _ := db.CommissionByID(ctx, e.ws.ID, e.prog.ID, a); cm.PayoutID != nil || cm.Status != "canceled" {
			t.Errorf("canceled commission %+v still in a payout", cm)
		}
		if ep, _ := db.EnrolledPartnerByID(ctx, e.ws.ID, e.prog.ID, pn); ep.Stats.Commissions != 200 {
			t.Errorf("totalCommissions %d, want 200", ep.Stats.Commissions)
		}
		e.expectErr(e.do("acme", "PATCH", "/commissions/bulk", `{"commissionIds":["`+a+`"],"status":"canceled"}`), 400, "bad_request",
			"The following commission(s) are already in the canceled status: "+a)
		// The last commission leaves: the payout is deleted.
		e.ok(200, "acme", "PATCH", "/commissions/bulk", `{"commissionIds":["`+b+`"],"status":"fraud"}`)
		if p := e.ok(200, "acme", "GET", "/payouts", "").list(t); len(p) != 0 {
			t.Fatalf("empty payout kept: %v", p)
		}
		// Back to pending: aggregated again. Confirmed payouts lock their commissions.
		e.ok(200, "acme", "PATCH", "/commissions/bulk", `{"commissionIds":["`+b+`"],"status":"pending"}`)
		if _, err := db.AggregateProgram(ctx, e.ws.ID, e.prog.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.ConfirmPayouts(ctx, e.prog, nil, nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		e.expectErr(e.do("acme", "PATCH", "/commissions/bulk", `{"commissionIds":["`+b+`"],"status":"refunded"}`), 400, "bad_request",
			"Cannot update commissions: "+b+" (its payout is already processing)")
		// The single update follows upstream's update-partner-commission.ts.
		e.expectErr(e.do("acme", "PATCH", "/commissions/"+b, `{"status":"refunded"}`), 400, "bad_request",
			"Cannot update commission: Its payout is already processing.")
		po := e.ok(200, "acme", "GET", "/payouts", "").list(t)[0]["id"].(string)
		if _, err := db.CompletePayouts(ctx, e.ws.ID, e.prog.ID, []string{po}, time.Now()); err != nil {
			t.Fatal(err)
		}
		e.expectErr(e.do("acme", "PATCH", "/commissions/bulk", `{"commissionIds":["`+b+`"],"status":"refunded"}`), 400, "bad_request",
			"Cannot update commissions: The following commission(s) have already been paid: "+b)
		e.expectErr(e.do("acme", "PATCH", "/commissions/"+b, `{"status":"refunded"}`), 400, "bad_request",
			"Cannot update commission: Commission "+b+" has already been paid.")
		e.expectErr(e.do("acme", "PATCH", "/commissions/"+a, `{"status":"canceled"}`), 400, "bad_request",
			"This commission is already in the canceled status.")
		e.expectErr(e.do("acme", "PATCH", "/commissions/"+a, `{"saleAmount":5000}`), 400, "bad_request",
			"Cannot update sale amount: Commission "+a+" is not a sale commission.")
	})
}

func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "cm_" + strings.Repeat("x", i+1)
	}
	return out
}

func TestBanAndDeactivatePartner(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newProgramEnv(t, db)
		pn := e.partner
		reasons := `invalid_value: reason: Invalid option: expected one of "tos_violation"|"inappropriate_content"|"fake_traffic"|"fraud"|"spam"|"brand_abuse"`
		for _, tc := range []struct {
			name, path, body string
			status           int
			code, msg        string
		}{
			{"ban: no reason", "/partners/ban", `{"partnerId":"pn_x"}`, 422, "unprocessable_entity", reasons},
			{"ban: bad reason", "/partners/ban", `{"partnerId":"pn_x","reason":"rude"}`, 422, "unprocessable_entity", reasons},
			{"ban: no selector", "/partners/ban", `{"reason":"fraud"}`, 400, "bad_request", "Either `partnerId` or `tenantId` must be provided."},
			{"ban: unknown tenant", "/partners/ban", `{"tenantId":"t_x","reason":"fraud"}`, 404, "not_found", "Partner with tenantId t_x not found in program."},
			{"ban: not enrolled", "/partners/ban", `{"partnerId":"pn_x","reason":"fraud"}`, 404, "not_found", "Partner pn_x is not enrolled in program " + e.prog.ID + "."},
			{"deactivate: no selector", "/partners/deactivate", `{}`, 400, "bad_request", "Either `partnerId` or `tenantId` must be provided."},
			{"deactivate: unknown tenant", "/partners/deactivate", `{"tenantId":"t_x"}`, 404, "not_found", "Partner with tenantId t_x not found in program."},
			{"deactivate: not JSON", "/partners/deactivate", `{`, 400, "bad_request", "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", "POST", tc.path, tc.body), tc.status, tc.code, tc.msg)
			})
		}
		e.expectErr(e.do("pro", "POST", "/partners/ban", `{"partnerId":"x","reason":"fraud"}`), 403, "forbidden", "Unauthorized: Need higher plan.")
		e.expectErr(e.do("other", "POST", "/partners/ban", `{"partnerId":"`+pn+`","reason":"fraud"}`), 404, "not_found",
			"Partner "+pn+" is not enrolled in program "+mustProgram(t, db, e.linkEnv.ws["other"]).ID+".")

		// Pat has a processed commission in a pending payout, a pending one
		// (held back by a holding period) and an open bounty submission.
		e.ok(202, "acme", "POST", "/commissions", `{"type":"custom","partnerId":"`+pn+`","amount":700}`)
		grp, _ := db.GroupByIDOrSlug(ctx, e.ws.ID, e.prog.ID, models.DefaultGroupSlug)
		grp.HoldingPeriodDays = 30
		if err := db.SaveGroup(ctx, grp); err != nil {
			t.Fatal(err)
		}
		e.ok(202, "acme", "POST", "/commissions", `{"type":"lead","partnerId":"`+pn+`","customer":{"externalId":"c","country":"US"}}`)
		b := &models.Bounty{WorkspaceID: e.ws.ID, ProgramID: e.prog.ID, Name: "Post", RewardAmount: 100, GoalEarnings: 1, StartsAt: time.Now()}
		if err := db.CreateBounty(ctx, b, time.Now()); err != nil {
			t.Fatal(err)
		}
		sub := &models.BountySubmission{ID: "bnty_sub_1", WorkspaceID: e.ws.ID, ProgramID: e.prog.ID, BountyID: b.ID, PartnerID: pn,
			Status: models.SubmissionSubmitted, PeriodNumber: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if err := db.CreateSubmission(ctx, sub); err != nil {
			t.Fatal(err)
		}
		if cms := e.commissions(t, ""); len(cms) != 2 {
			t.Fatalf("setup commissions %v", cms)
		}
		// The redirect's link cache holds pat's link before the ban.
		if got := e.cached("localhost:8080", "pat"); got == "none" {
			t.Fatalf("link cache before the ban: %q", got)
		}
		got := e.ok(200, "acme", "POST", "/partners/ban", `{"tenantId":"t_pat","reason":"fraud"}`).json(t)
		if got["partnerId"] != pn {
			t.Fatalf("ban answer %v", got)
		}
		ep, _ := db.EnrolledPartnerByID(ctx, e.ws.ID, e.prog.ID, pn)
		en := ep.Enrollment
		if en.Status != "banned" || en.BannedAt == nil || en.BannedReason == nil || *en.BannedReason != "fraud" || en.LeadRewardID != nil || en.SaleRewardID != nil {
			t.Errorf("banned enrollment %+v", en)
		}
		if l, _ := db.LinkByID(ctx, e.ws.ID, e.link); l.DisabledAt == nil || l.ExpiresAt == nil {
			t.Errorf("banned partner's link %+v is not disabled and expired", l)
		}
		if got := e.cached("localhost:8080", "pat"); got != "none" {
			t.Errorf("link cache after the ban: %q, the disabled link still redirects", got)
		}
		for _, c := range e.commissions(t, "?partnerId="+pn) {
			if c["status"] != "canceled" {
				t.Errorf("commission %s is %s after the ban", c["id"], c["status"])
			}
		}
		if p := e.ok(200, "acme", "GET", "/payouts", "").list(t); len(p) != 1 || p[0]["status"] != "canceled" {
			t.Errorf("payouts after ban %v", p)
		}
		if s, _ := db.SubmissionByID(ctx, e.ws.ID, "bnty_sub_1"); s.Status != "rejected" || s.RejectionNote == nil || *s.RejectionNote != "Rejected automatically because the partner was banned." {
			t.Errorf("submission after ban %+v", s)
		}
		if ep.Stats.Commissions != 0 {
			t.Errorf("totalCommissions %d after ban", ep.Stats.Commissions)
		}
		e.expectErr(e.do("acme", "POST", "/partners/ban", `{"partnerId":"`+pn+`","reason":"spam"}`), 400, "bad_request", "This partner is already banned from your program.")
		e.expectErr(e.do("acme", "POST", "/partners/deactivate", `{"partnerId":"`+pn+`"}`), 400, "bad_request",
			`Only partners with an "approved" or "archived" status can be deactivated. The partner's status in this program is "banned".`)
		// A banned partner earns nothing more from tracked conversions.
		e.ok(202, "acme", "POST", "/commissions", `{"type":"lead","partnerId":"`+pn+`","customer":{"externalId":"c2","country":"US"}}`)
		if cms := e.commissions(t, "?partnerId="+pn); len(cms) != 2 {
			t.Errorf("banned partner earned: %v", cms)
		}

		// Deactivate: links without an expiry expire, commissions stay.
		sam := e.ok(201, "acme", "POST", "/partners", `{"email":"sam@example.com","tenantId":"t_sam"}`).json(t)["id"].(string)
		l1 := e.ok(201, "acme", "POST", "/partners/links", `{"partnerId":"`+sam+`","key":"sam1"}`).json(t)["id"].(string)
		l2 := e.ok(201, "acme", "POST", "/partners/links", `{"partnerId":"`+sam+`","key":"sam2","linkProps":{"expiresAt":"2099-01-01T00:00:00Z"}}`).json(t)["id"].(string)
		e.ok(202, "acme", "POST", "/commissions", `{"type":"custom","partnerId":"`+sam+`","amount":300}`)
		if got := e.ok(200, "acme", "POST", "/partners/deactivate", `{"partnerId":"`+sam+`"}`).json(t); got["partnerId"] != sam {
			t.Fatalf("deactivate answer %v", got)
		}
		if en, _ := db.EnrollmentByPartner(ctx, e.ws.ID, e.prog.ID, sam); en.Status != "deactivated" || en.SaleRewardID != nil {
			t.Errorf("deactivated enrollment %+v", en)
		}
		a, _ := db.LinkByID(ctx, e.ws.ID, l1)
		z, _ := db.LinkByID(ctx, e.ws.ID, l2)
		if a.ExpiresAt == nil || a.DisabledAt != nil || z.ExpiresAt == nil || z.ExpiresAt.Year() != 2099 {
			t.Errorf("deactivated links %+v / %+v", a, z)
		}
		if cms := e.commissions(t, "?partnerId="+sam); len(cms) != 1 || cms[0]["status"] != "processed" {
			t.Errorf("deactivation touched commissions: %v", cms)
		}
		e.expectErr(e.do("acme", "POST", "/partners/deactivate", `{"partnerId":"`+sam+`"}`), 400, "bad_request",
			`Only partners with an "approved" or "archived" status can be deactivated. The partner's status in this program is "deactivated".`)
		// A pending enrollment cannot be banned.
		if err := db.SetEnrollmentStatus(ctx, &models.Enrollment{ID: mustEnrollment(t, db, e, sam).ID, WorkspaceID: e.ws.ID}, models.EnrollmentPending); err != nil {
			t.Fatal(err)
		}
		e.expectErr(e.do("acme", "POST", "/partners/ban", `{"partnerId":"`+sam+`","reason":"spam"}`), 400, "bad_request", "This partner is not approved yet to be banned.")
	})
}

func mustEnrollment(t *testing.T, db *models.DB, e *programEnv, partnerID string) *models.Enrollment {
	t.Helper()
	en, err := db.EnrollmentByPartner(context.Background(), e.ws.ID, e.prog.ID, partnerID)
	if err != nil {
		t.Fatal(err)
	}
	return en
}

func (e *programEnv) apply(t *testing.T, name, email, country string) *models.ProgramApplication {
	t.Helper()
	ctx := context.Background()
	prog, _ := e.db.DefaultProgram(ctx, e.ws.ID)
	site, promo := "https://"+name+".example", "A newsletter"
	a, err := e.srv.Services().Conversions.SubmitApplication(ctx, e.ws, prog, conversions.ApplicationInput{Name: name, Email: email, Country: &country,
		Website: &site, Socials: map[string]string{"youtube": "@" + name}, Answers: []models.ApplicationAnswer{{Label: "How?", Value: &promo}, {Label: "Empty", Value: new(string)}}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestPartnerApplications(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newProgramEnv(t, db)
		svc := e.srv.Services().Conversions
		// Closed until opened.
		if _, err := svc.SubmitApplication(ctx, e.ws, e.prog, conversions.ApplicationInput{Name: "x", Email: "x@example.com"}); !apierr.Is(err, apierr.Forbidden) {
			t.Fatalf("closed page accepted an application: %v", err)
		}
		if err := svc.OpenApplications(ctx, e.prog, true); err != nil {
			t.Fatal(err)
		}
		grp, _ := db.GroupByIDOrSlug(ctx, e.ws.ID, e.prog.ID, models.DefaultGroupSlug)
		grp.DefaultLinks = models.Some([]models.DefaultLink{{Domain: "localhost:8080", URL: "https://shop.example/"}})
		if err := db.SaveGroup(ctx, grp); err != nil {
			t.Fatal(err)
		}
		ann := e.apply(t, "ann", "ann@example.com", "DE")
		time.Sleep(5 * time.Millisecond)
		e.apply(t, "bob", "bob@example.com", "US")
		time.Sleep(5 * time.Millisecond)
		e.apply(t, "cat", "cat@example.com", "US")
		if _, err := svc.SubmitApplication(ctx, e.ws, e.prog, conversions.ApplicationInput{Name: "Ann", Email: "ann@example.com"}); !apierr.Is(err, apierr.Conflict) {
			t.Fatalf("second application: %v", err)
		}
		// Applicants are not in GET /partners?status=approved, and have no links.
		list := e.ok(200, "acme", "GET", "/partners/applications", "").list(t)
		if len(list) != 3 || list[0]["partner"].(map[string]any)["email"] != "cat@example.com" {
			t.Fatalf("applications %v", list)
		}
		last := list[2]
		p := last["partner"].(map[string]any)
		form := last["applicationFormData"].([]any)
		if last["id"] != ann.ID || p["status"] != "pending" || p["country"] != "DE" || p["website"] != "https://ann.example" || p["youtube"] != "@ann" ||
			p["groupId"] != grp.ID || len(form) != 2 || form[0].(map[string]any)["value"] != "A newsletter" || form[1].(map[string]any)["value"] != nil {
			t.Errorf("ann's application %v", last)
		}
		if got := e.ok(200, "acme", "GET", "/partners/applications?country=US&pageSize=1", "").list(t); len(got) != 1 || got[0]["partner"].(map[string]any)["name"] != "cat" {
			t.Errorf("country filter and paging %v", got)
		}
		if got := e.ok(200, "acme", "GET", "/partners/applications?groupId=grp_none", "").list(t); len(got) != 0 {
			t.Errorf("group filter %v", got)
		}
		if got := e.ok(200, "other", "GET", "/partners/applications", "").list(t); len(got) != 0 {
			t.Errorf("other workspace sees %v", got)
		}
		e.expectErr(e.do("pro", "GET", "/partners/applications", ""), 403, "forbidden", "Unauthorized: Need higher plan.")
		annID := p["id"].(string)
		bobID := list[1]["partner"].(map[string]any)["id"].(string)
		catID := list[0]["partner"].(map[string]any)["id"].(string)

		for _, tc := range []struct {
			name, path, body string
			status           int
			code, msg        string
		}{
			{"approve: no partner", "/partners/applications/approve", `{}`, 422, "unprocessable_entity", "invalid_type: partnerId: Invalid input: expected string, received undefined"},
			{"approve: unknown", "/partners/applications/approve", `{"partnerId":"pn_x"}`, 404, "not_found", "Program enrollment not found."},
			{"approve: already approved", "/partners/applications/approve", `{"partnerId":"` + e.partner + `"}`, 400, "bad_request", "This enrollment cannot be approved because it is already approved."},
			{"approve: unknown group", "/partners/applications/approve", `{"partnerId":"` + annID + `","groupId":"vip"}`, 404, "not_found", `Group "vip" not found.`},
			{"reject: no partner", "/partners/applications/reject", `{}`, 422, "unprocessable_entity", "invalid_type: partnerId: Invalid input: expected string, received undefined"},
			{"reject: bad reason", "/partners/applications/reject", `{"partnerId":"x","rejectionReason":"meh"}`, 422, "unprocessable_entity", `invalid_value: rejectionReason: Invalid option: expected one of "needsMoreDetail"|"doesNotMeetRequirements"|"notTheRightFit"|"other"`},
			{"reject: note too long", "/partners/applications/reject", `{"partnerId":"x","rejectionNote":"` + strings.Repeat("n", 501) + `"}`, 422, "unprocessable_entity", "too_big: rejectionNote: Too big: expected string to have <=500 characters"},
			{"reject: fraud instant", "/partners/applications/reject", `{"partnerId":"x","reapplicationTimeframe":"instant","flagForFraud":true,"flagForFraudReason":"x"}`, 400, "bad_request", "Cannot flag for fraud when allowing the partner to reapply immediately."},
			{"reject: fraud without reason", "/partners/applications/reject", `{"partnerId":"x","flagForFraud":true}`, 400, "bad_request", "Fraud reason is required when flagging for fraud."},
			{"reject: unknown", "/partners/applications/reject", `{"partnerId":"pn_x"}`, 404, "not_found", "Program enrollment not found."},
			{"reject: approved", "/partners/applications/reject", `{"partnerId":"` + e.partner + `"}`, 400, "bad_request", "This enrollment cannot be rejected because it is no longer pending."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", "POST", tc.path, tc.body), tc.status, tc.code, tc.msg)
			})
		}
		e.expectErr(e.do("other", "POST", "/partners/applications/approve", `{"partnerId":"`+annID+`"}`), 404, "not_found", "Program enrollment not found.")

		// Approve: enrolled from now, with the group's rewards and default links.
		before := time.Now().Add(-time.Second)
		if got := e.ok(200, "acme", "POST", "/partners/applications/approve", `{"partnerId":"`+annID+`","groupId":"default"}`).json(t); got["partnerId"] != annID {
			t.Fatalf("approve answer %v", got)
		}
		ep, _ := db.EnrolledPartnerByID(ctx, e.ws.ID, e.prog.ID, annID)
		if ep.Enrollment.Status != "approved" || ep.Enrollment.CreatedAt.Before(before) || ep.Enrollment.SaleRewardID == nil || len(ep.Links) != 1 {
			t.Errorf("approved enrollment %+v, %d links", ep.Enrollment, len(ep.Links))
		}
		if a, _ := db.ApplicationByID(ctx, e.ws.ID, ann.ID); a.ReviewedAt == nil {
			t.Error("application not marked reviewed")
		}
		// Reject (standard): rejected, rewards cleared; a second reject is refused; approve from rejected works.
		e.ok(200, "acme", "POST", "/partners/applications/reject", `{"partnerId":"`+bobID+`","rejectionReason":"notTheRightFit","rejectionNote":" Sorry "}`)
		if en := mustEnrollment(t, db, e, bobID); en.Status != "rejected" || en.SaleRewardID != nil {
			t.Errorf("rejected enrollment %+v", en)
		}
		e.expectErr(e.do("acme", "POST", "/partners/applications/reject", `{"partnerId":"`+bobID+`"}`), 400, "bad_request", "This enrollment cannot be rejected because it is no longer pending.")
		// Instant: the enrollment is deleted and the partner may apply again.
		e.ok(200, "acme", "POST", "/partners/applications/reject", `{"partnerId":"`+catID+`","reapplicationTimeframe":"instant"}`)
		if _, err := db.EnrollmentByPartner(ctx, e.ws.ID, e.prog.ID, catID); !models.IsNotFound(err) {
			t.Errorf("instant rejection kept the enrollment: %v", err)
		}
		e.apply(t, "cat", "cat@example.com", "US")
		if got := e.ok(200, "acme", "GET", "/partners/applications", "").list(t); len(got) != 1 || got[0]["partner"].(map[string]any)["id"] != catID {
			t.Errorf("after reviews %v", got)
		}
		e.ok(200, "acme", "POST", "/partners/applications/approve", `{"partnerId":"`+bobID+`"}`)
		if en := mustEnrollment(t, db, e, bobID); en.Status != "approved" {
			t.Errorf("approve from rejected: %s", en.Status)
		}
	})
}

func TestBountySubmissions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newProgramEnv(t, db)
		pn := e.partner
		now := time.Now()
		proof := &models.Bounty{WorkspaceID: e.ws.ID, ProgramID: e.prog.ID, Name: "Post about us", Type: models.BountyProof, StartsAt: now.Add(-time.Hour)}
		perf := &models.Bounty{WorkspaceID: e.ws.ID, ProgramID: e.prog.ID, Name: "Sell $10", RewardAmount: 5000, GoalEarnings: 1000, StartsAt: now.Add(-time.Hour)}
		for _, b := range []*models.Bounty{proof, perf} {
			if err := db.CreateBounty(ctx, b, now); err != nil {
				t.Fatal(err)
			}
		}
		e.keys["embed"] = e.ok(201, "acme", "POST", "/tokens/embed/referrals", `{"partnerId":"`+pn+`"}`).json(t)["publicToken"].(string)
		e.expectErr(e.do("embed", "POST", "/embed/referrals/bounties/"+proof.ID+"/submissions", `{"urls":["javascript:x"]}`), 422, "unprocessable_entity", "invalid_format: urls[0]: Invalid URL")
		e.expectErr(e.do("embed", "POST", "/embed/referrals/bounties/"+proof.ID+"/submissions", `{}`), 422, "unprocessable_entity", "custom: urls: Add a link or a description of what you did.")
		// A draft needs no proof yet, is listed, cannot be reviewed and is
		// replaced by the final submission (spec/parity.md §7.3, §7.5 check 6).
		draft := e.ok(200, "embed", "POST", "/embed/referrals/bounties/"+proof.ID+"/submissions", `{"isDraft":true}`).json(t)
		if draft["status"] != "draft" || draft["completedAt"] != nil {
			t.Fatalf("draft %v", draft)
		}
		dbase := "/bounties/" + proof.ID + "/submissions/" + draft["id"].(string)
		e.expectErr(e.do("acme", "POST", dbase+"/approve", `{"rewardAmount":100}`), 400, "bad_request", "This bounty submission is in progress and cannot be approved.")
		e.expectErr(e.do("acme", "POST", dbase+"/reject", ""), 400, "bad_request", "This bounty submission is in progress and cannot be rejected.")
		if got := e.ok(200, "acme", "GET", "/bounties/"+proof.ID+"/submissions?status=draft", "").list(t); len(got) != 1 || got[0]["id"] != draft["id"] {
			t.Fatalf("drafts %v", got)
		}
		sub := e.ok(200, "embed", "POST", "/embed/referrals/bounties/"+proof.ID+"/submissions", `{"urls":["https://blog.example/post"],"description":"My post"}`).json(t)
		if sub["status"] != "submitted" || sub["partnerId"] != pn || sub["id"] != draft["id"] || sub["completedAt"] == nil {
			t.Fatalf("submission %v (draft %v)", sub, draft)
		}
		e.expectErr(e.do("embed", "POST", "/embed/referrals/bounties/"+proof.ID+"/submissions", `{"description":"again"}`), 409, "conflict", "You already have a submitted submission for this period.")
		e.expectErr(e.do("embed", "POST", "/embed/referrals/bounties/"+perf.ID+"/submissions", `{}`), 400, "bad_request", "You have not reached this bounty's goal yet.")
		e.ok(202, "acme", "POST", "/commissions", `{"type":"sale","partnerId":"`+pn+`","customer":{"externalId":"b","country":"US"},"saleAmount":20000}`)
		claim := e.ok(200, "embed", "POST", "/embed/referrals/bounties/"+perf.ID+"/submissions", `{}`).json(t)
		if claim["performanceCount"].(float64) != 2000 {
			t.Fatalf("claim %v", claim)
		}
		subID, claimID := sub["id"].(string), claim["id"].(string)

		list := e.ok(200, "acme", "GET", "/bounties/"+proof.ID+"/submissions", "").list(t)
		if len(list) != 1 || list[0]["id"] != subID || list[0]["urls"].([]any)[0] != "https://blog.example/post" || list[0]["periodNumber"].(float64) != 1 ||
			list[0]["completedAt"] == nil || list[0]["reviewedAt"] != nil {
			t.Fatalf("submissions %v", list)
		}
		for _, k := range []string{"files", "socialMetricCount", "rejectionReason", "rejectionNote", "performanceCount"} {
			if _, ok := list[0][k]; !ok {
				t.Errorf("submission has no %q", k)
			}
		}
		base := "/bounties/" + proof.ID + "/submissions/"
		for _, tc := range []struct {
			name, method, path, body string
			status                   int
			code, msg                string
		}{
			{"list: unknown bounty", "GET", "/bounties/bnty_x/submissions?status=nope", "", 404, "not_found", "Bounty bnty_x not found."},
			{"list: bad status", "GET", "/bounties/" + proof.ID + "/submissions?status=nope", "", 422, "unprocessable_entity", `invalid_value: status: Invalid option: expected one of "draft"|"submitted"|"approved"|"rejected"`},
			{"approve: unknown submission", "POST", base + "bnty_sub_x/approve", "", 404, "not_found", "Bounty submission bnty_sub_x not found."},
			{"approve: other bounty's submission", "POST", base + claimID + "/approve", "", 404, "not_found", "Bounty submission " + claimID + " not found for bounty " + proof.ID + "."},
			{"approve: no amount", "POST", base + subID + "/approve", "not json", 400, "bad_request", "Reward amount is required to approve the bounty submission."},
			{"approve: amount not a number", "POST", base + subID + "/approve", `{"rewardAmount":"x"}`, 422, "unprocessable_entity", "invalid_type: rewardAmount: Invalid input: expected number, received string"},
			{"reject: bad reason", "POST", base + subID + "/reject", `{"rejectionReason":"ugly"}`, 422, "unprocessable_entity", `invalid_value: rejectionReason: Invalid option: expected one of "invalidProof"|"duplicateSubmission"|"outOfTimeWindow"|"didNotMeetCriteria"|"other"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.sub(t).expectErr(e.do("acme", tc.method, tc.path, tc.body), tc.status, tc.code, tc.msg)
			})
		}
		e.expectErr(e.do("other", "GET", "/bounties/"+proof.ID+"/submissions", ""), 404, "not_found", "Bounty "+proof.ID+" not found.")
		e.expectErr(e.do("pro", "GET", "/bounties/"+proof.ID+"/submissions", ""), 403, "forbidden", "Unauthorized: Need higher plan.")

		approved := e.ok(200, "acme", "POST", base+subID+"/approve", `{"rewardAmount":2500}`).json(t)
		if approved["status"] != "approved" || approved["reviewedAt"] == nil {
			t.Fatalf("approved %v", approved)
		}
		custom := e.commissions(t, "?type=custom")
		if len(custom) != 1 || custom[0]["earnings"].(float64) != 2500 || custom[0]["description"] != `Commission for successfully completed "Post about us" bounty.` {
			t.Fatalf("bounty commission %v", custom)
		}
		if s, _ := db.SubmissionByID(ctx, e.ws.ID, subID); s.CommissionID == nil || *s.CommissionID != custom[0]["id"] {
			t.Errorf("submission not linked to its commission: %+v", s)
		}
		e.expectErr(e.do("acme", "POST", base+subID+"/approve", ""), 400, "bad_request", "This bounty submission has already been approved.")
		e.expectErr(e.do("acme", "POST", base+subID+"/reject", ""), 400, "bad_request", "This bounty submission has already been approved and cannot be rejected.")

		pbase := "/bounties/" + perf.ID + "/submissions/"
		rej := e.ok(200, "acme", "POST", pbase+claimID+"/reject", `{"rejectionReason":"invalidProof","rejectionNote":" Self-referrals "}`).json(t)
		if rej["status"] != "rejected" || rej["rejectionReason"] != "invalidProof" || rej["rejectionNote"] != "Self-referrals" {
			t.Fatalf("rejected %v", rej)
		}
		e.expectErr(e.do("acme", "POST", pbase+claimID+"/reject", ""), 400, "bad_request", "This bounty submission has already been rejected.")
		if got := e.ok(200, "acme", "GET", "/bounties/"+perf.ID+"/submissions", "").list(t); len(got) != 0 {
			t.Errorf("rejected submissions are hidden by default: %v", got)
		}
		if got := e.ok(200, "acme", "GET", "/bounties/"+perf.ID+"/submissions?status=rejected", "").list(t); len(got) != 1 {
			t.Errorf("status=rejected: %v", got)
		}
		// A rejected submission can still be approved: the bounty's own reward.
		e.ok(200, "acme", "POST", pbase+claimID+"/approve", "")
		if custom := e.commissions(t, "?type=custom"); len(custom) != 2 {
			t.Errorf("after approving the claim: %v", custom)
		}
		if ep, _ := db.EnrolledPartnerByID(ctx, e.ws.ID, e.prog.ID, pn); ep.Stats.Commissions != 2500+5000+2000 {
			t.Errorf("totalCommissions %d", ep.Stats.Commissions)
		}
	})
}

// TestProgramEvents: approving an application fires partner.enrolled and
// approving a bounty submission fires commission.created (spec/webhooks.md §3.7,
// §3.8), each in the approval's transaction; a refused approval fires
// nothing.
func TestProgramEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newProgramEnv(t, db)
		e.ok(201, "acme", "POST", "/webhooks", `{"name":"Program","url":"https://example.com/p","triggers":["partner.application_submitted","partner.enrolled","commission.created"]}`)
		if err := e.srv.Services().Conversions.OpenApplications(ctx, e.prog, true); err != nil {
			t.Fatal(err)
		}
		app := e.apply(t, "dan", "dan@example.com", "US")
		rows := outbox(t, db)
		want := `"data":{"id":"` + app.ID + `","createdAt":"`
		if len(rows) != 1 || rows[0].Event != "partner.application_submitted" || !strings.Contains(rows[0].Body, want) ||
			!strings.Contains(rows[0].Body, `"status":"pending","website":"https://dan.example","youtube":"@dan"`) ||
			!strings.Contains(rows[0].Body, `"applicationFormData":[{"label":"How?","value":"A newsletter"},{"label":"Empty","value":null}]`) {
			t.Fatalf("after the application: %+v", rows)
		}
		apps := e.ok(200, "acme", "GET", "/partners/applications", "").list(t)
		var danID string
		for _, a := range apps {
			if a["id"] == app.ID {
				danID = a["partner"].(map[string]any)["id"].(string)
			}
		}
		before := len(outbox(t, db))
		e.ok(200, "acme", "POST", "/partners/applications/approve", `{"partnerId":"`+danID+`"}`)
		rows = outbox(t, db)[before:]
		if len(rows) != 1 || rows[0].Event != "partner.enrolled" || !strings.Contains(rows[0].Body, `"id":"`+danID+`"`) || !strings.Contains(rows[0].Body, `"status":"approved"`) {
			t.Fatalf("after approving the application: %+v", rows)
		}
		e.do("acme", "POST", "/partners/applications/approve", `{"partnerId":"`+danID+`"}`) // already approved: refused
		if n := len(outbox(t, db)); n != before+1 {
			t.Errorf("a refused approval wrote %d events", n-before-1)
		}

		b := &models.Bounty{WorkspaceID: e.ws.ID, ProgramID: e.prog.ID, Name: "Post", Type: models.BountyProof, RewardAmount: 700, StartsAt: time.Now().Add(-time.Hour)}
		if err := db.CreateBounty(ctx, b, time.Now()); err != nil {
			t.Fatal(err)
		}
		e.keys["embed"] = e.ok(201, "acme", "POST", "/tokens/embed/referrals", `{"partnerId":"`+e.partner+`"}`).json(t)["publicToken"].(string)
		sub := e.ok(200, "embed", "POST", "/embed/referrals/bounties/"+b.ID+"/submissions", `{"description":"done"}`).json(t)
		before = len(outbox(t, db))
		e.ok(200, "acme", "POST", "/bounties/"+b.ID+"/submissions/"+sub["id"].(string)+"/approve", "")
		rows = outbox(t, db)[before:]
		if len(rows) != 1 || rows[0].Event != "commission.created" || !strings.Contains(rows[0].Body, `"earnings":700`) || !strings.Contains(rows[0].Body, `"type":"custom"`) {
			t.Fatalf("after approving the submission: %+v", rows)
		}
	})
}
