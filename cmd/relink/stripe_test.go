package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/relinkhq/relink/internal/testdb"
)

const (
	stripeLiveSecret = "whsec_live0123456789abcdefghijklmnop"
	stripeTestSecret = "whsec_test0123456789abcdefghijklmnop"
	stripeShort      = "go.relink.test"
)

var stripeObjects = template.Must(template.ParseGlob("testdata/stripe/*.json"))

// hookRecorder is a webhook receiver that keeps every delivered event.
type hookRecorder struct {
	mu     sync.Mutex
	events []map[string]any
}

func (h *hookRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var ev map[string]any
	b, _ := io.ReadAll(r.Body)
	if json.Unmarshal(b, &ev) == nil {
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
	}
	w.WriteHeader(200)
}

// wait returns the delivered events named event once there are n of them.
func (h *hookRecorder) wait(t *testing.T, event string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var got []map[string]any
		h.mu.Lock()
		for _, e := range h.events {
			if e["event"] == event {
				got = append(got, e)
			}
		}
		h.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d %s webhooks delivered, want %d", len(got), event, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stripeFixture is a running server with a connected workspace, a program
// paying 20% of sales, a partner link and its clicks.
type stripeFixture struct {
	t      *testing.T
	in     *instance
	env    map[string]string // the server's environment, for CLI commands
	key    string
	wsID   string
	linkID string
	clicks []string
	hooks  *hookRecorder
	seq    int
}

// q is a JSON string, or null for "".
func q(s string) string {
	if s == "" {
		return "null"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// event renders a Stripe object from testdata/stripe and wraps it in an
// event envelope as Stripe sends it.
func (f *stripeFixture) event(typ, object string, live bool, data map[string]any) []byte {
	f.t.Helper()
	data["Livemode"] = live
	var obj bytes.Buffer
	if err := stripeObjects.ExecuteTemplate(&obj, object+".json", data); err != nil {
		f.t.Fatal(err)
	}
	if !json.Valid(obj.Bytes()) {
		f.t.Fatalf("%s: invalid JSON: %s", object, obj.String())
	}
	f.seq++
	return fmt.Appendf(nil, `{"id":"evt_%s_%d","object":"event","api_version":"2025-10-29.clover","created":%d,"data":{"object":%s},"livemode":%t,"pending_webhooks":1,"request":{"id":null,"idempotency_key":null},"type":%q}`,
		strings.ReplaceAll(typ, ".", "_"), f.seq, time.Now().Unix(), obj.String(), live, typ)
}

// post sends a payload to the workspace's endpoint with a Stripe-Signature
// header made by stripe-go's test helper (no header for an empty secret).
func (f *stripeFixture) post(wsID string, payload []byte, secret string, at time.Time) (int, map[string]any) {
	f.t.Helper()
	req, _ := http.NewRequest("POST", f.in.api+"/stripe/webhook/"+wsID, bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if secret != "" {
		sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at})
		req.Header.Set("Stripe-Signature", sp.Header)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		f.t.Fatalf("answer %d is not JSON: %s", res.StatusCode, b)
	}
	return res.StatusCode, out
}

// deliver sends a signed event and wants 200 with a response containing want.
func (f *stripeFixture) deliver(payload []byte, secret, want string) {
	f.t.Helper()
	st, out := f.post(f.wsID, payload, secret, time.Now())
	if st != 200 || !strings.Contains(fmt.Sprint(out["response"]), want) {
		f.t.Fatalf("delivery: %d %v, want 200 with %q", st, out, want)
	}
}

func (f *stripeFixture) get(path string, out any) {
	f.t.Helper()
	if st := f.in.call(f.t, "GET", path, f.key, nil, out); st != 200 {
		f.t.Fatalf("GET %s: %d", path, st)
	}
}

// commission is the sale commission of an invoice id.
func (f *stripeFixture) commission(invoice string) map[string]any {
	f.t.Helper()
	var cs []map[string]any
	f.get("/commissions?type=sale&pageSize=100", &cs)
	for _, c := range cs {
		if c["invoiceId"] == invoice {
			return c
		}
	}
	f.t.Fatalf("no commission for invoice %s in %v", invoice, cs)
	return nil
}

func (f *stripeFixture) customer(stripeID string) map[string]any {
	f.t.Helper()
	var cs []map[string]any
	f.get("/customers?pageSize=100", &cs)
	for _, c := range cs {
		if c["stripeCustomerId"] == stripeID {
			return c
		}
	}
	f.t.Fatalf("no customer with stripeCustomerId %s in %v", stripeID, cs)
	return nil
}

func (f *stripeFixture) commissionCount() int {
	var cs []map[string]any
	f.get("/commissions?pageSize=100", &cs)
	return len(cs)
}

func newStripeFixture(t *testing.T, dialect string) *stripeFixture {
	dbURL := testdb.URL(t, dialect)
	env := map[string]string{"RELINK_DATABASE_URL": dbURL, "RELINK_SHORT_DOMAIN": stripeShort}
	r := relink(t, env, "workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "business")
	if r.code != 0 {
		t.Fatalf("workspace create: %s", r.stderr)
	}
	ws, key := decodeCreated(t, r.stdout)
	for _, args := range [][]string{
		{"program", "set", "--workspace", "acme", "--domain", stripeShort, "--url", "https://acme.example/"},
		{"program", "group", "set", "--workspace", "acme", "--default-link", stripeShort + "=https://acme.example/"},
		{"program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage", "--amount", "20", "--max-duration", "lifetime"},
		{"stripe", "connect", "--workspace", "acme", "--secret", stripeLiveSecret},
		{"stripe", "connect", "--workspace", "acme", "--secret", stripeTestSecret, "--mode", "test"},
	} {
		if r := relink(t, env, args...); r.code != 0 {
			t.Fatalf("%v: %s", args, r.stderr)
		}
	}
	f := &stripeFixture{t: t, key: key, wsID: ws["id"].(string), hooks: &hookRecorder{}, env: env}
	env["RELINK_WEBHOOK_TARGETS"], env["RELINK_CLICK_DEDUP_WINDOW"], env["RELINK_LOG_FORMAT"] = "any", "0", "json"
	f.in = startInstance(t, "stripe-"+dialect, env)
	recv := httptest.NewServer(f.hooks)
	t.Cleanup(recv.Close)
	if st := f.in.call(t, "POST", "/webhooks", key, map[string]any{"name": "Receiver", "url": recv.URL,
		"triggers": []string{"lead.created", "sale.created", "commission.created", "commission.updated"}}, nil); st != 201 {
		t.Fatalf("create webhook: %d", st)
	}
	var partner struct {
		Links []struct{ ID, Key string }
	}
	if st := f.in.call(t, "POST", "/partners", key, map[string]any{"email": "pat@example.com", "name": "Pat"}, &partner); st > 201 || len(partner.Links) == 0 {
		t.Fatalf("create partner: %d %v", st, partner)
	}
	f.linkID = partner.Links[0].ID
	if st := f.in.call(t, "PATCH", "/links/"+f.linkID, key, map[string]any{"trackConversion": true}, nil); st != 200 {
		t.Fatalf("track conversions: %d", st)
	}
	for i := range 3 {
		_, loc := f.in.redirect(t, stripeShort, partner.Links[0].Key, fmt.Sprintf("203.0.113.%d", i+1))
		u, err := url.Parse(loc)
		if err != nil || u.Query().Get("dub_id") == "" {
			t.Fatalf("redirect to %q has no dub_id", loc)
		}
		f.clicks = append(f.clicks, u.Query().Get("dub_id"))
	}
	return f
}

// TestStripeWebhook sends Stripe's events, signed with stripe-go's test
// helper, to the built server's Stripe endpoint on both dialects.
func TestStripeWebhook(t *testing.T) {
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			f := newStripeFixture(t, dialect)
			f.refusals()
			f.oneTimeCheckout()
			f.subscription()
			f.freeTrials()
			f.refunds()
		})
	}
}

