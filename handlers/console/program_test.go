package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestPartnerProgram(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		w, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		other, _ := e.seedWorkspace("Other", "other", "owner@other.test")
		ctx := context.Background()
		c := e.client()
		c.signIn("owner@acme.test")

		r := c.get("/console/partners")
		if r.text(t, `[data-testid="alert-info"]`) == "" {
			t.Error("no-program notice missing")
		}
		wantStatus(t, c.post("/console/program", nil), http.StatusSeeOther)
		r = c.get("/console/program")
		wantStatus(t, r, http.StatusOK)
		groupID, _ := r.doc(t).Find(`[data-testid="data-row"]`).Attr("data-id")
		if groupID == "" {
			t.Fatal("no default group row")
		}

		t.Run("rewards", func(t *testing.T) {
			r := c.post("/console/program/rewards", url.Values{"groupId": {groupID}, "event": {"click"}, "type": {"percentage"}, "amount": {"10"}})
			wantStatus(t, r, http.StatusUnprocessableEntity)
			if r.text(t, `[data-testid="field-type"] [data-testid="field-error"]`) == "" {
				t.Errorf("percentage click reward: no error on type")
			}
			wantStatus(t, c.post("/console/program/rewards", url.Values{"groupId": {groupID}, "event": {"sale"}, "type": {"percentage"}, "amount": {"10"}, "maxDuration": {"12"}}), http.StatusSeeOther)
			wantStatus(t, c.post("/console/program/rewards", url.Values{"groupId": {groupID}, "event": {"lead"}, "type": {"flat"}, "amount": {"2.5"}}), http.StatusSeeOther)
			cells := c.get("/console/program").doc(t).Find(`[data-testid="data-row"] td`)
			got := cells.Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) })
			if got[3] != "$2.50 per lead" || got[4] != "10% for 12 months" {
				t.Errorf("reward cells %q", got)
			}
		})

		t.Run("groups", func(t *testing.T) {
			wantStatus(t, c.post("/console/program/groups/new", url.Values{"name": {"Influencers"}, "slug": {"influencers"}}), http.StatusSeeOther)
			r := c.post("/console/program/groups/new", url.Values{"name": {"Again"}, "slug": {"influencers"}})
			wantStatus(t, r, http.StatusConflict)
			if r.text(t, `[data-testid="group-create"] [data-testid="field-slug"] [data-testid="field-error"]`) == "" {
				t.Error("taken group slug: no field error")
			}
			if n := c.get("/console/program").doc(t).Find(`[data-testid="data-row"]`).Length(); n != 2 {
				t.Errorf("%d groups, want 2", n)
			}
		})

		t.Run("branding", func(t *testing.T) { programBranding(t, e, c, db, w.ID, groupID) })

		var partnerID string
		t.Run("enroll and change status", func(t *testing.T) {
			wantStatus(t, c.post("/console/partners", url.Values{"name": {"Pat"}, "email": {"pat@partner.test"}, "groupId": {groupID}}), http.StatusSeeOther)
			r := c.get("/console/partners")
			row := r.doc(t).Find(`[data-testid="data-row"]`)
			partnerID, _ = row.Attr("data-id")
			if row.Length() != 1 || !strings.Contains(row.Text(), "pat@partner.test") || !strings.Contains(row.Text(), "approved") {
				t.Fatalf("partner row %q", row.Text())
			}
			wantStatus(t, c.post("/console/partners/"+partnerID+"/status", url.Values{"status": {"banned"}}), http.StatusSeeOther)
			if got := c.get("/console/partners?status=banned").doc(t).Find(`[data-testid="data-row"]`).Length(); got != 1 {
				t.Errorf("banned partners %d", got)
			}
			wantStatus(t, c.post("/console/partners/"+partnerID+"/status", url.Values{"status": {"approved"}}), http.StatusSeeOther)
		})

		t.Run("commissions change status; customers list", func(t *testing.T) {
			p, err := db.DefaultProgram(ctx, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			cm := &models.Commission{ID: ids.New(ids.Commission), WorkspaceID: w.ID, ProgramID: p.ID, PartnerID: partnerID, Type: "sale",
				Amount: 10000, Earnings: 1000, Currency: "usd", Status: models.CommissionPending, Quantity: 1, CreatedAt: now, UpdatedAt: now}
			if _, err := db.InsertCommission(ctx, cm); err != nil {
				t.Fatal(err)
			}
			r := c.get("/console/commissions")
			if row := r.doc(t).Find(`[data-testid="data-row"]`); !strings.Contains(row.Text(), "$10.00") || !strings.Contains(row.Text(), "Pat") {
				t.Fatalf("commission row %q", row.Text())
			}
			// Another workspace cannot touch it.
			if _, _, err := db.CreateDefaultProgram(ctx, other); err != nil {
				t.Fatal(err)
			}
			o := e.client()
			o.signIn("owner@other.test")
			if r := o.post("/console/commissions/"+cm.ID+"/status", url.Values{"status": {"canceled"}}); r.StatusCode != http.StatusNotFound {
				t.Errorf("other workspace: status %d", r.StatusCode)
			}
			wantStatus(t, c.post("/console/commissions/"+cm.ID+"/status", url.Values{"status": {"canceled"}}), http.StatusSeeOther)
			got, err := db.CommissionByID(ctx, w.ID, p.ID, cm.ID)
			if err != nil || got.Status != models.CommissionCanceled {
				t.Fatalf("status %v %v", got, err)
			}

			name := "Casey"
			if err := db.CreateCustomer(ctx, &models.Customer{ID: ids.New(ids.Customer), WorkspaceID: w.ID, ExternalID: "cus_1", Name: &name, CreatedAt: now, UpdatedAt: now}); err != nil {
				t.Fatal(err)
			}
			if row := c.get("/console/customers").doc(t).Find(`[data-testid="data-row"]`); row.Length() != 1 || !strings.Contains(row.Text(), "Casey") {
				t.Errorf("customers %q", row.Text())
			}
			if n := o.get("/console/customers").doc(t).Find(`[data-testid="data-row"]`).Length(); n != 0 {
				t.Errorf("other workspace sees %d customers", n)
			}
		})
	})
}

