package conversions_test

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

func wantErr(t *testing.T, err error, code apierr.Code, msg string) {
	t.Helper()
	e, ok := err.(*apierr.Error)
	if !ok || e.Code != code || !strings.Contains(e.Message, msg) {
		t.Fatalf("error = %v, want %s containing %q", err, code, msg)
	}
}

func TestLeadCopiesClickAttributes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		l := f.link("")
		c := f.click(l, "DE")
		r, err := f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{
			ClickID: c.ClickID, EventName: "Sign up", CustomerExternalID: "u_1", CustomerEmail: str("ada@example.com"),
			Mode: conversions.ModeAsync, EventQuantity: 3, Metadata: map[string]any{"plan": "pro"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Duplicate || r.Link == nil || r.Link.ID != l.ID || r.ClickID != c.ClickID {
			t.Fatalf("result = %+v", r)
		}
		if *r.Customer.Name != "ada@example.com" || *r.Customer.ExternalID != "u_1" {
			t.Errorf("customer = %+v (name falls back to the email)", r.Customer)
		}
		var evs []models.LeadEvent
		if err := db.Where("workspace_id = ?", f.ws.ID).Order("event_id").Find(&evs).Error; err != nil {
			t.Fatal(err)
		}
		if len(evs) != 3 {
			t.Fatalf("%d lead rows, want 3 (eventQuantity)", len(evs))
		}
		want := models.AttrsOf(c)
		seen := map[string]bool{}
		for _, ev := range evs {
			if !reflect.DeepEqual(ev.ClickAttrs, want) {
				t.Errorf("lead attrs = %+v\nwant click's %+v", ev.ClickAttrs, want)
			}
			if ev.EventName != "Sign up" || ev.Metadata["plan"] != "pro" || len(ev.EventID) != 16 || seen[ev.EventID] {
				t.Errorf("lead %+v", ev)
			}
			seen[ev.EventID] = true
		}
		if got := f.reloadLink(l); got.Leads != 3 {
			t.Errorf("link leads = %d, want 3", got.Leads)
		}
		cust, err := db.CustomerByExternalID(f.ctx, f.ws.ID, "u_1")
		if err != nil {
			t.Fatal(err)
		}
		if *cust.ClickID != c.ClickID || *cust.LinkID != l.ID || *cust.Country != "DE" || !cust.ClickedAt.Equal(c.Timestamp) {
			t.Errorf("customer attribution = %+v", cust)
		}
	})
}

func TestLeadDuplicates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		l := f.link("")
		c := f.click(l, "US")
		f.lead(c.ClickID, "u_1", "Sign Up")
		for _, tc := range []struct {
			name, event string
			after       time.Duration
			duplicate   bool
		}{
			{"same name", "Sign Up", time.Hour, true},
			{"normalised name", "sign-up", 2 * time.Hour, true},
			{"other name", "Trial started", 3 * time.Hour, false},
			{"just inside the window", "Sign Up", conversions.LeadDedupeWindow - time.Second, true},
			{"after the window", "Sign Up", conversions.LeadDedupeWindow, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				f.now = t0.Add(tc.after)
				r := f.lead(c.ClickID, "u_1", tc.event)
				if r.Duplicate != tc.duplicate || (r.Link == nil) != tc.duplicate {
					t.Errorf("duplicate = %v link = %v, want duplicate %v", r.Duplicate, r.Link, tc.duplicate)
				}
				if *r.Customer.ExternalID != "u_1" || r.Customer.Name == nil {
					t.Errorf("customer = %+v", r.Customer)
				}
			})
		}
		var n int64
		db.Model(&models.LeadEvent{}).Where("workspace_id = ?", f.ws.ID).Count(&n)
		if n != 3 {
			t.Errorf("%d lead events, want 3 (first, other name, after the window)", n)
		}
		if got := f.reloadLink(l); got.Leads != 3 {
			t.Errorf("link leads = %d, want 3: duplicates never count", got.Leads)
		}
		// Another customer with the same event name is not a duplicate.
		if r := f.lead(c.ClickID, "u_2", "Sign Up"); r.Duplicate {
			t.Error("dedupe is per customer")
		}
	})
}