// refusals: unsigned, badly signed, stale and unknown-workspace requests
// get 400 and record nothing; unused events answer 200.
func (f *stripeFixture) refusals() {
	t := f.t
	payload := f.event("checkout.session.completed", "checkout.session", true, f.checkoutData("cs_refused", "dub_id_"+f.clicks[0], "cus_X", "", "pi_X", 5000, "payment"))
	cases := []struct {
		name, ws, secret string
		at               time.Time
	}{
		{"unsigned", f.wsID, "", time.Now()},
		{"wrong secret", f.wsID, "whsec_someoneelse0123456789abcdef", time.Now()},
		{"stale", f.wsID, stripeLiveSecret, time.Now().Add(-10 * time.Minute)},
		{"unknown workspace", "ws_cnotaworkspace000000000000", stripeLiveSecret, time.Now()},
	}
	for _, c := range cases {
		st, out := f.post(c.ws, payload, c.secret, c.at)
		errObj, _ := out["error"].(map[string]any)
		if st != 400 || errObj["code"] != "bad_request" {
			t.Errorf("%s: %d %v, want 400 bad_request", c.name, st, out)
		}
	}
	tampered := bytes.Replace(payload, []byte(`"amount_total": 5000`), []byte(`"amount_total": 9000`), 1)
	sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: stripeLiveSecret})
	req, _ := http.NewRequest("POST", f.in.api+"/stripe/webhook/"+f.wsID, bytes.NewReader(tampered))
	req.Header.Set("Stripe-Signature", sp.Header)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 400 {
		t.Errorf("tampered body: %v %v", res, err)
	}
	if n := f.commissionCount(); n != 0 {
		t.Fatalf("refused requests recorded %d commissions", n)
	}
	f.deliver(fmt.Appendf(nil, `{"id":"evt_other","object":"event","api_version":"2025-10-29.clover","created":%d,"data":{"object":{"id":"prod_1","object":"product"}},"livemode":true,"type":"product.created"}`, time.Now().Unix()),
		stripeLiveSecret, "Unsupported event")
}

