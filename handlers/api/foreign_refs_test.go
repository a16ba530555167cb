package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// foreignRef is one request of workspace acme naming a resource of
// workspace other by id. status 0: any 4xx; msg "": any message (on a 200,
// text the answer holds: the per-link error of a bulk write).
type foreignRef struct {
	method, path, body string
	status             int
	msg                string
}

// TestForeignReferences walks every body and query field of the API that
// names another resource by id (links' programId, partnerId, tagIds,
// folderId on create, update, bulk and upsert; the partner, customer,
// commission and webhook fields) with an id of another workspace: each is
// refused as Dub refuses an unknown id, nothing of the other workspace is
// stored against acme's links or returned, and the other workspace is
// unchanged.
func TestForeignReferences(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newProgramEnv(t, db)
		ctx := context.Background()
		other := e.linkEnv.ws["other"]
		oProg := mustProgram(t, db, other)
		oGroup, err := db.GroupByIDOrSlug(ctx, other.ID, oProg.ID, models.DefaultGroupSlug)
		if err != nil {
			t.Fatal(err)
		}
		const secret = "other-secret"
		oPartner := e.ok(201, "other", "POST", "/partners", `{"email":"`+secret+`@example.com","name":"`+secret+`","tenantId":"t_other"}`).json(t)["id"].(string)
		oLink := e.ok(200, "other", "POST", "/links", `{"url":"https://`+secret+`.example/x","key":"otherkey"}`).json(t)["id"].(string)
		oTag := e.ok(201, "other", "POST", "/tags", `{"name":"`+secret+`"}`).json(t)["id"].(string)
		oFolder := e.ok(201, "other", "POST", "/folders", `{"name":"`+secret+`"}`).json(t)["id"].(string)
		acmeLink := e.link
		msgNotOurs := "Link does not belong to workspace ws_" + e.ws.ID + "."
		acmeURL := func(k string) string { return fmt.Sprintf(`"url":"https://acme.example/%s"`, k) }

		refs := []foreignRef{
			{"POST", "/links", `{` + acmeURL("p1") + `,"partnerId":"` + oPartner + `"}`, 404, models.MsgPartnerNotEnrolled},
			{"POST", "/links", `{` + acmeURL("p2") + `,"programId":"` + oProg.ID + `"}`, 404, "Program not found."},
			{"POST", "/links", `{` + acmeURL("p3") + `,"programId":"` + oProg.ID + `","partnerId":"` + oPartner + `"}`, 404, "Program not found."},
			{"POST", "/links", `{` + acmeURL("p4") + `,"programId":"` + e.prog.ID + `","partnerId":"` + oPartner + `"}`, 404, models.MsgPartnerNotEnrolled},
			{"POST", "/links", `{` + acmeURL("p5") + `,"tagIds":["` + oTag + `"]}`, 422, "Invalid tagIds detected: " + oTag},
			{"POST", "/links", `{` + acmeURL("p6") + `,"folderId":"` + oFolder + `"}`, 404, ""},
			{"PATCH", "/links/" + acmeLink, `{"partnerId":"` + oPartner + `"}`, 404, models.MsgPartnerNotEnrolled},
			{"PATCH", "/links/" + acmeLink, `{"programId":"` + oProg.ID + `"}`, 404, "Program not found."},
			{"PATCH", "/links/" + acmeLink, `{"tagIds":["` + oTag + `"]}`, 422, "Invalid tagIds detected: " + oTag},
			{"PATCH", "/links/" + acmeLink, `{"folderId":"` + oFolder + `"}`, 404, ""},
			{"PUT", "/links/" + acmeLink, `{"partnerId":"` + oPartner + `"}`, 404, models.MsgPartnerNotEnrolled},
			{"PUT", "/links/upsert", `{` + acmeURL("u1") + `,"partnerId":"` + oPartner + `"}`, 404, models.MsgPartnerNotEnrolled},
			{"PUT", "/links/upsert", `{` + acmeURL("u2") + `,"programId":"` + oProg.ID + `"}`, 404, "Program not found."},
			{"PATCH", "/links/bulk", `{"linkIds":["` + acmeLink + `"],"data":{"partnerId":"` + oPartner + `"}}`, 200, `"error":"Partner not found."`},
			{"PATCH", "/links/bulk", `{"linkIds":["` + acmeLink + `"],"data":{"programId":"` + oProg.ID + `"}}`, 200, `"error":"Program not found."`},
			{"PATCH", "/links/" + oLink, `{"url":"https://acme.example/steal"}`, 401, msgNotOurs},
			{"DELETE", "/links/" + oLink, ``, 401, msgNotOurs},
			{"POST", "/partners/links", `{"partnerId":"` + oPartner + `","url":"https://shop.example/x"}`, 404, models.MsgPartnerNotEnrolled},
			{"PUT", "/partners/links/upsert", `{"partnerId":"` + oPartner + `","url":"https://shop.example/y"}`, 404, models.MsgPartnerNotEnrolled},
			{"POST", "/tokens/embed/referrals", `{"partnerId":"` + oPartner + `"}`, 0, ""},
			{"POST", "/partners/applications/approve", `{"partnerId":"` + oPartner + `","groupId":"` + oGroup.ID + `"}`, 0, ""},
			{"POST", "/partners/applications/reject", `{"partnerId":"` + oPartner + `"}`, 0, ""},
			{"GET", "/partners/links?partnerId=" + oPartner, ``, 404, models.MsgPartnerNotEnrolled},
			{"GET", "/partners/analytics?partnerId=" + oPartner, ``, 0, ""},
			{"GET", "/links/" + oLink, ``, 401, msgNotOurs},
			{"GET", "/links/info?linkId=" + oLink, ``, 401, msgNotOurs},
			{"GET", "/folders/" + oFolder, ``, 404, ""},
			{"PATCH", "/tags/" + oTag, `{"name":"x"}`, 404, ""},
			{"PATCH", "/folders/" + oFolder, `{"name":"x"}`, 404, ""},
			{"GET", "/analytics?folderId=" + oFolder, ``, 404, ""},
			{"GET", "/analytics?programId=" + oProg.ID, ``, 403, ""},
			{"GET", "/analytics?linkId=" + oLink + "&groupBy=top_links", ``, 200, ""},
			{"GET", "/analytics?partnerId=" + oPartner + "&groupBy=top_partners", ``, 200, ""},
			{"GET", "/analytics?tagId=" + oTag + "&groupBy=top_link_tags", ``, 200, ""},
			{"GET", "/analytics?groupId=" + oGroup.ID + "&groupBy=top_groups", ``, 200, ""},
			{"GET", "/events?linkId=" + oLink, ``, 200, ""},
			{"GET", "/commissions?partnerId=" + oPartner, ``, 200, ""},
			{"GET", "/payouts?partnerId=" + oPartner, ``, 200, ""},
			{"GET", "/customers?linkId=" + oLink + "&partnerId=" + oPartner, ``, 200, ""},
			{"GET", "/links?tagIds=" + oTag, ``, 200, ""},
			{"GET", "/links/count?tagIds=" + oTag, ``, 200, ""},
			{"DELETE", "/links/bulk?linkIds=" + oLink, ``, 200, ""},
		}
		for _, r := range refs {
			got := e.do("acme", r.method, r.path, r.body)
			what := r.method + " " + r.path + " " + r.body
			switch {
			case r.status == 0 && (got.status < 400 || got.status >= 500):
				t.Errorf("%s: status %d, want 4xx: %s", what, got.status, got.body)
			case r.status != 0 && got.status != r.status:
				t.Errorf("%s: status %d, want %d: %s", what, got.status, r.status, got.body)
			case r.status == 200 && r.msg != "":
				if !strings.Contains(string(got.body), r.msg) {
					t.Errorf("%s: answer lacks %s: %.300s", what, r.msg, got.body)
				}
			case r.msg != "":
				if _, m := got.errMsg(t); m != r.msg {
					t.Errorf("%s: message %q, want %q", what, m, r.msg)
				}
			}
			if strings.Contains(string(got.body), secret) {
				t.Errorf("%s: the answer shows the other workspace's data: %.300s", what, got.body)
			}
		}
		// Bulk create answers per link: each foreign reference is an error entry.
		bulk := e.ok(200, "acme", "POST", "/links/bulk", `[{`+acmeURL("b1")+`,"partnerId":"`+oPartner+`"},{`+acmeURL("b2")+`,"programId":"`+oProg.ID+`"}]`).list(t)
		for i, r := range bulk {
			if r["error"] == nil {
				t.Errorf("bulk create %d with a foreign reference: %v", i, r)
			}
		}
		// Nothing of other's is stored against acme's links; other's link is intact.
		var n int64
		db.Raw(`SELECT COUNT(*) FROM links WHERE workspace_id = ? AND (partner_id = ? OR program_id = ? OR folder_id = ?)`, e.ws.ID, oPartner, oProg.ID, oFolder).Scan(&n)
		var tagged int64
		db.Raw(`SELECT COUNT(*) FROM link_tags WHERE tag_id = ?`, oTag).Scan(&tagged)
		if n != 0 || tagged != 0 {
			t.Errorf("acme's links name other's resources: %d links, %d tag rows", n, tagged)
		}
		if l := e.ok(200, "other", "GET", "/links/"+oLink, "").json(t); !strings.Contains(l["url"].(string), secret) {
			t.Errorf("other's link changed: %v", l)
		}
		// The workspace's own program and partner are still accepted.
		own := e.ok(200, "acme", "POST", "/links", `{`+acmeURL("own")+`,"programId":"`+e.prog.ID+`","partnerId":"`+e.partner+`"}`).json(t)
		if own["partnerId"] != e.partner || own["programId"] != e.prog.ID {
			t.Errorf("own program and partner: %v", own)
		}
		byTenant := e.ok(200, "acme", "POST", "/links", `{`+acmeURL("tenant")+`,"programId":"`+e.prog.ID+`","tenantId":"t_pat"}`).json(t)
		if byTenant["partnerId"] != e.partner {
			t.Errorf("programId with tenantId: partner %v, want %s", byTenant["partnerId"], e.partner)
		}
	})
}