func TestLeadDeferredThenTracked(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		l := f.link("")
		c := f.click(l, "FR")
		r, err := f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: c.ClickID, EventName: "Sign up", CustomerExternalID: "u_1", Mode: conversions.ModeDeferred, EventQuantity: 1})
		if err != nil || r.Link == nil || len(r.Events) != 0 {
			t.Fatalf("deferred: %+v %v", r, err)
		}
		if got := f.reloadLink(l); got.Leads != 0 {
			t.Errorf("deferred lead counted: leads = %d", got.Leads)
		}
		if _, err := db.CustomerByExternalID(f.ctx, f.ws.ID, "u_1"); err != nil {
			t.Fatalf("deferred mode must create the customer: %v", err)
		}
		// A sale now finds no lead.
		_, err = f.svc.TrackSale(f.ctx, f.ws, conversions.SaleInput{CustomerExternalID: "u_1", Amount: 100, Currency: "usd", EventName: "Purchase", PaymentProcessor: "custom"})
		wantErr(t, err, apierr.NotFound, "Lead event not found for externalId: u_1 and leadEventName: null")
		// The later call with clickId "" uses the customer's click.
		r = f.lead("", "u_1", "Sign up")
		if r.Duplicate || r.ClickID != c.ClickID || len(r.Events) != 1 {
			t.Fatalf("tracked after deferred: %+v", r)
		}
		if got := f.reloadLink(l); got.Leads != 1 {
			t.Errorf("leads = %d, want 1", got.Leads)
		}
	})
}

func TestLeadErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		other := newFixture(t, db, "other")
		l := f.link("")
		foreign := other.click(other.link(""), "US")
		disabled := f.link("")
		past := t0.Add(-time.Hour)
		if err := db.Model(&models.Link{}).Where("id = ?", disabled.ID).Update("disabled_at", past).Error; err != nil {
			t.Fatal(err)
		}
		dc := f.click(disabled, "US")
		_ = l
		for _, tc := range []struct {
			name, clickID string
			code          apierr.Code
			msg           string
		}{
			{"no click and no customer", "", apierr.BadRequest, "The `clickId` property was not provided"},
			{"unknown click", "nope", apierr.NotFound, "Click event not found for clickId: nope"},
			{"another workspace's click", foreign.ClickID, apierr.NotFound, "Click event not found for clickId: " + foreign.ClickID},
			{"disabled link", dc.ClickID, apierr.NotFound, "is disabled, lead not tracked"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: tc.clickID, EventName: "Sign up", CustomerExternalID: "u_err", Mode: conversions.ModeAsync, EventQuantity: 1})
				wantErr(t, err, tc.code, tc.msg)
				// A failed lead marks nothing: the retry fails the same way
				// instead of answering "duplicate".
				_, err = f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: tc.clickID, EventName: "Sign up", CustomerExternalID: "u_err", Mode: conversions.ModeAsync, EventQuantity: 1})
				wantErr(t, err, tc.code, tc.msg)
			})
		}
		if _, err := db.CustomerByExternalID(f.ctx, f.ws.ID, "u_err"); !models.IsNotFound(err) {
			t.Errorf("failed leads created a customer: %v", err)
		}
		if n, _ := db.CountClicks(f.ctx, other.ws.ID, ""); n != 1 {
			t.Fatal("other workspace's click missing")
		}
		var leads int64
		db.Model(&models.LeadEvent{}).Count(&leads)
		if leads != 0 {
			t.Errorf("%d lead events after failures", leads)
		}
	})
}

func TestSaleIdempotentAndCounted(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		l := f.link("")
		c := f.click(l, "GB")
		f.lead(c.ClickID, "u_1", "Sign up")
		first := f.sale("u_1", 4999, "inv_1")
		if first.Customer == nil || first.Sale == nil || first.Sale.Amount != 4999 || *first.Sale.InvoiceID != "inv_1" || first.Sale.Currency != "usd" {
			t.Fatalf("first response = %+v", first)
		}
		// A replay with a different body answers the first response.
		f.now = t0.Add(time.Hour)
		again := f.sale("u_1", 100, "inv_1")
		if !reflect.DeepEqual(first, again) {
			t.Errorf("replay = %+v %+v\nwant %+v %+v", again, again.Sale, first, first.Sale)
		}
		second := f.sale("u_1", 1000, "")
		if second.Sale.InvoiceID != nil || second.Sale.Amount != 1000 {
			t.Errorf("second sale = %+v", second.Sale)
		}
		got := f.reloadLink(l)
		if got.Sales != 2 || got.SaleAmount != 5999 || got.Conversions != 1 || got.Leads != 1 {
			t.Errorf("link counters sales=%d amount=%d conversions=%d leads=%d, want 2/5999/1/1", got.Sales, got.SaleAmount, got.Conversions, got.Leads)
		}
		var sales []models.SaleEvent
		db.Where("workspace_id = ?", f.ws.ID).Order("timestamp").Find(&sales)
		if len(sales) != 2 {
			t.Fatalf("%d sale events, want 2", len(sales))
		}
		if !reflect.DeepEqual(sales[0].ClickAttrs, models.AttrsOf(c)) || sales[0].InvoiceID != "inv_1" || sales[1].InvoiceID != "" {
			t.Errorf("sale attrs %+v, invoice %q/%q", sales[0].ClickAttrs, sales[0].InvoiceID, sales[1].InvoiceID)
		}
		cust, _ := db.CustomerByExternalID(f.ctx, f.ws.ID, "u_1")
		if cust.Sales != 2 || cust.SaleAmount != 5999 || cust.FirstSaleAt == nil || !cust.FirstSaleAt.Equal(t0) {
			t.Errorf("customer sales=%d amount=%d first=%v", cust.Sales, cust.SaleAmount, cust.FirstSaleAt)
		}
	})
}