func (f *stripeFixture) checkoutData(id, ref, customer, invoice, pi string, amount int64, mode string) map[string]any {
	sub := ""
	if mode == "subscription" {
		sub = "sub_" + customer
	}
	return map[string]any{"ID": id, "ClientReferenceID": q(ref), "Customer": q(customer), "Invoice": q(invoice),
		"PaymentIntent": q(pi), "Subscription": q(sub), "Amount": amount, "Tax": 0, "Currency": "usd", "Mode": mode,
		"PaymentStatus": "paid", "Email": "jane@example.com", "Name": "Jane Doe", "Metadata": "{}"}
}

// oneTimeCheckout: a Checkout payment with client_reference_id dub_id_…
// creates the customer and its lead, then the sale, its commission and
// webhooks; Stripe's retry of the same event records nothing twice.
func (f *stripeFixture) oneTimeCheckout() {
	t := f.t
	payload := f.event("checkout.session.completed", "checkout.session", true, f.checkoutData("cs_one", "dub_id_"+f.clicks[0], "cus_A", "", "pi_A", 5000, "payment"))
	f.deliver(payload, stripeLiveSecret, "Sale recorded")
	f.deliver(payload, stripeLiveSecret, "already received")
	c := f.customer("cus_A")
	if c["sales"] != 1.0 || c["saleAmount"] != 5000.0 || c["name"] != "Jane Doe" {
		t.Errorf("customer after one sale: %v", c)
	}
	cm := f.commission("pi_A")
	if cm["amount"] != 5000.0 || cm["earnings"] != 1000.0 || cm["status"] != "pending" {
		t.Errorf("commission: %v", cm)
	}
	var link map[string]any
	f.get("/links/"+f.linkID, &link)
	if link["sales"] != 1.0 || link["saleAmount"] != 5000.0 || link["leads"] != 1.0 {
		t.Errorf("link counters: sales %v saleAmount %v leads %v", link["sales"], link["saleAmount"], link["leads"])
	}
	sale := f.hooks.wait(t, "sale.created", 1)[0]["data"].(map[string]any)
	if s := sale["sale"].(map[string]any); s["amount"] != 5000.0 || s["paymentProcessor"] != "stripe" || s["invoiceId"] != "pi_A" {
		t.Errorf("sale.created: %v", s)
	}
	f.hooks.wait(t, "commission.created", 1)
	f.hooks.wait(t, "lead.created", 1)
}

