package conversions_test

import (
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestReactivateAndUnbanOnlyTheirStatus: the console partner page's
// Reactivate and Unban (Dub's reactivate/unban actions) refuse a partner in
// another status with a 400 saying so, and change nothing; from the right
// status they approve the partner again.
func TestReactivateAndUnbanOnlyTheirStatus(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "unban")
		ep := f.partner("pat@example.com")
		sel := conversions.PartnerSelector{PartnerID: ep.Partner.ID}
		for _, c := range []struct {
			name string
			do   func() (string, error)
			want string
		}{
			{"reactivate an approved partner", func() (string, error) { return f.svc.ReactivatePartner(f.ctx, f.ws, sel) }, "This partner is not deactivated."},
			{"unban an approved partner", func() (string, error) { return f.svc.UnbanPartner(f.ctx, f.ws, sel) }, "This partner is not banned."},
		} {
			_, err := c.do()
			if e := apierr.As(err); e.Code != apierr.BadRequest || e.Message != c.want {
				t.Fatalf("%s: %v, want 400 %q", c.name, err, c.want)
			}
		}
		if _, err := f.svc.BanPartner(f.ctx, f.ws, sel, "tos_violation"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.ReactivatePartner(f.ctx, f.ws, sel); apierr.As(err).Message != "This partner is not deactivated." {
			t.Fatalf("reactivate a banned partner: %v", err)
		}
		if _, err := f.svc.UnbanPartner(f.ctx, f.ws, sel); err != nil {
			t.Fatalf("unban: %v", err)
		}
		e, err := db.EnrollmentByPartner(f.ctx, f.ws.ID, f.prog.ID, ep.Partner.ID)
		if err != nil || e.Status != models.EnrollmentApproved {
			t.Fatalf("after unban: %+v %v, want approved", e, err)
		}
	})
}
