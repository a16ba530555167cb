package conversions_test

import (
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestLeadCommissions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		pn := f.partner("pat@example.com")
		f.reward(&models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: i64(250)})
		l := f.link(pn.Partner.ID)
		c := f.click(l, "US")
		r, err := f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: c.ClickID, EventName: "Sign up", CustomerExternalID: "u_1", Mode: conversions.ModeWait, EventQuantity: 2, Metadata: map[string]any{"src": "ad"}})
		if err != nil {
			t.Fatal(err)
		}
		// Another lead event of the same customer, and another customer.
		f.lead(c.ClickID, "u_1", "Activated")
		f.lead(c.ClickID, "u_2", "Sign up")
		cs := f.commissions()
		if len(cs) != 2 {
			t.Fatalf("%d commissions, want 2 (one lead commission per partner and customer)", len(cs))
		}
		first := cs[0]
		if first.Type != models.CommissionLead || first.Earnings != 500 || first.Quantity != 2 || first.Amount != 0 ||
			first.Status != models.CommissionPending || *first.EventID != r.Events[0].EventID || first.Metadata["src"] != "ad" || first.Currency != "usd" {
			t.Errorf("lead commission = %+v", first)
		}
		e, _ := db.EnrollmentByPartner(f.ctx, f.ws.ID, f.prog.ID, pn.Partner.ID)
		if e.TotalCommissions != 750 {
			t.Errorf("totalCommissions = %d, want 750", e.TotalCommissions)
		}
	})
}

func TestSaleCommissionsMaxDuration(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reward models.Reward
		// months after the first sale at which sales happen
		months []int
		want   []int64 // earnings of each sale's commission, 0 = none
	}{
		{"one-time", models.Reward{Type: models.RewardPercentage, AmountInPercentageBP: i64(1000), MaxDuration: intp(0)},
			[]int{0, 0, 1}, []int64{100, 0, 0}},
		{"three months", models.Reward{Type: models.RewardPercentage, AmountInPercentageBP: i64(1000), MaxDuration: intp(3)},
			[]int{0, 1, 2, 3, 4}, []int64{100, 100, 100, 0, 0}},
		{"lifetime", models.Reward{Type: models.RewardFlat, AmountInCents: i64(300)},
			[]int{0, 12, 60}, []int64{300, 300, 300}},
		{"percentage rounding", models.Reward{Type: models.RewardPercentage, AmountInPercentageBP: i64(2000)},
			[]int{0}, []int64{200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *models.DB) {
				f := newFixture(t, db, "acme")
				pn := f.partner("pat@example.com")
				r := tc.reward
				r.Event = models.EventSale
				f.reward(&r)
				c := f.click(f.link(pn.Partner.ID), "US")
				f.lead(c.ClickID, "u_1", "Sign up")
				var got []int64
				for i, m := range tc.months {
					f.now = t0.AddDate(0, m, 0).Add(time.Duration(i) * time.Minute)
					before := len(f.commissions())
					f.sale("u_1", 1000, "")
					cs := f.commissions()
					if len(cs) == before {
						got = append(got, 0)
					} else {
						got = append(got, cs[len(cs)-1].Earnings)
						if cs[len(cs)-1].Amount != 1000 || cs[len(cs)-1].Type != models.CommissionSale {
							t.Errorf("sale commission %+v", cs[len(cs)-1])
						}
					}
				}
				if len(got) != len(tc.want) {
					t.Fatalf("got %v", got)
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("sale commissions = %v, want %v", got, tc.want)
						break
					}
				}
			})
		})
	}
}

func TestCommissionEligibilityAndRules(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		f.reward(&models.Reward{Event: models.EventSale, Type: models.RewardFlat, AmountInCents: i64(100)})
		banned := f.partner("banned@example.com")
		invited := f.partner("invited@example.com")
		e, _ := db.EnrollmentByPartner(f.ctx, f.ws.ID, f.prog.ID, banned.Partner.ID)
		if err := db.SetEnrollmentStatus(f.ctx, e, models.EnrollmentBanned); err != nil {
			t.Fatal(err)
		}
		e2, _ := db.EnrollmentByPartner(f.ctx, f.ws.ID, f.prog.ID, invited.Partner.ID)
		if err := db.SetEnrollmentStatus(f.ctx, e2, models.EnrollmentInvited); err != nil {
			t.Fatal(err)
		}
		cb := f.click(f.link(banned.Partner.ID), "US")
		ci := f.click(f.link(invited.Partner.ID), "US")
		f.lead(cb.ClickID, "u_b", "Sign up")
		f.lead(ci.ClickID, "u_i", "Sign up")
		f.sale("u_b", 1000, "inv_b")
		f.sale("u_i", 1000, "inv_i")
		cs := f.commissions()
		if len(cs) != 1 || cs[0].PartnerID != invited.Partner.ID || *cs[0].InvoiceID != "inv_i" {
			t.Fatalf("commissions = %+v, want only the invited partner's sale (no lead reward, banned partner)", cs)
		}
		// A fraud first commission stops all later ones for that customer.
		cs[0].Status = models.CommissionFraud
		if err := db.SaveCommission(f.ctx, &cs[0]); err != nil {
			t.Fatal(err)
		}
		f.now = t0.Add(time.Hour)
		f.sale("u_i", 1000, "")
		if n := len(f.commissions()); n != 1 {
			t.Errorf("%d commissions after a fraud first commission, want 1", n)
		}
	})
}

