package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// The public application page, the Applications, Payouts and Bounties pages.
func TestProgramOperationsPages(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		w, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		ctx := context.Background()
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/program", nil), http.StatusSeeOther)

		// No page until the owner opens applications; "closed" only after.
		visitor := e.client()
		for _, p := range []string{"/apply/acme", "/apply/nope"} {
			if r := visitor.get(p); r.StatusCode != http.StatusNotFound {
				t.Errorf("%s before applications ever opened: %d", p, r.StatusCode)
			}
		}
		c.get("/console/applications")
		wantStatus(t, c.post("/console/applications/open", nil), http.StatusSeeOther)
		wantStatus(t, c.post("/console/applications/open", nil), http.StatusSeeOther) // closes them
		if r := visitor.get("/apply/acme"); r.text(t, `[data-testid="apply-closed"] h2`) != "Applications are closed" {
			t.Fatalf("closed page: %s", r.body)
		}
		wantStatus(t, c.post("/console/applications/open", nil), http.StatusSeeOther)
		form := visitor.get("/apply/acme")
		if d := form.doc(t); d.Find(`select[name="country"] option[value="DE"]`).Text() != "Germany" {
			t.Errorf("the country choice: %q", d.Find(`select[name="country"] option[value="DE"]`).Text())
		}

		r := visitor.post("/apply/acme", url.Values{"name": {""}, "email": {"nope"}, "country": {"ZZ"}})
		wantStatus(t, r, http.StatusUnprocessableEntity)
		if r.text(t, `[data-testid="field-error"]`) == "" || r.text(t, `[data-testid="field-country"] [data-testid="field-error"]`) != "Choose a country from the list." {
			t.Error("invalid application: no field errors")
		}
		r = visitor.post("/apply/acme", url.Values{"name": {"Ann"}, "email": {"ann@example.com"}, "country": {"de"}, "website": {"https://ann.example"}, "promotion": {"Newsletter"}})
		wantStatus(t, r, http.StatusOK)
		if r.text(t, `[data-testid="apply-done"] h2`) != "Application submitted" {
			t.Fatalf("after applying: %s", r.body)
		}
		r = visitor.post("/apply/acme", url.Values{"name": {"Ann"}, "email": {"ann@example.com"}})
		wantStatus(t, r, http.StatusConflict)
		if !strings.Contains(r.text(t, `[data-testid="alert-error"]`), "You have already applied to this program.") {
			t.Errorf("second application: %s", r.text(t, `[data-testid="alert-error"]`))
		}

		// The owner approves Ann from the Applications page.
		r = c.get("/console/applications")
		row := r.doc(t).Find(`[data-testid="data-row"]`)
		pid, _ := row.Attr("data-id")
		if row.Length() != 1 || !strings.Contains(row.Text(), "ann@example.com") || !strings.Contains(row.Text(), "Newsletter") {
			t.Fatalf("applications rows: %q", row.Text())
		}
		wantStatus(t, c.post("/console/applications/"+pid, url.Values{"decision": {"approve"}}), http.StatusSeeOther)
		prog, _ := db.DefaultProgram(ctx, w.ID)
		if en, _ := db.EnrollmentByPartner(ctx, w.ID, prog.ID, pid); en.Status != "approved" {
			t.Errorf("after approval: %s", en.Status)
		}
		if r := c.get("/console/applications"); r.doc(t).Find(`[data-testid="data-row"]`).Length() != 0 {
			t.Error("approved application still listed")
		}

		// A custom commission lands in a pending payout; confirm, CSV, mark paid.
		svc := e.srv.Services().Conversions
		if _, err := svc.CreateManualCommission(ctx, w, conversions.ManualCommissionInput{Type: "custom", PartnerID: pid, Amount: 4200}); err != nil {
			t.Fatal(err)
		}
		r = c.get("/console/payouts")
		if cells := r.doc(t).Find(`[data-testid="data-row"] td`); !strings.Contains(cells.Text(), "$42.00") || !strings.Contains(cells.Text(), "pending") {
			t.Fatalf("payouts page: %q", cells.Text())
		}
		wantStatus(t, c.post("/console/payouts/confirm", nil), http.StatusSeeOther)
		csv := c.get("/console/payouts.csv?status=processing")
		if ct := csv.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") || !strings.Contains(string(csv.body), ",Ann,ann@example.com,,,42.00,USD,") {
			t.Fatalf("csv %s: %s", ct, csv.body)
		}
		poID, _ := c.get("/console/payouts?status=processing").doc(t).Find(`[data-testid="data-row"]`).Attr("data-id")
		wantStatus(t, c.post("/console/payouts/"+poID, url.Values{"status": {"completed"}}), http.StatusSeeOther)
		if ps, _ := db.ListPayouts(ctx, w.ID, prog.ID, models.PayoutQuery{}); len(ps) != 1 || ps[0].Status != "completed" || ps[0].PaidAt == nil || ps[0].UserID == nil {
			t.Errorf("payout after paying: %+v", ps)
		}

		// A submission bounty: the partner submits, the owner approves.
		b := &models.Bounty{WorkspaceID: w.ID, ProgramID: prog.ID, Name: "Post about us", Type: models.BountyProof, RewardAmount: 1000, StartsAt: time.Now().Add(-time.Minute)}
		if err := db.CreateBounty(ctx, b, time.Now()); err != nil {
			t.Fatal(err)
		}
		en, _ := db.EnrollmentByPartner(ctx, w.ID, prog.ID, pid)
		d := "My post"
		sub, err := svc.SubmitBounty(ctx, en, b.ID, conversions.SubmissionInput{Description: &d, URLs: []string{"https://blog.example/p"}})
		if err != nil {
			t.Fatal(err)
		}
		r = c.get("/console/bounties")
		if row := r.doc(t).Find(`[data-testid="data-row"]`); row.Length() != 1 || !strings.Contains(row.Text(), "https://blog.example/p") {
			t.Fatalf("bounties rows: %q", row.Text())
		}
		wantStatus(t, c.post("/console/bounties/"+b.ID+"/submissions/"+sub.ID, url.Values{"decision": {"approve"}}), http.StatusSeeOther)
		if s, _ := db.SubmissionByID(ctx, w.ID, sub.ID); s.Status != "approved" || s.CommissionID == nil {
			t.Errorf("submission after approval: %+v", s)
		}
	})
}