// subscription: customer.created links a new customer (lead "New
// customer") by its metadata; the subscription's Checkout and first invoice
// are one sale; the next invoice is a recurring sale (test mode, recorded
// as such); a trial's zero invoice is none; cancellation is recorded.
func (f *stripeFixture) subscription() {
	t := f.t
	cust := map[string]any{"ID": "cus_B", "Email": "bo@example.com", "Name": "Bo",
		"Metadata": fmt.Sprintf(`{"dubCustomerExternalId":"user_b","dubClickId":%q}`, f.clicks[1])}
	f.deliver(f.event("customer.created", "customer", false, cust), stripeTestSecret, "linked to Stripe customer cus_B")
	f.deliver(f.event("checkout.session.completed", "checkout.session", false,
		f.checkoutData("cs_sub", "", "cus_B", "in_B1", "", 2000, "subscription")), stripeTestSecret, "Sale recorded")
	inv := func(id string, amount int64, reason string) []byte {
		return f.event("invoice.paid", "invoice", false, map[string]any{"ID": id, "Amount": amount, "Currency": "usd",
			"Customer": "cus_B", "Email": "bo@example.com", "Name": "Bo", "Subscription": "sub_cus_B", "BillingReason": reason})
	}
	f.deliver(inv("in_B1", 2000, "subscription_create"), stripeTestSecret, "already processed")
	f.deliver(inv("in_B2", 2000, "subscription_cycle"), stripeTestSecret, "Sale recorded")
	f.deliver(inv("in_B0", 0, "subscription_create"), stripeTestSecret, "amount of 0")
	c := f.customer("cus_B")
	if c["externalId"] != "user_b" || c["sales"] != 2.0 || c["saleAmount"] != 4000.0 {
		t.Errorf("subscriber: %v", c)
	}
	if cm := f.commission("in_B2"); cm["earnings"] != 400.0 {
		t.Errorf("recurring commission: %v", cm)
	}
	for _, s := range f.hooks.wait(t, "sale.created", 3)[1:] {
		d := s["data"].(map[string]any)
		if md, _ := d["metadata"].(map[string]any); md != nil && md["stripeMode"] != "test" {
			t.Errorf("test-mode sale metadata: %v", md)
		}
	}
	f.deliver(f.event("customer.subscription.deleted", "subscription", false, map[string]any{"ID": "sub_cus_B", "Customer": "cus_B"}),
		stripeTestSecret, "Subscription cancelled")
	if c := f.customer("cus_B"); c["subscriptionCanceledAt"] == nil {
		t.Errorf("cancellation not recorded: %v", c)
	}
}

// refunds: a partial refund of the recurring invoice (its payment intent
// linked by invoice_payment.paid) scales its commission; a full refund of
// the one-time payment refunds its commission; both fire commission.updated.
func (f *stripeFixture) refunds() {
	t := f.t
	f.deliver(f.event("invoice_payment.paid", "invoice_payment", false, map[string]any{"ID": "inpay_B2", "Amount": 2000,
		"Invoice": "in_B2", "PaymentIntent": "pi_B2"}), stripeTestSecret, "linked to invoice in_B2")
	charge := func(id, pi, customer string, amount, refunded int64, live bool) []byte {
		return f.event("charge.refunded", "charge", live, map[string]any{"ID": id, "PaymentIntent": pi, "Customer": customer,
			"Amount": amount, "Refunded": refunded, "FullyRefunded": refunded == amount, "Email": "x@example.com", "Name": "X"})
	}
	f.deliver(charge("ch_B2", "pi_B2", "cus_B", 2000, 500, false), stripeTestSecret, "updated")
	if cm := f.commission("in_B2"); cm["amount"] != 1500.0 || cm["earnings"] != 300.0 || cm["status"] != "pending" {
		t.Errorf("partially refunded commission: %v", cm)
	}
	f.deliver(charge("ch_A", "pi_A", "cus_A", 5000, 5000, true), stripeLiveSecret, `status "refunded"`)
	if cm := f.commission("pi_A"); cm["status"] != "refunded" {
		t.Errorf("refunded commission: %v", cm)
	}
	statuses := map[any]any{}
	for _, e := range f.hooks.wait(t, "commission.updated", 2) {
		d := e["data"].(map[string]any)
		statuses[d["invoiceId"]] = d["status"]
	}
	if statuses["pi_A"] != "refunded" || statuses["in_B2"] != "pending" {
		t.Errorf("commission.updated statuses by invoice: %v", statuses)
	}
}

