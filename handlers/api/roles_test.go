package api_test

import (
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestWriterRoles: the program, customer and conversion changes need the
// owner or member role, as upstream's requiredRoles (spec/parity.md §0.1). Relink
// gives only those two roles, so the refused user has a role stored from
// elsewhere ("viewer", one of Dub's); members pass the gate.
func TestWriterRoles(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		e.memberKey("viewer", "acme", models.Role("viewer"))
		e.memberKey("member", "acme", models.RoleMember)
		const msg = "You don't have the required role to access this endpoint. Required role(s): owner, member."
		for _, r := range []struct{ method, path string }{
			{"POST", "/commissions"}, {"PATCH", "/commissions/bulk"}, {"PATCH", "/commissions/cm_1"},
			{"POST", "/partners/ban"}, {"POST", "/partners/deactivate"},
			{"POST", "/partners/applications/approve"}, {"POST", "/partners/applications/reject"},
			{"POST", "/bounties/bnty_1/submissions/sub_1/approve"}, {"POST", "/bounties/bnty_1/submissions/sub_1/reject"},
			{"POST", "/partners"}, {"GET", "/partners/links"}, {"POST", "/partners/links"},
			{"PATCH", "/customers/cus_1"}, {"DELETE", "/customers/cus_1"}, {"POST", "/customers"},
			{"POST", "/track/lead"}, {"POST", "/track/sale"},
			{"POST", "/discount-codes"}, {"DELETE", "/discount-codes/CODE"},
		} {
			t.Run(r.method+" "+r.path, func(t *testing.T) {
				e := e.sub(t)
				e.expectErr(e.do("viewer", r.method, r.path, "{}"), 403, "forbidden", msg)
				if res := e.do("member", r.method, r.path, "{}"); res.status == 403 {
					if _, m := res.errMsg(t); m == msg {
						t.Errorf("a member is refused: %s", res.body)
					}
				}
			})
		}
		// Reads stay open to every role.
		e.ok(200, "viewer", "GET", "/payouts", "")
		e.ok(200, "viewer", "GET", "/commissions", "")
	})
}