// programBranding is TestPartnerProgram's "branding" step: the console's
// branding form stores a group's colour and logo, refuses a colour that is
// not hex, and cannot reach another workspace's group.
func programBranding(t *testing.T, e *env, c *client, db *models.DB, wsID, groupID string) {
	ctx := context.Background()
	r := c.post("/console/program/groups/branding", url.Values{"groupId": {groupID}, "brandColor": {"orange"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if r.text(t, `[data-testid="branding-form"] [data-testid="field-brandColor"] [data-testid="field-error"]`) == "" {
		t.Error("a colour that is not hex: no field error")
	}
	wantStatus(t, c.post("/console/program/groups/branding", url.Values{"groupId": {groupID}, "brandColor": {"#FF5500"},
		"logo": {"https://cdn.acme.test/logo.png"}}), http.StatusSeeOther)
	g, err := db.GroupByID(ctx, wsID, groupID)
	if err != nil || g.BrandColor == nil || *g.BrandColor != "#FF5500" || g.Logo == nil || g.Wordmark != nil {
		t.Fatalf("group after branding: %+v %v", g, err)
	}
	if v, _ := c.get("/console/program").doc(t).Find(`[data-testid="branding-form"] input[name="brandColor"]`).Attr("value"); v != "#FF5500" {
		t.Errorf("the form shows %q", v)
	}
	// Another workspace cannot brand this group.
	o := e.client()
	o.signIn("owner@other.test")
	if r := o.post("/console/program/groups/branding", url.Values{"groupId": {groupID}, "brandColor": {"#000000"}}); r.StatusCode != http.StatusNotFound {
		t.Errorf("other workspace: status %d", r.StatusCode)
	}
}

// TestRewardAmounts: the reward form reads dollars and percents as exact
// decimals (conversions.RewardForm, shared with the CLI): $0.29 is 29
// cents, and a third decimal is a field error, not a silent rounding.
func TestRewardAmounts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/program", nil), http.StatusSeeOther)
		groupID, _ := c.get("/console/program").doc(t).Find(`[data-testid="data-row"]`).Attr("data-id")

		r := c.post("/console/program/rewards", url.Values{"groupId": {groupID}, "event": {"lead"}, "type": {"flat"}, "amount": {"2.555"}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if msg := r.text(t, `[data-testid="field-amount"] [data-testid="field-error"]`); !strings.Contains(msg, "at most two decimals") {
			t.Errorf("2.555 dollars: amount error %q", msg)
		}
		wantStatus(t, c.post("/console/program/rewards", url.Values{"groupId": {groupID}, "event": {"lead"}, "type": {"flat"}, "amount": {"0.29"}}), http.StatusSeeOther)
		cells := c.get("/console/program").doc(t).Find(`[data-testid="data-row"] td`)
		got := cells.Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) })
		if got[3] != "$0.29 per lead" {
			t.Errorf("reward cells %q", got)
		}
	})
}
