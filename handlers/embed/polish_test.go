package embed_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// polishEnv is TestDashboardAsAPartnerMeetsIt's fixture: Alice has 3
// clicks, 1 lead and 2 sales from one customer; Bob has clicks only; Carol
// has a lead commission.
type polishEnv struct {
	ctx              context.Context
	e                *env
	db               *models.DB
	prog             *models.Program
	g                *models.Group
	tokA, tokB, tokC string
}

func (p polishEnv) frag(t *testing.T, tok, path string) (resp, *goquery.Document) {
	t.Helper()
	r := p.e.do(appHost, "GET", "/embed/referrals/fragments/"+path, "", bearer(tok))
	if r.status != 200 {
		t.Fatalf("%s: %d %s", path, r.status, r.body)
	}
	return r, doc(t, r.body)
}

func (p polishEnv) saveGroup(t *testing.T) {
	t.Helper()
	if err := p.db.SaveGroup(p.ctx, p.g); err != nil {
		t.Fatal(err)
	}
	g, err := p.db.GroupByID(p.ctx, p.e.ws.ID, p.g.ID)
	if err != nil {
		t.Fatal(err)
	}
	*p.g = *g
}

// TestDashboardAsAPartnerMeetsIt covers issue 19 item 1 on the server: the
// Sales card, the leaderboard, link creation rules and guidance, default
// links added later, the refresh after a link write, the full-frame
// background and SVG icons.
func TestDashboardAsAPartnerMeetsIt(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newEnv(t, db, "acme")
		tokA, linkA := e.partner("alice", "alice")
		tokB, linkB := e.partner("bob", "bob")
		tokC, linkC := e.partner("carol", "carol")
		e.convert(linkA, 3, "cus1", "jane@gmail.com", 10000)
		// A second sale by the same customer: one conversion, two sales.
		e.api(200, "POST", "/track/sale", `{"customerExternalId":"cus1","amount":5000,"invoiceId":"inv_cus1_2"}`)
		e.convert(linkB, 2, "", "", 0)
		e.convert(linkC, 1, "cus2", "omar@example.org", 0)
		prog, err := db.DefaultProgram(ctx, e.ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		g, err := db.GroupByIDOrSlug(ctx, e.ws.ID, prog.ID, models.DefaultGroupSlug)
		if err != nil {
			t.Fatal(err)
		}
		// From here on the group has no default link: partners joining
		// now have no link until they make one.
		g.DefaultLinks = models.Some([]models.DefaultLink{})
		if err := db.SaveGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		p := polishEnv{ctx: ctx, e: e, db: db, prog: prog, g: g, tokA: tokA, tokB: tokB, tokC: tokC}
		t.Run("the Sales card counts sales", func(t *testing.T) { polishSalesCard(t, p) })
		t.Run("the leaderboard shows real rows and marks the viewer", func(t *testing.T) { polishLeaderboard(t, p) })
		t.Run("link rules are said on the page", func(t *testing.T) { polishLinkRules(t, p) })
		t.Run("frame background and icons", func(t *testing.T) { polishFrameAndIcons(t, p) })
		t.Run("default links reach partners who joined before them", func(t *testing.T) { polishDefaultLinksLater(t, p) })
	})
}

func polishSalesCard(t *testing.T, p polishEnv) {
	_, d := p.frag(t, p.tokA, "overview")
	got := []string{text(d, `[data-testid="stat-clicks"] [data-testid="stat-value"]`), text(d, `[data-testid="stat-leads"] [data-testid="stat-value"]`),
		text(d, `[data-testid="stat-sales"] [data-testid="stat-value"]`)}
	if strings.Join(got, ",") != "3,1,2" {
		t.Errorf("clicks, leads, sales = %v, want 3,1,2", got)
	}
	// The same figure /analytics gives for the partner's links.
	r := p.e.do(appHost, "GET", "/api/embed/referrals/analytics?event=composite&interval=all", "", bearer(p.tokA))
	var count struct{ Sales int64 }
	if err := json.Unmarshal([]byte(r.body), &count); err != nil || count.Sales != 2 {
		t.Errorf("analytics: %d %s", r.status, r.body)
	}
}