// freeTrials: customer.subscription.created in trial records nothing until
// `relink stripe settings --free-trials on` (Dub's default is off); then a
// trialing subscription of a linked customer records "Started Trial" leads
// on the customer's click, one per seat with --track-quantity on, with
// lead.created; an active subscription, a retried delivery, a second trial
// of the same customer and an unknown Stripe customer record none.
func (f *stripeFixture) freeTrials() {
	t := f.t
	cust := map[string]any{"ID": "cus_T", "Email": "tess@example.com", "Name": "Tess",
		"Metadata": fmt.Sprintf(`{"dubCustomerExternalId":"user_t","dubClickId":%q}`, f.clicks[2])}
	f.deliver(f.event("customer.created", "customer", true, cust), stripeLiveSecret, "linked to Stripe customer cus_T")
	trial := func(id, customer, status string, seats int) []byte {
		return f.event("customer.subscription.created", "subscription", true, map[string]any{"ID": id, "Customer": customer,
			"Status": status, "Trial": status == "trialing", "Quantity": seats})
	}
	leads := func() float64 {
		var link map[string]any
		f.get("/links/"+f.linkID, &link)
		return link["leads"].(float64)
	}
	before := leads()
	f.deliver(trial("sub_T0", "cus_T", "trialing", 3), stripeLiveSecret, "free trial tracking is not enabled")
	if r := relink(t, f.env, "stripe", "settings", "--workspace", "acme", "--free-trials", "on", "--track-quantity", "on"); r.code != 0 {
		t.Fatalf("stripe settings: %s", r.stderr)
	}
	var st struct {
		FreeTrials struct{ Enabled, TrackQuantity bool } `json:"freeTrials"`
	}
	if r := relink(t, f.env, "stripe", "status", "--workspace", "acme"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || !st.FreeTrials.Enabled || !st.FreeTrials.TrackQuantity {
		t.Fatalf("stripe status after settings: %s %s", r.stdout, r.stderr)
	}
	f.deliver(trial("sub_T1", "cus_T", "active", 3), stripeLiveSecret, "not in trialing status")
	started := trial("sub_T2", "cus_T", "trialing", 3)
	f.deliver(started, stripeLiveSecret, "Customer subscription created for customer")
	f.deliver(started, stripeLiveSecret, "already received")
	f.deliver(trial("sub_T3", "cus_T", "trialing", 1), stripeLiveSecret, `already has a "Started Trial" lead`)
	f.deliver(trial("sub_Z", "cus_Z", "trialing", 1), stripeLiveSecret, "has not been tracked yet")
	if got := leads(); got != before+3 {
		t.Errorf("link leads %v after a 3-seat trial, want %v", got, before+3)
	}
	var events []map[string]any
	f.get("/events?event=leads&interval=all&limit=100", &events)
	n := 0
	for _, e := range events {
		if e["eventName"] == "Started Trial" {
			if c, _ := e["customer"].(map[string]any); c["externalId"] != "user_t" {
				t.Errorf("trial lead of customer %v", c)
			}
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d Started Trial lead events, want 3 (one per seat)", n)
	}
	found := false
	for _, e := range f.hooks.wait(t, "lead.created", 4) {
		d := e["data"].(map[string]any)
		found = found || d["eventName"] == "Started Trial"
	}
	if !found {
		t.Error("no lead.created webhook for the trial")
	}
}
