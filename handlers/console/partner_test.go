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

// TestPartnerPage: the partner list's rows open the partner's page (issue
// 33 item 3): totals, the partner's links with their clicks, the analytics
// of those links, commissions and payouts, and the status actions, each
// through its service (a ban disables the links, an unban enables them, a
// deactivation expires them, a reactivation restores them). Another
// workspace gets a 404 for both the page and the actions.
func TestPartnerPage(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		w, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		e.seedWorkspace("Other", "other", "owner@other.test")
		ctx := context.Background()
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/program", nil), http.StatusSeeOther)
		wantStatus(t, c.post("/console/partners", url.Values{"name": {"Pat Doe"}, "email": {"pat@partner.test"}}), http.StatusSeeOther)
		row := c.get("/console/partners").doc(t).Find(`[data-testid="data-row"]`)
		href, _ := row.Find(`[data-testid="row-link"]`).Attr("href")
		partnerID, _ := row.Attr("data-id")
		if href != "/console/partners/"+partnerID {
			t.Fatalf("row link %q for %s", href, partnerID)
		}

		// A link of the partner's, clicked once.
		wantStatus(t, c.post("/console/links", url.Values{"url": {"https://shop.example/collections/spring"}, "domain": {"localhost:8080"}, "key": {"pat-spring"}}), http.StatusSeeOther)
		p, err := db.DefaultProgram(ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		var l models.Link
		if err := db.Where("workspace_id = ? AND key = ?", w.ID, "pat-spring").Take(&l).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Model(&models.Link{}).Where("id = ?", l.ID).Updates(map[string]any{"partner_id": partnerID, "program_id": p.ID}).Error; err != nil {
			t.Fatal(err)
		}
		e.follow(t, "pat-spring", nil)

		r := c.get(href)
		wantStatus(t, r, http.StatusOK)
		doc := r.doc(t)
		for sel, want := range map[string]string{
			`[data-testid="partner-name"]`: "Pat Doe", `[data-testid="partner-status"]`: "approved",
			`[data-testid="partner-clicks"] [data-testid="total-value"]`:                         "1",
			`[data-testid="analytics"] [data-testid="total-clicks"] [data-testid="total-value"]`: "1",
		} {
			if got := strings.TrimSpace(doc.Find(sel).First().Text()); got != want {
				t.Errorf("%s = %q, want %q", sel, got, want)
			}
		}
		if got := doc.Find(`[data-testid="partner-links"] [data-testid="data-row"]`).Text(); !strings.Contains(got, "pat-spring") || !strings.Contains(got, "shop.example/collections/spring") {
			t.Errorf("links table %q", got)
		}
		for _, id := range []string{"partner-commissions", "partner-payouts", "chart", "chart-conversions"} {
			if doc.Find(`[data-testid="`+id+`"]`).Length() == 0 {
				t.Errorf("no %s on the partner page", id)
			}
		}
		actions := func() []string {
			var out []string
			c.get(href).doc(t).Find(`[data-testid="partner-actions"] button`).Each(func(_ int, s *goquery.Selection) {
				out = append(out, strings.TrimSpace(s.Text()))
			})
			return strings.Fields(strings.Join(out, " "))
		}
		if got := strings.Join(actions(), ","); got != "Archive,Deactivate,Ban" {
			t.Errorf("approved partner's actions %s", got)
		}

		checkPartnerActions(t, partnerFixture{e: e, db: db, c: c, w: w, p: p, href: href, partnerID: partnerID, linkID: l.ID, actions: actions})
	})
}

// partnerFixture is TestPartnerPage's partner with one link.
type partnerFixture struct {
	e                       *env
	db                      *models.DB
	c                       *client
	w                       *models.Workspace
	p                       *models.Program
	href, partnerID, linkID string
	actions                 func() []string
}