func polishLeaderboard(t *testing.T, p polishEnv) {
	// The JSON keeps Dub's 20 rows, zero fillers included.
	r := p.e.do(appHost, "GET", "/api/embed/referrals/leaderboard", "", bearer(p.tokA))
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.body), &rows); err != nil || len(rows) != 20 || rows[2]["totalCommissions"].(float64) != 0 {
		t.Fatalf("JSON leaderboard: %d %s", r.status, r.body)
	}
	// Alice ($30 in sales + $5 lead) first, Carol ($5) second; Bob has none.
	_, d := p.frag(t, p.tokA, "leaderboard")
	if n := d.Find(`[data-testid="leaderboard-row"]`).Length(); n != 2 {
		t.Errorf("%d rows shown, want the 2 real ones", n)
	}
	if s := text(d, `[data-testid="leaderboard-summary"]`); s != "3 partners in the program, 2 with earnings." {
		t.Errorf("summary %q", s)
	}
	you := d.Find(`[data-testid="leaderboard-row"][data-you="true"]`)
	if you.Length() != 1 || strings.TrimSpace(you.Find("td").First().Text()) != "1" || you.Find(`[data-testid="leaderboard-you"]`).Text() != "You" {
		t.Errorf("viewer's row: %d marked, rank %q", you.Length(), you.Find("td").First().Text())
	}
	if d.Find(`[data-testid="leaderboard-not-ranked"]`).Length() != 0 {
		t.Error("a ranked viewer is told they are not ranked")
	}
	_, d = p.frag(t, p.tokC, "leaderboard")
	if rank := strings.TrimSpace(d.Find(`[data-you="true"] td`).First().Text()); rank != "2" {
		t.Errorf("carol's marked rank %q, want 2", rank)
	}
	_, d = p.frag(t, p.tokB, "leaderboard")
	if d.Find(`[data-you="true"]`).Length() != 0 || d.Find(`[data-testid="leaderboard-not-ranked"]`).Length() != 1 {
		t.Error("bob (no earnings) is marked on the board or not told why he is missing")
	}
	if d.Find(`svg[data-icon="crown"]`).Length() != 2 {
		t.Error("ranks 1 and 2 have no crown icons")
	}
}

