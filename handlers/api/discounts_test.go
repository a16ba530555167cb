package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestDiscountCodes: GET/POST /discount-codes and DELETE
// /discount-codes/{idOrCode} (spec/parity.md §8.3-8.5) with a group discount.
func TestDiscountCodes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newLinkEnv(t, db)
		acme := e.workspace("acme", models.PlanBusiness)
		e.workspace("pro", models.PlanPro)
		prog, _ := db.DefaultProgram(ctx, acme.ID)
		grp, _ := db.GroupByIDOrSlug(ctx, acme.ID, prog.ID, models.DefaultGroupSlug)
		domain, dest := "localhost:8080", "https://shop.example/"
		prog.Domain, prog.URL = &domain, &dest
		if err := db.SaveProgram(ctx, prog); err != nil {
			t.Fatal(err)
		}
		// A partner enrolled before the group has a discount has none.
		early := e.ok(201, "acme", "POST", "/partners", `{"email":"early@example.com","name":"Early Bird"}`).json(t)["id"].(string)
		earlyLink := e.ok(201, "acme", "POST", "/partners/links", `{"partnerId":"`+early+`","key":"early"}`).json(t)["id"].(string)
		e.expectErr(e.do("acme", "POST", "/discount-codes", `{"partnerId":"`+early+`","linkId":"`+earlyLink+`"}`), 400, "bad_request",
			"No discount is assigned to this partner group. Please add a discount before proceeding.")

		months := 12
		now := time.Now().UTC()
		disc := &models.Discount{ID: ids.New(ids.Discount), Amount: 20, Type: models.DiscountPercentage, MaxDuration: &months, CreatedAt: now, UpdatedAt: now}
		if err := db.SetGroupDiscount(ctx, grp, disc); err != nil {
			t.Fatal(err)
		}
		ann := e.ok(201, "acme", "POST", "/partners", `{"email":"ann@example.com","name":"Ann Lee"}`).json(t)["id"].(string)
		annLink := e.ok(201, "acme", "POST", "/partners/links", `{"partnerId":"`+ann+`","key":"ann"}`).json(t)["id"].(string)
		annLink2 := e.ok(201, "acme", "POST", "/partners/links", `{"partnerId":"`+ann+`","key":"ann2"}`).json(t)["id"].(string)

		// Generated: first name word, upper-cased, and the amount.
		gen := e.ok(200, "acme", "POST", "/discount-codes", `{"partnerId":"`+ann+`","linkId":"`+annLink+`"}`).json(t)
		if gen["code"] != "ANN20OFF" || gen["discountId"] != disc.ID || gen["partnerId"] != ann || gen["linkId"] != annLink ||
			!strings.HasPrefix(gen["id"].(string), "dcode_") || gen["disabledAt"] != nil {
			t.Fatalf("generated %v", gen)
		}
		// The early partner got the group's discount when it was set.
		early2 := e.ok(200, "acme", "POST", "/discount-codes", `{"partnerId":"`+early+`","linkId":"`+earlyLink+`","code":"  EARLY-bird_1 "}`).json(t)
		if early2["code"] != "EARLY-bird_1" {
			t.Fatalf("explicit code %v", early2)
		}
		for _, tc := range []struct {
			key, body string
			status    int
			code, msg string
		}{
			{"acme", `{"partnerId":"` + ann + `","linkId":"` + annLink + `"}`, 400, "bad_request", "This link already has a discount code (ANN20OFF) assigned."},
			{"acme", `{"partnerId":"` + ann + `","linkId":"` + earlyLink + `"}`, 400, "bad_request", "Partner link not found."},
			{"acme", `{"partnerId":"pn_nope","linkId":"x"}`, 404, "not_found", "Partner pn_nope is not enrolled in program " + prog.ID + "."},
			{"acme", `{"partnerId":"` + ann + `","linkId":"` + annLink2 + `","code":"early-BIRD_1"}`, 409, "conflict",
				"This discount code \"early-BIRD_1\" is already in use by [early@example.com](http://localhost:8080/console/acme/program/partners/" + early + "). Please choose a different code."},
			{"acme", `{"code":"NOT VALID!","partnerId":"x","linkId":"y"}`, 422, "unprocessable_entity", "invalid_format: code: Code can only contain letters, numbers, dashes, and underscores."},
			{"acme", `{"code":"` + strings.Repeat("A", 101) + `","partnerId":"x","linkId":"y"}`, 422, "unprocessable_entity", "too_big: code: Code must be 100 characters or fewer."},
			{"acme", `{"linkId":"y"}`, 422, "unprocessable_entity", "invalid_type: partnerId: Invalid input: expected string, received undefined"},
			{"acme", `{"partnerId":"x"}`, 422, "unprocessable_entity", "invalid_type: linkId: Invalid input: expected string, received undefined"},
			{"pro", `{"partnerId":"x","linkId":"y"}`, 403, "forbidden", "Unauthorized: Need higher plan."},
		} {
			e.expectErr(e.do(tc.key, "POST", "/discount-codes", tc.body), tc.status, tc.code, tc.msg)
		}

		list := e.ok(200, "acme", "GET", "/discount-codes", "").list(t)
		if len(list) != 2 || list[0]["id"] != early2["id"] || list[1]["id"] != gen["id"] {
			t.Fatalf("list (newest first) %v", list)
		}
		if l := e.ok(200, "acme", "GET", "/discount-codes?partnerId="+ann, "").list(t); len(l) != 1 || l[0]["code"] != "ANN20OFF" {
			t.Errorf("by partner %v", l)
		}
		if l := e.ok(200, "acme", "GET", "/discount-codes?discountId="+disc.ID+"&pageSize=1", "").list(t); len(l) != 1 {
			t.Errorf("by discount, one page %v", l)
		}
		e.expectErr(e.do("acme", "GET", "/discount-codes?discountId=disc_nope", ""), 404, "not_found", "Discount not found.")
		e.expectErr(e.do("acme", "GET", "/discount-codes?partnerId=pn_nope", ""), 404, "not_found", "Partner pn_nope is not enrolled in program "+prog.ID+".")
		e.expectErr(e.do("acme", "GET", "/discount-codes?pageSize=101", ""), 422, "unprocessable_entity", "too_big: pageSize: Max page size is 100.")
		e.expectErr(e.do("pro", "GET", "/discount-codes", ""), 403, "forbidden", "Unauthorized: Need higher plan.")

		// Delete by code (exact) and by id; then it is gone.
		e.expectErr(e.do("acme", "DELETE", "/discount-codes/ann20off", ""), 404, "not_found", "Discount code (ann20off) not found.")
		if d := e.ok(200, "acme", "DELETE", "/discount-codes/ANN20OFF", "").json(t); d["id"] != gen["id"] {
			t.Fatalf("delete by code %v", d)
		}
		if d := e.ok(200, "acme", "DELETE", "/discount-codes/"+early2["id"].(string), "").json(t); d["id"] != early2["id"] {
			t.Fatalf("delete by id %v", d)
		}
		e.expectErr(e.do("acme", "DELETE", "/discount-codes/"+early2["id"].(string), ""), 404, "not_found", "Discount code ("+early2["id"].(string)+") not found.")
		if l := e.ok(200, "acme", "GET", "/discount-codes", "").list(t); len(l) != 0 {
			t.Fatalf("after delete %v", l)
		}
		// The link is free for a new code.
		e.ok(200, "acme", "POST", "/discount-codes", `{"partnerId":"`+ann+`","linkId":"`+annLink+`","code":"ANN"}`)
	})
}
