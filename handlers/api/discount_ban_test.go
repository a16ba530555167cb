package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestBanAndDeactivateDisableCodes: banning or deactivating a partner
// soft-deletes their discount codes (disabledAt set; a ban also detaches
// them from the discount), each with discount_code.deleted, as upstream's
// ban and deactivate jobs do (spec/parity.md §6.1, §6.2, §8.6). Other partners'
// codes stay.
func TestBanAndDeactivateDisableCodes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newLinkEnv(t, db)
		acme := e.workspace("acme", models.PlanBusiness)
		prog, _ := db.DefaultProgram(ctx, acme.ID)
		grp, _ := db.GroupByIDOrSlug(ctx, acme.ID, prog.ID, models.DefaultGroupSlug)
		domain, dest := "localhost:8080", "https://shop.example/"
		prog.Domain, prog.URL = &domain, &dest
		if err := db.SaveProgram(ctx, prog); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		disc := &models.Discount{ID: ids.New(ids.Discount), Amount: 10, Type: models.DiscountPercentage, CreatedAt: now, UpdatedAt: now}
		if err := db.SetGroupDiscount(ctx, grp, disc); err != nil {
			t.Fatal(err)
		}
		e.ok(201, "acme", "POST", "/webhooks", `{"name":"Codes","url":"https://example.com/h","triggers":["discount_code.deleted"]}`)
		code := map[string]string{}
		for _, name := range []string{"Ann", "Bob", "Cid"} {
			created := e.ok(201, "acme", "POST", "/partners", `{"email":"`+name+`@example.com","name":"`+name+`"}`).json(t)
			p, l := created["id"].(string), onlyLink(t, created, strings.ToLower(name))
			e.ok(200, "acme", "POST", "/discount-codes", `{"partnerId":"`+p+`","linkId":"`+l+`","code":"`+name+`"}`)
			code[name] = p
		}
		e.ok(200, "acme", "POST", "/partners/ban", `{"partnerId":"`+code["Ann"]+`","reason":"fraud"}`)
		e.ok(200, "acme", "POST", "/partners/deactivate", `{"partnerId":"`+code["Bob"]+`"}`)

		byCode := map[string]map[string]any{}
		for _, c := range e.ok(200, "acme", "GET", "/discount-codes", "").list(t) {
			byCode[c["code"].(string)] = c
		}
		if c := byCode["Ann"]; c == nil || c["disabledAt"] == nil || c["discountId"] != nil {
			t.Errorf("banned partner's code %v", c)
		}
		if c := byCode["Bob"]; c == nil || c["disabledAt"] == nil || c["discountId"] != disc.ID {
			t.Errorf("deactivated partner's code %v", c)
		}
		if c := byCode["Cid"]; c == nil || c["disabledAt"] != nil || c["discountId"] != disc.ID {
			t.Errorf("untouched partner's code %v", c)
		}
		var deleted []string
		for _, r := range outbox(t, db) {
			if r.Event != "discount_code.deleted" {
				continue
			}
			var env struct {
				Data struct {
					Code       string
					DisabledAt *string
					Discount   *struct{ ID string }
				}
			}
			if err := json.Unmarshal([]byte(r.Body), &env); err != nil {
				t.Fatal(err)
			}
			if env.Data.DisabledAt == nil || env.Data.Discount == nil || env.Data.Discount.ID != disc.ID {
				t.Errorf("event %s", r.Body)
			}
			deleted = append(deleted, env.Data.Code)
		}
		if len(deleted) != 2 || deleted[0] != "Ann" || deleted[1] != "Bob" {
			t.Errorf("discount_code.deleted for %v", deleted)
		}
		// A detached code is gone for DELETE, as upstream's 404.
		e.expectErr(e.do("acme", "DELETE", "/discount-codes/Ann", ""), 404, "not_found", "Discount code (Ann) not found.")
	})
}