func polishLinkRules(t *testing.T, p polishEnv) {
	// Fresh programs let partners create 10 links, as Dub's do.
	c, err := p.db.CreateWorkspaceWithKey(p.ctx, models.NewWorkspace{Name: "Fresh", Slug: "fresh", Plan: models.PlanAdvanced})
	if err != nil {
		t.Fatal(err)
	}
	if fg, err := p.db.GroupByID(p.ctx, c.Workspace.ID, *mustProgram(t, p.db, c.Workspace.ID).DefaultGroupID); err != nil || fg.MaxPartnerLinks != 10 {
		t.Errorf("new default group: %+v %v", fg, err)
	}
	if ng, err := p.db.CreateGroup(p.ctx, mustProgram(t, p.db, c.Workspace.ID), "VIP", "vip"); err != nil || ng.MaxPartnerLinks != 10 {
		t.Errorf("new group: %+v %v", ng, err)
	}

	// Bob creates a link from the form: the answer tells the page to reload
	// the referral-link box, which listens for it.
	r := p.e.do(appHost, "POST", "/embed/referrals/fragments/links", "key=bob-shop&domain=shop.example&path=",
		map[string]string{"Authorization": "Bearer " + p.tokB, "Content-Type": "application/x-www-form-urlencoded"})
	if r.status != 200 || r.header.Get("HX-Trigger") != "linksChanged" {
		t.Errorf("create: %d HX-Trigger %q", r.status, r.header.Get("HX-Trigger"))
	}
	_, d := p.frag(t, p.tokB, "overview")
	if trig, _ := d.Find("#overview").Attr("hx-trigger"); trig != "linksChanged from:body" {
		t.Errorf("overview hx-trigger %q", trig)
	}
	if d.Find(`[data-testid="link-select"] option`).Length() != 2 {
		t.Error("the new link is not in the referral-link box")
	}
	// At the limit (3 links), the disabled button says why on the page.
	p.e.do(appHost, "POST", "/api/embed/referrals/links", `{"key":"bob-3"}`, bearer(p.tokB))
	_, d = p.frag(t, p.tokB, "links")
	if _, dis := d.Find(`[data-testid="link-new"]`).Attr("disabled"); !dis ||
		text(d, `[data-testid="link-new-reason"]`) != "You have reached the limit of 3 links. Edit one of your links to point it somewhere else." {
		t.Errorf("limit reason %q", text(d, `[data-testid="link-new-reason"]`))
	}
	// A partner without links in a group that lets partners create them is
	// offered the form; where no link can exist, what to do instead.
	p.e.api(201, "POST", "/partners", `{"email":"dora@partners.example","name":"Dora","tenantId":"dora"}`)
	tokD := p.e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"dora"}`)["publicToken"].(string)
	_, d = p.frag(t, tokD, "overview")
	if get, _ := d.Find(`[data-testid="create-link"]`).Attr("hx-get"); get != "/embed/referrals/fragments/links?form=new" || d.Find(`[data-testid="no-link-help"]`).Length() != 0 {
		t.Errorf("create button hx-get %q", get)
	}
	p.g.AdditionalLinks = models.JSONCol[[]models.AdditionalLink]{}
	p.saveGroup(t)
	for _, path := range []string{"overview", "quickstart"} {
		_, d = p.frag(t, tokD, path)
		if d.Find(`[data-goto-tab="links"]`).Length() != 0 || !strings.Contains(d.Text(), "contact them to get yours") {
			t.Errorf("%s offers a link button that opens nothing: %s", path, d.Text())
		}
	}
	_, d = p.frag(t, tokD, "links")
	if text(d, `[data-testid="link-new-reason"]`) != "This program does not let partners create links." {
		t.Errorf("no-links reason %q", text(d, `[data-testid="link-new-reason"]`))
	}
	p.g.AdditionalLinks = models.Some([]models.AdditionalLink{{Domain: "shop.example", ValidationMode: "domain"}})
	p.saveGroup(t)
}

func mustProgram(t *testing.T, db *models.DB, wsID string) *models.Program {
	t.Helper()
	prog, err := db.DefaultProgram(context.Background(), wsID)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func polishFrameAndIcons(t *testing.T, p polishEnv) {
	r := p.e.do(appHost, "GET", `/embed/referrals?token=`+p.tokA+`&themeOptions=%7B%22backgroundColor%22%3A%22%23fef3c7%22%7D`, "", nil)
	d := doc(t, r.body)
	root := d.Find("#embed-root")
	cls, _ := root.Attr("class")
	st, _ := root.Attr("style")
	// The coloured root spans the frame; the content is centred inside it.
	if !strings.Contains(st, "background-color: #fef3c7") || !strings.Contains(cls, "w-full") || strings.Contains(cls, "max-w") ||
		root.Children().First().HasClass("max-w-5xl") == false {
		t.Errorf("root class %q style %q", cls, st)
	}
	bodies := []string{r.body}
	for _, path := range []string{"overview", "links", "leaderboard", "quickstart", "earnings"} {
		f, _ := p.frag(t, p.tokA, path)
		bodies = append(bodies, f.body)
	}
	for _, b := range bodies {
		for _, glyph := range []string{"⧉", "♛", "⋯", "🎁", "●", "↗", "✓"} {
			if strings.Contains(b, glyph) {
				t.Errorf("font glyph %q in %.200s", glyph, b)
			}
		}
	}
	// An icon never swallows the text after it.
	if _, ld := p.frag(t, p.tokA, "links"); strings.TrimSpace(ld.Find(`[data-testid="link-row"] a`).First().Text()) != "shop.example" {
		t.Errorf("link destination %q", ld.Find(`[data-testid="link-row"] a`).First().Text())
	}
	if d.Find(`summary svg[data-icon="dots"]`).Length() != 1 {
		t.Error("the tabs menu has no SVG icon")
	}
}

func polishDefaultLinksLater(t *testing.T, p polishEnv) {
	// Erin joins while the group has no default links, Faye is pending.
	p.e.api(201, "POST", "/partners", `{"email":"erin@partners.example","name":"Erin","tenantId":"erin"}`)
	tokE := p.e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"erin"}`)["publicToken"].(string)
	p.g.DefaultLinks = models.Some([]models.DefaultLink{{Domain: appHost, URL: "https://shop.example/welcome"}})
	p.saveGroup(t)
	dlID := p.g.DefaultLinks.V[0].ID
	// The job run when default links change (relink program group set
	// --default-link) gives every approved partner of the group the link.
	svc := p.e.srv.Services().Conversions
	n, err := svc.SyncDefaultLinks(p.ctx, p.e.ws, p.g)
	if err != nil {
		t.Fatal(err)
	}
	// alice, bob, carol, dora, erin: each has no link from it yet.
	if n != 5 {
		t.Errorf("created %d links, want 5", n)
	}
	var ls []embedLink
	r := p.e.do(appHost, "GET", "/api/embed/referrals/links", "", bearer(tokE))
	if err := json.Unmarshal([]byte(r.body), &ls); err != nil || len(ls) != 1 || ls[0].PartnerGroupDefaultLinkID == nil ||
		*ls[0].PartnerGroupDefaultLinkID != dlID || !strings.HasPrefix(ls[0].Key, "erin") {
		t.Fatalf("erin's links: %s", r.body)
	}
	// Running it again creates nothing.
	if n, err := svc.SyncDefaultLinks(p.ctx, p.e.ws, p.g); err != nil || n != 0 {
		t.Errorf("second sync: %d %v", n, err)
	}
	// A partner left without any link gets it when opening the dashboard.
	p.e.api(201, "POST", "/partners", `{"email":"gil@partners.example","name":"Gil","tenantId":"gil"}`)
	tokG := p.e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"gil"}`)["publicToken"].(string)
	gil, err := p.db.EnrollmentByTenant(p.ctx, p.e.ws.ID, p.prog.ID, "gil")
	if err != nil {
		t.Fatal(err)
	}
	have, _ := p.db.PartnerLinks(p.ctx, p.e.ws.ID, p.prog.ID, gil.PartnerID)
	for _, l := range have {
		if err := p.db.Exec("DELETE FROM links WHERE id = ?", l.ID).Error; err != nil {
			t.Fatal(err)
		}
	}
	if pg := p.e.do(appHost, "GET", "/embed/referrals?token="+tokG, "", nil); pg.status != 200 {
		t.Fatalf("page %d", pg.status)
	}
	_, d := p.frag(t, tokG, "overview")
	if v, _ := d.Find(`[data-testid="referral-link"]`).Attr("value"); !strings.HasPrefix(v, appHost+"/gil") {
		t.Errorf("gil's referral link %q after opening the dashboard", v)
	}
}
