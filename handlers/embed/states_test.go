package embed_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/handlers/embed"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestFrameAncestors(t *testing.T) {
	for _, tc := range []struct {
		hosts []string
		want  string
	}{
		{nil, "*"},
		{[]string{"app.client.example"}, "'self' app.client.example app.client.example:*"},
		{[]string{"*.client.example", "localhost:3000"}, "'self' *.client.example *.client.example:* localhost:3000"},
		{[]string{"evil.example; script-src *"}, "'self'"},
	} {
		t.Run(fmt.Sprint(tc.hosts), func(t *testing.T) {
			if got := strings.Join(embed.FrameAncestors(tc.hosts), " "); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEmbedEnrollmentStates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newEnv(t, db, "acme")
		prog, _ := db.DefaultProgram(ctx, e.ws.ID)
		for _, tc := range []struct {
			status, heading string
		}{
			{models.EnrollmentPending, "Application in review"},
			{models.EnrollmentBanned, "Program unavailable"},
			{models.EnrollmentDeactivated, "Program unavailable"},
		} {
			t.Run(tc.status, func(t *testing.T) {
				tok, _ := e.partner("p-"+tc.status, "k-"+tc.status)
				en, err := db.EnrollmentByTenant(ctx, e.ws.ID, prog.ID, "p-"+tc.status)
				if err != nil {
					t.Fatal(err)
				}
				if err := db.SetEnrollmentStatus(ctx, en, tc.status); err != nil {
					t.Fatal(err)
				}
				r := e.do(appHost, "GET", "/embed/referrals?token="+tok, "", nil)
				d := doc(t, r.body)
				if r.status != 200 || text(d, `[data-testid="inactive"] h1`) != tc.heading || d.Find(`[data-testid="tabs"]`).Length() != 0 {
					t.Errorf("%d heading %q", r.status, text(d, `[data-testid="inactive"] h1`))
				}
				// An inactive partner cannot create links.
				j := e.do(appHost, "POST", "/api/embed/referrals/links", `{"key":"x-`+tc.status+`"}`, bearer(tok))
				if j.status != 403 || !strings.Contains(j.body, `"code":"forbidden"`) {
					t.Errorf("create while %s: %d %s", tc.status, j.status, j.body)
				}
			})
		}

		t.Run("no group", func(t *testing.T) {
			tok, _ := e.partner("grpless", "grpless")
			if err := db.Exec("UPDATE program_enrollments SET group_id = NULL WHERE tenant_id = ?", "grpless").Error; err != nil {
				t.Fatal(err)
			}
			r := e.do(appHost, "GET", "/embed/referrals?token="+tok, "", nil)
			if r.status != 403 || !strings.Contains(r.body, `data-embed-error="forbidden"`) {
				t.Errorf("page: %d", r.status)
			}
			j := e.do(appHost, "GET", "/api/embed/referrals/links", "", bearer(tok))
			if j.status != 403 || !strings.Contains(j.body, "not yet in any partner group") {
				t.Errorf("data: %d %s", j.status, j.body)
			}
		})

		t.Run("another workspace's token sees nothing of this one", func(t *testing.T) {
			other := newEnv(t, db, "other")
			tokO, _ := other.partner("olga", "olga")
			tokA, _ := e.partner("anna", "anna")
			la := e.do(appHost, "GET", "/api/embed/referrals/links", "", bearer(tokA))
			lo := e.do(appHost, "GET", "/api/embed/referrals/links", "", bearer(tokO))
			if !strings.Contains(la.body, `"key":"anna"`) || strings.Contains(la.body, "olga") || !strings.Contains(lo.body, `"key":"olga"`) || strings.Contains(lo.body, "anna") {
				t.Errorf("links leak across workspaces: %s / %s", la.body, lo.body)
			}
			board := e.do(appHost, "GET", "/embed/referrals/fragments/leaderboard", "", bearer(tokO))
			if strings.Contains(board.body, "anna") {
				t.Error("leaderboard leaks")
			}
		})

		t.Run("60 requests per minute per token", func(t *testing.T) {
			tok, _ := e.partner("busy", "busy")
			var last resp
			for i := 0; i < embed.RequestsPerMinute+1; i++ {
				last = e.do(appHost, "GET", "/api/embed/referrals/token", "", bearer(tok))
			}
			if last.status != 429 || !strings.Contains(last.body, "Too many requests.") || last.header.Get("X-RateLimit-Remaining") != "0" || last.header.Get("Retry-After") == "" {
				t.Errorf("61st request: %d %s %v", last.status, last.body, last.header)
			}
			// Another token has its own budget.
			tok2, _ := e.partner("calm", "calm")
			if r := e.do(appHost, "GET", "/api/embed/referrals/token", "", bearer(tok2)); r.status != 200 || r.body != `"`+tok2+`"` {
				t.Errorf("other token: %d %s", r.status, r.body)
			}
		})
	})
}