func TestSaleWithoutAttribution(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		l := f.link("")
		c := f.click(l, "US")
		f.lead(c.ClickID, "u_1", "Sign up")
		for _, tc := range []struct {
			name   string
			in     conversions.SaleInput
			code   apierr.Code
			msg    string
			silent bool
		}{
			{name: "unknown customer", in: conversions.SaleInput{CustomerExternalID: "ghost", Amount: 100}, silent: true},
			{name: "zero amount", in: conversions.SaleInput{CustomerExternalID: "u_1", Amount: 0, InvoiceID: str("inv_zero")}, silent: true},
			{name: "unknown lead name", in: conversions.SaleInput{CustomerExternalID: "u_1", Amount: 100, LeadEventName: str("sign up")},
				code: apierr.NotFound, msg: "Lead event not found for externalId: u_1 and leadEventName: sign up"},
			{name: "direct sale, unknown click", in: conversions.SaleInput{CustomerExternalID: "new", Amount: 100, ClickID: str("nope")},
				code: apierr.NotFound, msg: "Click event not found for clickId: nope"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.in.Currency, tc.in.EventName, tc.in.PaymentProcessor = "usd", "Purchase", "custom"
				r, err := f.svc.TrackSale(f.ctx, f.ws, tc.in)
				if tc.silent {
					if err != nil || r.Customer != nil || r.Sale != nil || r.EventName != "Purchase" {
						t.Fatalf("got %+v, %v; want 200 with nulls", r, err)
					}
					return
				}
				wantErr(t, err, tc.code, tc.msg)
			})
		}
		var events, invoices int64
		db.Model(&models.SaleEvent{}).Count(&events)
		db.Model(&models.SaleInvoice{}).Count(&invoices)
		if got := f.reloadLink(l); got.Sales != 0 || events != 0 || invoices != 0 {
			t.Errorf("sales recorded: link sales %d, events %d, invoices %d", got.Sales, events, invoices)
		}
		// A zero-amount sale does not burn its invoice id.
		if r := f.sale("u_1", 500, "inv_zero"); r.Sale == nil || r.Sale.Amount != 500 {
			t.Errorf("invoice reused after a zero sale: %+v", r)
		}
	})
}

func TestDirectSaleTracking(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		pn := f.partner("pat@example.com")
		f.reward(&models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: i64(300)})
		f.reward(&models.Reward{Event: models.EventSale, Type: models.RewardFlat, AmountInCents: i64(700)})
		l := f.link(pn.Partner.ID)
		c := f.click(l, "NL")
		r, err := f.svc.TrackSale(f.ctx, f.ws, conversions.SaleInput{
			CustomerExternalID: "u_direct", Amount: 2500, Currency: "usd", EventName: "Purchase", PaymentProcessor: "shopify",
			ClickID: &c.ClickID, CustomerName: str("Dee"),
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Customer == nil || *r.Customer.Name != "Dee" || r.Sale.Amount != 2500 {
			t.Fatalf("response %+v", r)
		}
		var leads []models.LeadEvent
		db.Where("workspace_id = ?", f.ws.ID).Find(&leads)
		if len(leads) != 1 || leads[0].EventName != conversions.DirectSaleLeadName || !reflect.DeepEqual(leads[0].ClickAttrs, models.AttrsOf(c)) {
			t.Fatalf("synthetic lead = %+v", leads)
		}
		got := f.reloadLink(l)
		if got.Leads != 1 || got.Sales != 1 || got.Conversions != 1 || got.SaleAmount != 2500 {
			t.Errorf("link counters %+v", got)
		}
		cust, _ := db.CustomerByExternalID(f.ctx, f.ws.ID, "u_direct")
		if cust.PartnerID == nil || *cust.PartnerID != pn.Partner.ID {
			t.Errorf("customer partner = %v, want set after the sale", cust.PartnerID)
		}
		cs := f.commissions()
		if len(cs) != 1 || cs[0].Type != models.CommissionSale || cs[0].Earnings != 700 {
			t.Errorf("commissions = %+v, want only the sale's (no lead commission for the synthetic lead)", cs)
		}
	})
}