func TestSpendLimit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		pn := f.partner("pat@example.com")
		f.reward(&models.Reward{Event: models.EventSale, Type: models.RewardFlat, AmountInCents: i64(400), SpendLimitAmount: i64(1000), SpendLimitInterval: str("month")})
		c := f.click(f.link(pn.Partner.ID), "US")
		f.lead(c.ClickID, "u_1", "Sign up")
		for i := 0; i < 4; i++ {
			f.now = t0.Add(time.Duration(i) * time.Hour)
			f.sale("u_1", 1000, "")
		}
		f.now = t0.AddDate(0, 1, 0)
		f.sale("u_1", 1000, "")
		var got []int64
		for _, c := range f.commissions() {
			got = append(got, c.Earnings)
		}
		want := []int64{400, 400, 200, 400} // capped at 1000 a month, nothing once spent; a new month resets
		if len(got) != len(want) {
			t.Fatalf("earnings %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("earnings %v, want %v", got, want)
			}
		}
	})
}

func TestCommissionLifecycle(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		pn := f.partner("pat@example.com")
		f.reward(&models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: i64(1000)})
		c := f.click(f.link(pn.Partner.ID), "US")
		f.lead(c.ClickID, "u_1", "Sign up")
		f.sale("u_1", 10000, "inv_1")
		status := func() string {
			cs := f.commissions()
			if len(cs) != 1 {
				t.Fatalf("%d commissions", len(cs))
			}
			return cs[0].Status
		}
		if n, err := db.ProcessDueCommissions(f.ctx, t0.AddDate(0, 0, models.DefaultHoldingPeriodDays).Add(-time.Second)); err != nil || n != 0 {
			t.Fatalf("inside the holding period: moved %d, %v", n, err)
		}
		if s := status(); s != models.CommissionPending {
			t.Fatalf("status %s, want pending", s)
		}
		// Nothing is paid before it is processed.
		if n, _ := db.MarkCommissionsPaid(f.ctx, f.ws.ID, f.prog.ID, "", t0); n != 0 {
			t.Fatalf("paid %d pending commissions", n)
		}
		if n, err := db.ProcessDueCommissions(f.ctx, t0.AddDate(0, 0, models.DefaultHoldingPeriodDays)); err != nil || n != 1 {
			t.Fatalf("after the holding period: moved %d, %v", n, err)
		}
		if s := status(); s != models.CommissionProcessed {
			t.Fatalf("status %s, want processed", s)
		}
		paidAt := t0.AddDate(0, 2, 0)
		if n, err := db.MarkCommissionsPaid(f.ctx, f.ws.ID, f.prog.ID, pn.Partner.ID, paidAt); err != nil || n != 1 {
			t.Fatalf("mark paid: %d %v", n, err)
		}
		cs := f.commissions()
		if cs[0].Status != models.CommissionPaid || cs[0].PaidAt == nil || !cs[0].PaidAt.Equal(paidAt) {
			t.Fatalf("paid commission = %+v", cs[0])
		}
		e, _ := db.EnrollmentByPartner(f.ctx, f.ws.ID, f.prog.ID, pn.Partner.ID)
		if e.TotalCommissions != 1000 {
			t.Errorf("totalCommissions = %d after payment, want 1000", e.TotalCommissions)
		}
		// Paid commissions cannot change.
		_, err := f.svc.UpdateCommission(f.ctx, f.ws, cs[0].ID, conversions.CommissionPatch{Status: str(models.CommissionRefunded), Currency: "usd"})
		if !apierr.Is(err, apierr.BadRequest) {
			t.Errorf("updating a paid commission: %v", err)
		}
	})
}