// checkPartnerActions changes the partner's status from its page, and
// from another workspace.
func checkPartnerActions(t *testing.T, f partnerFixture) {
	e, db, c, w, p, href, partnerID, actions := f.e, f.db, f.c, f.w, f.p, f.href, f.partnerID, f.actions
	ctx := context.Background()
	// Another workspace sees nothing and changes nothing.
	o := e.client()
	o.signIn("owner@other.test")
	wantStatus(t, o.post("/console/program", nil), http.StatusSeeOther)
	wantStatus(t, o.get(href), http.StatusNotFound)
	wantStatus(t, o.post(href+"/status", url.Values{"status": {"banned"}}), http.StatusNotFound)

	link := func() models.Link {
		var got models.Link
		if err := db.Where("id = ?", f.linkID).Take(&got).Error; err != nil {
			t.Fatal(err)
		}
		return got
	}
	set := func(status string, extra url.Values) {
		t.Helper()
		form := url.Values{"status": {status}, "next": {"partner"}}
		for k, v := range extra {
			form[k] = v
		}
		r := c.post(href+"/status", form)
		wantStatus(t, r, http.StatusSeeOther)
		if loc := r.Header.Get("Location"); loc != href {
			t.Errorf("after %s: back to %q", status, loc)
		}
	}
	now := time.Now().UTC()
	cm := &models.Commission{ID: ids.New(ids.Commission), WorkspaceID: w.ID, ProgramID: p.ID, PartnerID: partnerID, Type: "sale",
		Amount: 10000, Earnings: 1000, Currency: "usd", Status: models.CommissionPending, Quantity: 1, CreatedAt: now, UpdatedAt: now}
	if _, err := db.InsertCommission(ctx, cm); err != nil {
		t.Fatal(err)
	}
	commission := func() string {
		got, err := db.CommissionByID(ctx, w.ID, p.ID, cm.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}
	if got := c.get(href).text(t, `[data-testid="partner-commissions"] [data-testid="data-row"]`); !strings.Contains(got, "$10.00") {
		t.Errorf("latest commissions %q", got)
	}
	set("banned", url.Values{"reason": {"fraud"}})
	if got := commission(); got != models.CommissionCanceled {
		t.Errorf("banned partner's commission %s", got)
	}
	if got := c.get(href).text(t, `[data-testid="partner-status-note"]`); !strings.Contains(got, "Fraudulent Activity") {
		t.Errorf("ban note %q", got)
	}
	if l := link(); l.DisabledAt == nil || l.ExpiresAt == nil {
		t.Errorf("banned partner's link not disabled: %+v", l)
	}
	if got := strings.Join(actions(), ","); got != "Unban" {
		t.Errorf("banned partner's actions %s", got)
	}
	wantStatus(t, c.post(href+"/status", url.Values{"status": {"deactivated"}}), http.StatusBadRequest)
	set("approved", nil) // unban
	if got := commission(); got != models.CommissionPending {
		t.Errorf("unbanned partner's commission %s", got)
	}
	if l := link(); l.DisabledAt != nil || l.ExpiresAt != nil {
		t.Errorf("unbanned partner's link still off: %+v", l)
	}
	e.follow(t, "pat-spring", nil)
	set("deactivated", nil)
	if l := link(); l.ExpiresAt == nil {
		t.Error("deactivated partner's link has no expiry")
	}
	set("approved", nil) // reactivate
	en, err := db.EnrollmentByPartner(ctx, w.ID, p.ID, partnerID)
	if err != nil || en.Status != models.EnrollmentApproved || link().ExpiresAt != nil {
		t.Errorf("reactivated: %+v %v, link expiry %v", en, err, link().ExpiresAt)
	}
	set("archived", nil)
	if got := strings.Join(actions(), ","); got != "Unarchive,Deactivate,Ban" {
		t.Errorf("archived partner's actions %s", got)
	}
	set("approved", nil)
	wantStatus(t, c.post(href+"/status", url.Values{"status": {"banned"}, "reason": {"no_such_reason"}}), http.StatusUnprocessableEntity)
	wantStatus(t, c.post(href+"/status", url.Values{"status": {"invited"}}), http.StatusUnprocessableEntity)

	// The partner's commissions and payouts lists.
	r := c.get("/console/commissions?partnerId=" + partnerID)
	wantStatus(t, r, http.StatusOK)
	if got := r.text(t, `[data-testid="related-links"]`); !strings.Contains(got, "Pat Doe") {
		t.Errorf("filtered commissions: related links %q", got)
	}
	wantStatus(t, c.get("/console/payouts?partnerId="+partnerID), http.StatusOK)
	wantStatus(t, c.get("/console/payouts?partnerId=pn_nobody"), http.StatusNotFound)
}