func TestSaleCurrencies(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		c := f.click(f.link(""), "JP")
		f.lead(c.ClickID, "u_1", "Sign up")
		eur, _ := f.svc.FX.Rate("eur")
		for _, tc := range []struct {
			currency string
			amount   int64
			want     int64
			wantCur  string
		}{
			{"usd", 1234, 1234, "usd"},
			{"eur", 1000, int64(1000/eur + 0.5), "usd"},
			{"jpy", 14500, 10000, "usd"}, // zero-decimal: 14500 yen at 145/USD = $100.00
			{"xyz", 777, 777, "xyz"},     // no rate: kept as given
		} {
			t.Run(tc.currency, func(t *testing.T) {
				r, err := f.svc.TrackSale(f.ctx, f.ws, conversions.SaleInput{CustomerExternalID: "u_1", Amount: tc.amount, Currency: tc.currency, EventName: "Purchase", PaymentProcessor: "custom"})
				if err != nil {
					t.Fatal(err)
				}
				if r.Sale.Amount != tc.want || r.Sale.Currency != tc.wantCur {
					t.Errorf("%d %s → %d %s, want %d %s", tc.amount, tc.currency, r.Sale.Amount, r.Sale.Currency, tc.want, tc.wantCur)
				}
			})
		}
	})
}

// Concurrent repeats of one invoice or one lead record exactly one event:
// the claims are atomic on both dialects.
func TestConcurrentRepeats(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		l := f.link("")
		c := f.click(l, "US")
		const n = 8
		leads := make(chan *conversions.LeadResult, n)
		errs := make(chan error, 2*n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: c.ClickID, EventName: "Sign up", CustomerExternalID: "u_race", Mode: conversions.ModeAsync, EventQuantity: 1})
				if err != nil {
					errs <- err
					return
				}
				leads <- r
			}()
		}
		wg.Wait()
		close(leads)
		recorded := 0
		for r := range leads {
			if !r.Duplicate {
				recorded++
			}
		}
		if recorded != 1 {
			t.Fatalf("%d leads recorded by %d concurrent identical calls, want 1", recorded, n)
		}
		sales := make(chan *wire.TrackSale, n)
		inv := "inv_race"
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r, err := f.svc.TrackSale(f.ctx, f.ws, conversions.SaleInput{CustomerExternalID: "u_race", Amount: int64(100 + i),
					Currency: "usd", EventName: "Purchase", PaymentProcessor: "custom", InvoiceID: &inv})
				if err != nil {
					errs <- err
					return
				}
				sales <- r
			}(i)
		}
		wg.Wait()
		close(sales)
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		var first *wire.TrackSale
		for r := range sales {
			if first == nil {
				first = r
			} else if !reflect.DeepEqual(r, first) {
				t.Errorf("answers differ: %+v vs %+v", r.Sale, first.Sale)
			}
		}
		got := f.reloadLink(l)
		if got.Leads != 1 || got.Sales != 1 || got.SaleAmount != first.Sale.Amount {
			t.Errorf("link leads=%d sales=%d amount=%d, want 1/1/%d", got.Leads, got.Sales, got.SaleAmount, first.Sale.Amount)
		}
	})
}