// TestEmbedAllowedHostnames turns the workspace's allowed hostnames (set in
// the console's settings) into frame-ancestors.
func TestEmbedAllowedHostnames(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db, "acme")
		tok, _ := e.partner("alice", "alice")
		if r := e.do(appHost, "GET", "/embed/referrals?token="+tok, "", nil); !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors *") {
			t.Errorf("no hostnames: CSP %q", r.header.Get("Content-Security-Policy"))
		}
		if err := db.Exec("UPDATE workspaces SET embed_allowed_hostnames = ? WHERE id = ?", "app.client.example\n*.client.example", e.ws.ID).Error; err != nil {
			t.Fatal(err)
		}
		r := e.do(appHost, "GET", "/embed/referrals?token="+tok, "", nil)
		csp := r.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'self' app.client.example app.client.example:* *.client.example *.client.example:*") {
			t.Errorf("CSP %q", csp)
		}
		if r.header.Get("X-Frame-Options") != "" {
			t.Error("X-Frame-Options sent")
		}
		// An invalid token cannot tell whose page it is: any ancestor.
		if r := e.do(appHost, "GET", "/embed/referrals?token=nope", "", nil); !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors *") {
			t.Errorf("error page CSP %q", r.header.Get("Content-Security-Policy"))
		}
	})
}

func TestEmbedEarningsPages(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newEnv(t, db, "acme")
		tok, _ := e.partner("pat", "pat")
		prog, _ := db.DefaultProgram(ctx, e.ws.ID)
		en, _ := db.EnrollmentByTenant(ctx, e.ws.ID, prog.ID, "pat")
		base := time.Now().Add(-time.Hour)
		for i := 0; i < 10; i++ {
			at := base.Add(time.Duration(i) * time.Minute)
			c := &models.Commission{ID: ids.New(ids.Commission), WorkspaceID: e.ws.ID, ProgramID: prog.ID, PartnerID: en.PartnerID,
				Type: models.CommissionCustom, Earnings: int64(100 * (i + 1)), Currency: "usd", Status: models.CommissionPaid, Quantity: 1,
				CreatedAt: at, UpdatedAt: at}
			if _, err := db.InsertCommission(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			page, rows      int
			first, prev, nx string
		}{
			{1, 8, "$10.00", "", "/embed/referrals/fragments/earnings?page=2"},
			{2, 2, "$2.00", "/embed/referrals/fragments/earnings?page=1", ""},
		} {
			t.Run(fmt.Sprint("page ", tc.page), func(t *testing.T) {
				r := e.do(appHost, "GET", fmt.Sprintf("/embed/referrals/fragments/earnings?page=%d", tc.page), "", bearer(tok))
				d := doc(t, r.body)
				if n := d.Find(`[data-testid="earnings-row"]`).Length(); n != tc.rows {
					t.Errorf("%d rows, want %d", n, tc.rows)
				}
				if got := text(d, `[data-testid="earnings-commission"]`); got != tc.first {
					t.Errorf("first row %q, want %q (newest first)", got, tc.first)
				}
				prev, _ := d.Find(`[data-testid="earnings-prev"]`).Attr("hx-get")
				next, _ := d.Find(`[data-testid="earnings-next"]`).Attr("hx-get")
				if prev != tc.prev || next != tc.nx {
					t.Errorf("pager prev %q next %q", prev, next)
				}
				if !strings.Contains(text(d, `[data-testid="earnings-total"]`), "Page "+fmt.Sprint(tc.page)+" of 2 · 10 commission(s)") {
					t.Errorf("total %q", text(d, `[data-testid="earnings-total"]`))
				}
			})
		}
		// Paid earnings show on the card.
		r := e.do(appHost, "GET", "/embed/referrals/fragments/overview", "", bearer(tok))
		if got := text(doc(t, r.body), `[data-testid="paid"]`); got != "$55.00" {
			t.Errorf("paid %q, want $55.00", got)
		}
	})
}