func TestUpdateCommission(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		other := newFixture(t, db, "other")
		pn := f.partner("pat@example.com")
		f.reward(&models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: i64(100)})
		f.reward(&models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: i64(2000)})
		c := f.click(f.link(pn.Partner.ID), "US")
		f.lead(c.ClickID, "u_1", "Sign up")
		f.sale("u_1", 5000, "")
		cs := f.commissions()
		lead, sale := cs[0], cs[1]
		if sale.Earnings != 1000 {
			t.Fatalf("sale earnings %d", sale.Earnings)
		}
		// Another workspace cannot see or change it.
		if _, err := other.svc.UpdateCommission(other.ctx, other.ws, sale.ID, conversions.CommissionPatch{Earnings: i64(1), Currency: "usd"}); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("cross-workspace update: %v", err)
		}
		got, err := f.svc.UpdateCommission(f.ctx, f.ws, sale.ID, conversions.CommissionPatch{ModifySaleAmount: i64(-1000), Currency: "usd"})
		if err != nil {
			t.Fatal(err)
		}
		if got.Amount != 4000 || got.Earnings != 800 || got.Status != models.CommissionPending {
			t.Errorf("after modifySaleAmount: %+v", got)
		}
		got, err = f.svc.UpdateCommission(f.ctx, f.ws, sale.ID, conversions.CommissionPatch{SaleAmount: i64(0), Currency: "usd"})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != models.CommissionRefunded || got.Earnings != 0 {
			t.Errorf("zero sale amount: %+v, want refunded", got)
		}
		if _, err := f.svc.UpdateCommission(f.ctx, f.ws, sale.ID, conversions.CommissionPatch{Status: str(models.CommissionRefunded), Currency: "usd"}); !apierr.Is(err, apierr.BadRequest) {
			t.Errorf("same status: %v", err)
		}
		if _, err := f.svc.UpdateCommission(f.ctx, f.ws, lead.ID, conversions.CommissionPatch{SaleAmount: i64(10), Currency: "usd"}); !apierr.Is(err, apierr.BadRequest) {
			t.Errorf("sale amount on a lead commission: %v", err)
		}
		got, err = f.svc.UpdateCommission(f.ctx, f.ws, lead.ID, conversions.CommissionPatch{Earnings: i64(175), Currency: "usd"})
		if err != nil || got.Earnings != 175 {
			t.Fatalf("earnings override: %+v %v", got, err)
		}
		e, _ := db.EnrollmentByPartner(f.ctx, f.ws.ID, f.prog.ID, pn.Partner.ID)
		if e.TotalCommissions != 175 {
			t.Errorf("totalCommissions = %d, want 175 (refunded sale excluded)", e.TotalCommissions)
		}
	})
}

// TestClickCommissions counts the day's clicks wherever they are stored:
// in clicks (without ClickHouse), in the attribution table (with it), or
// split between the two (an upgrade's first day: earlier clicks in clicks).
func TestClickCommissions(t *testing.T) {
	for _, store := range []string{"clicks", "attribution", "both"} {
		t.Run(store, func(t *testing.T) { testClickCommissions(t, store) })
	}
}

func testClickCommissions(t *testing.T, store string) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		pn := f.partner("pat@example.com")
		var mods []models.RewardModifier
		mods = append(mods, models.RewardModifier{
			Conditions:    []models.RewardCondition{{Entity: "customer", Attribute: "country", Operator: "equals_to", Value: "US"}},
			AmountInCents: i64(10),
		})
		f.reward(&models.Reward{Event: models.EventClick, Type: models.RewardFlat, AmountInCents: i64(2), Modifiers: models.Some(mods)})
		l := f.link(pn.Partner.ID)
		plain := f.link("")
		day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		var batch []models.Click
		add := func(link *models.Link, country string, at time.Time) {
			batch = append(batch, models.Click{ClickID: ids.Nano(16), Timestamp: at, WorkspaceID: f.ws.ID, LinkID: link.ID,
				Domain: link.Domain, Key: link.Key, Country: country})
		}
		for i := 0; i < 3; i++ {
			add(l, "US", day.Add(time.Duration(i)*time.Hour))
		}
		add(l, "DE", day.Add(5*time.Hour))
		add(l, "DE", day.Add(-time.Minute))  // the day before
		add(l, "US", day.Add(24*time.Hour))  // the day after
		add(plain, "US", day.Add(time.Hour)) // not a partner link
		var inClicks, inAttr []models.Click
		for i, c := range batch {
			if store == "clicks" || store == "both" && i%2 == 0 {
				inClicks = append(inClicks, c)
			} else {
				inAttr = append(inAttr, c)
			}
		}
		if _, err := db.RecordClicks(f.ctx, inClicks); err != nil {
			t.Fatal(err)
		}
		if _, err := db.RecordAttributionClicks(f.ctx, inAttr); err != nil {
			t.Fatal(err)
		}
		n, err := f.svc.ClickCommissions(f.ctx, day.Add(13*time.Hour))
		if err != nil || n != 1 {
			t.Fatalf("created %d, %v; want 1", n, err)
		}
		cs := f.commissions()
		if len(cs) != 1 || cs[0].Type != models.CommissionClick || cs[0].Quantity != 4 || cs[0].Earnings != 3*10+2 ||
			*cs[0].InvoiceID != l.ID+"-2026-03-01" || cs[0].Amount != 0 {
			t.Fatalf("click commission = %+v", cs)
		}
		// Rerunning the day creates nothing new.
		if n, err := f.svc.ClickCommissions(f.ctx, day); err != nil || n != 0 || len(f.commissions()) != 1 {
			t.Fatalf("rerun created %d, %v", n, err)
		}
	})
}