// TestLeadAttributionWindow: with a ClickWindow (the ClickHouse event
// store's RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW) a click older than the
// window answers exactly as an unknown click id does in Dub (404 "Click
// event not found for clickId: …"), whether or not its slim row is still
// stored; a click inside the window is attributed and its attributes
// copied.
func TestLeadAttributionWindow(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "window")
		f.svc.ClickWindow = 90 * 24 * time.Hour
		l := f.link("")
		f.now = t0.Add(-90*24*time.Hour - time.Hour)
		old := f.click(l, "DE")
		f.now = t0.Add(-90*24*time.Hour + 2*time.Minute)
		inside := f.click(l, "FR")
		f.now = t0
		_, err := f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: old.ClickID, EventName: "Sign up", CustomerExternalID: "u_old", Mode: conversions.ModeWait, EventQuantity: 1})
		wantErr(t, err, apierr.NotFound, "Click event not found for clickId: "+old.ClickID)
		res := f.lead(inside.ClickID, "u_in", "Sign up")
		if len(res.Events) != 1 || res.Events[0].ClickAttrs != models.AttrsOf(inside) {
			t.Fatalf("lead on a click inside the window: %+v", res.Events)
		}
		// Without a window (the SQL store keeps every click) the old click
		// is attributed.
		f.svc.ClickWindow = 0
		if res := f.lead(old.ClickID, "u_old", "Sign up"); len(res.Events) != 1 || res.Events[0].ClickID != old.ClickID {
			t.Fatalf("lead without a window: %+v", res.Events)
		}
	})
}

// TestAttributionTable: with the ClickHouse event store the click store
// keeps a click's slim row in the attribution table
// (models.RecordAttributionClicks), not in clicks. A lead and a direct sale
// are attributed to such a click and copy its attributes; another
// workspace cannot attribute it; past the window it answers as an unknown
// click id; a click an earlier release stored in clicks is still
// attributed.
func TestAttributionTable(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "attr")
		f.attribution = true
		f.svc.ClickWindow = 90 * 24 * time.Hour
		pn := f.partner("pat@example.com")
		f.reward(&models.Reward{Event: models.EventSale, Type: models.RewardFlat, AmountInCents: i64(700)})
		l := f.link(pn.Partner.ID)
		c := f.click(l, "DE")
		var inClicks, inAttr int64
		db.Raw("SELECT COUNT(*) FROM clicks").Scan(&inClicks)
		db.Raw("SELECT COUNT(*) FROM attribution_clicks WHERE click_id = ?", c.ClickID).Scan(&inAttr)
		if inClicks != 0 || inAttr != 1 {
			t.Fatalf("clicks %d, attribution table %d: want the click in the attribution table only", inClicks, inAttr)
		}
		res := f.lead(c.ClickID, "u_1", "Sign up")
		if len(res.Events) != 1 || res.Events[0].ClickAttrs != models.AttrsOf(c) || res.Link.ID != l.ID {
			t.Fatalf("lead: %+v", res.Events)
		}
		sc := f.click(l, "FR")
		r, err := f.svc.TrackSale(f.ctx, f.ws, conversions.SaleInput{CustomerExternalID: "u_2", Amount: 2500, Currency: "usd",
			EventName: "Purchase", PaymentProcessor: "stripe", ClickID: &sc.ClickID})
		if err != nil || r.Sale == nil || r.Sale.Amount != 2500 {
			t.Fatalf("direct sale: %+v %v", r, err)
		}
		var sale models.SaleEvent
		if err := db.Where("workspace_id = ? AND click_id = ?", f.ws.ID, sc.ClickID).Take(&sale).Error; err != nil || sale.ClickAttrs != models.AttrsOf(sc) {
			t.Fatalf("the sale copied %+v (%v), want the attributes of %+v", sale.ClickAttrs, err, models.AttrsOf(sc))
		}
		if got := f.reloadLink(l); got.Clicks != 2 || got.Leads != 2 || got.Sales != 1 {
			t.Errorf("link counters %+v", got)
		}
		// Another workspace does not see the click.
		g := newFixture(t, db, "attr-other")
		g.svc.ClickWindow = f.svc.ClickWindow
		_, err = g.svc.TrackLead(g.ctx, g.ws, conversions.LeadInput{ClickID: c.ClickID, EventName: "Sign up", CustomerExternalID: "u_x", Mode: conversions.ModeWait, EventQuantity: 1})
		wantErr(t, err, apierr.NotFound, "Click event not found for clickId: "+c.ClickID)
		// Past the window: unknown.
		f.now = t0.Add(91 * 24 * time.Hour)
		_, err = f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: c.ClickID, EventName: "Later", CustomerExternalID: "u_3", Mode: conversions.ModeWait, EventQuantity: 1})
		wantErr(t, err, apierr.NotFound, "Click event not found for clickId: "+c.ClickID)
		// A click an earlier release stored in clicks (its slim row).
		f.attribution = false
		old := f.click(l, "NL")
		if res := f.lead(old.ClickID, "u_4", "Sign up"); len(res.Events) != 1 || res.Events[0].ClickAttrs != models.AttrsOf(old) {
			t.Fatalf("lead on a click in clicks: %+v", res.Events)
		}
	})
}
