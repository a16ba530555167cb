package embed_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func tabIDs(d *goquery.Document) string {
	return strings.Join(d.Find("[data-tab]").Map(func(_ int, s *goquery.Selection) string { v, _ := s.Attr("data-tab"); return v }), ",")
}

func TestTabs(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		e := newEnv(t, db, "acme")
		tokA, linkA := e.partner("alice", "alice")
		tokB, _ := e.partner("bob", "bob")
		e.convert(linkA, 3, "cus1", "jane@gmail.com", 10000) // alice: $20 sale + $5 lead commissions
		prog, err := db.DefaultProgram(ctx, e.ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		g, err := db.GroupByIDOrSlug(ctx, e.ws.ID, prog.ID, models.DefaultGroupSlug)
		if err != nil {
			t.Fatal(err)
		}
		page := func(tok string) *goquery.Document {
			t.Helper()
			r := e.do(appHost, "GET", "/embed/referrals?token="+tok, "", nil)
			if r.status != 200 {
				t.Fatalf("page %d %s", r.status, r.body)
			}
			return doc(t, r.body)
		}
		frag := func(tok, path string) *goquery.Document {
			t.Helper()
			r := e.do(appHost, "GET", "/embed/referrals/fragments/"+path, "", bearer(tok))
			if r.status != 200 {
				t.Fatalf("%s: %d %s", path, r.status, r.body)
			}
			return doc(t, r.body)
		}

		tb := tabsEnv{ctx: ctx, db: db, e: e, prog: prog, g: g, tokA: tokA, tokB: tokB, page: page, frag: frag}

		t.Run("without resources or bounties", func(t *testing.T) {
			if got := tabIDs(page(tokA)); got != "quickstart,earnings,links,leaderboard,faq,settings" {
				t.Errorf("tabs %s", got)
			}
			q := frag(tokA, "quickstart")
			if _, dis := q.Find(`[data-testid="quickstart-resources"]`).Attr("disabled"); !dis || text(q, `[data-testid="quickstart-resources"]`) != "No resources" {
				t.Error("resources card is not disabled")
			}
			if _, dis := q.Find(`[data-testid="quickstart-payouts"]`).Attr("disabled"); dis {
				t.Error("alice has earnings but cannot open payouts")
			}
			if _, dis := frag(tokB, "quickstart").Find(`[data-testid="quickstart-payouts"]`).Attr("disabled"); !dis {
				t.Error("bob has no earnings but payouts are enabled")
			}
		})

		t.Run("no additional links, no links tab", func(t *testing.T) {
			saved := g.AdditionalLinks
			g.AdditionalLinks = models.JSONCol[[]models.AdditionalLink]{}
			if err := db.SaveGroup(ctx, g); err != nil {
				t.Fatal(err)
			}
			got := tabIDs(page(tokA))
			g.AdditionalLinks = saved
			if err := db.SaveGroup(ctx, g); err != nil {
				t.Fatal(err)
			}
			if got != "quickstart,earnings,leaderboard,faq,settings" {
				t.Errorf("tabs %s, want no links tab when the group allows no additional links", got)
			}
		})

		t.Run("resources", func(t *testing.T) { checkResourcesTab(t, tb) })

		t.Run("settings", func(t *testing.T) {
			d := frag(tokA, "settings")
			if m := text(d, `[data-testid="payout-method"]`); m != "Not set up yet" {
				t.Errorf("method %q", m)
			}
			if !strings.Contains(d.Text(), "alice@partners.example") || strings.Contains(d.Text(), "bob@") {
				t.Errorf("settings text: %s", d.Text())
			}
			if u := text(d, `[data-testid="settings-upcoming"]`); u != "$25.00" {
				t.Errorf("upcoming %q", u)
			}
			terms := text(d, `[data-testid="settings-terms"]`)
			if !strings.Contains(terms, "reach $50") || !strings.Contains(terms, "held for 30 days") {
				t.Errorf("terms %q", terms)
			}
		})

		t.Run("bounties", func(t *testing.T) { checkBountiesTab(t, tb) })

		t.Run("sparklines once there is activity", func(t *testing.T) { checkSparklines(t, tb) })

		t.Run("partner referral section", func(t *testing.T) { checkPartnerReferral(t, tb) })
	})
}

// tabsEnv is what TestTabs' steps share.
type tabsEnv struct {
	ctx        context.Context
	db         *models.DB
	e          *env
	prog       *models.Program
	g          *models.Group
	tokA, tokB string
	page       func(tok string) *goquery.Document
	frag       func(tok, path string) *goquery.Document
}

// checkBountiesTab is TestTabs' "bounties" step.
func checkBountiesTab(t *testing.T, tb tabsEnv) {
	ctx, db, e, prog, g, tokA, tokB, page, frag := tb.ctx, tb.db, tb.e, tb.prog, tb.g, tb.tokA, tb.tokB, tb.page, tb.frag
	now := time.Now().UTC()
	desc := "Reach $10 in sale commissions this month."
	past := now.Add(-time.Hour)
	other, err := db.CreateGroup(ctx, prog, "VIP", "vip")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*models.Bounty{
		{Name: "Spring push", Description: &desc, RewardAmount: 5000, GoalEarnings: 1000, StartsAt: now.AddDate(0, 0, -1), GroupID: &g.ID},
		{Name: "Big league", RewardAmount: 20000, GoalEarnings: 100000, StartsAt: now.AddDate(0, 0, -1)},
		{Name: "Ended", RewardAmount: 100, GoalEarnings: 100, StartsAt: now.AddDate(0, 0, -9), EndsAt: &past},
		{Name: "Other group", RewardAmount: 100, GoalEarnings: 100, StartsAt: now.AddDate(0, 0, -1), GroupID: &other.ID},
		{Name: "Not started", RewardAmount: 100, GoalEarnings: 100, StartsAt: now.AddDate(0, 0, 2)},
	} {
		b.WorkspaceID, b.ProgramID = e.ws.ID, prog.ID
		if err := db.CreateBounty(ctx, b, now); err != nil {
			t.Fatal(err)
		}
	}
	p := page(tokA)
	if got := tabIDs(p); got != "quickstart,bounties,earnings,links,leaderboard,faq,resources,settings" {
		t.Errorf("tabs %s", got)
	}
	if b := text(p, `[data-testid="tab-badge-bounties"]`); b != "2" {
		t.Errorf("badge %q", b)
	}
	d := frag(tokA, "bounties")
	names := d.Find(`[data-testid="bounty-name"]`).Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	if strings.Join(names, "|") != "Spring push|Big league" {
		t.Errorf("bounties %v", names)
	}
	first := d.Find(`[data-testid="bounty"]`).First()
	// Alice's $20 sale commission is counted; her $5 lead commission is not.
	if pr := strings.TrimSpace(first.Find(`[data-testid="bounty-progress"]`).Text()); pr != "$20.00 of $10" || first.Find(`[data-testid="bounty-done"]`).Length() != 1 {
		t.Errorf("first bounty progress %q", pr)
	}
	second := d.Find(`[data-testid="bounty"]`).Last()
	if pr := strings.TrimSpace(second.Find(`[data-testid="bounty-progress"]`).Text()); pr != "$20.00 of $1,000" || second.Find(`[data-testid="bounty-done"]`).Length() != 0 {
		t.Errorf("second bounty progress %q", pr)
	}
	if pr := text(frag(tokB, "bounties"), `[data-testid="bounty-progress"]`); pr != "$0.00 of $10" {
		t.Errorf("bob's progress %q", pr)
	}
}

// checkSparklines is TestTabs' "sparklines once there is activity" step.
func checkSparklines(t *testing.T, tb tabsEnv) {
	e, tokA, frag := tb.e, tb.tokA, tb.frag
	d := frag(tokA, "overview")
	if n := d.Find(`[data-testid="sparkline"] path`).Length(); n != 3 || d.Find(`[data-testid="no-activity"]`).Length() != 0 {
		t.Errorf("alice: %d sparklines", n)
	}
	e.api(201, "POST", "/partners", `{"email":"idle@partners.example","name":"idle","tenantId":"idle"}`)
	tokI := e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"idle"}`)["publicToken"].(string)
	d = frag(tokI, "overview")
	if d.Find(`[data-testid="sparkline"]`).Length() != 0 || !strings.Contains(text(d, `[data-testid="no-activity"]`), "No activity yet") {
		t.Error("idle partner: want the empty hint and no sparklines")
	}
}

// checkPartnerReferral is TestTabs' "partner referral section" step.
func checkPartnerReferral(t *testing.T, tb tabsEnv) {
	ctx, db, e, g, tokA, frag := tb.ctx, tb.db, tb.e, tb.g, tb.tokA, tb.frag
	if frag(tokA, "overview").Find(`[data-testid="partner-referral"]`).Length() != 0 {
		t.Fatal("alice has no referral reward but sees the section")
	}
	ten := int64(1000)
	if err := db.SetGroupReward(ctx, g, &models.Reward{Event: models.EventReferral, Type: models.RewardFlat, AmountInCents: &ten}); err != nil {
		t.Fatal(err)
	}
	e.api(201, "POST", "/partners", `{"email":"rita@partners.example","name":"Rita","tenantId":"rita"}`)
	tok := e.api(201, "POST", "/tokens/embed/referrals", `{"tenantId":"rita"}`)["publicToken"].(string)
	d := frag(tok, "overview")
	sec := d.Find(`[data-testid="partner-referral"]`)
	v, _ := sec.Find(`[data-testid="partner-referral-link"]`).Attr("value")
	cp, _ := sec.Find(`[data-copy]`).Attr("data-copy")
	if !strings.HasPrefix(v, "shop.example/?via=rita-") || cp != "https://"+v {
		t.Errorf("partner referral link %q copy %q", v, cp)
	}
	if r := strings.TrimSpace(sec.Find(`[data-testid="reward"]`).Text()); r != "Earn $10 for each partner you refer" {
		t.Errorf("referral reward %q", r)
	}
	if !strings.Contains(d.Find(`[data-testid="hero"] h2`).First().Text(), "Customer referral rewards") || d.Find(`[data-testid="rewards"]`).Length() != 0 {
		t.Error("hero keeps the plain Rewards block next to the partner-referral section")
	}
}

// checkResourcesTab is TestTabs' "resources" step.
func checkResourcesTab(t *testing.T, tb tabsEnv) {
	ctx, db, prog, tokA, page, frag := tb.ctx, tb.db, tb.prog, tb.tokA, tb.page, tb.frag
	prog.Resources = models.Some(models.ProgramResources{
		Logos:  []models.ResourceFile{{ID: "l1", Name: "Wordmark", Size: 12288, URL: "https://cdn.example/acme-logo.png"}},
		Colors: []models.ResourceColor{{ID: "c1", Name: "Acme blue", Color: "#2563eb"}},
		Files:  []models.ResourceFile{{ID: "f1", Name: "Brand guide", Size: 2 << 20, URL: "https://cdn.example/guide.pdf"}},
		Links:  []models.ResourceLink{{ID: "k1", Name: "Press", URL: "mailto:press@acme.example"}, {ID: "k2", Name: "Pricing", URL: "https://shop.example/pricing"}},
	})
	if err := db.SaveProgram(ctx, prog); err != nil {
		t.Fatal(err)
	}
	if got := tabIDs(page(tokA)); got != "quickstart,earnings,links,leaderboard,faq,resources,settings" {
		t.Errorf("tabs %s", got)
	}
	d := frag(tokA, "resources")
	if m := text(d, `[data-testid="resource-logo"] [data-testid="resource-meta"]`); m != "PNG · 12.0 KB" {
		t.Errorf("logo meta %q", m)
	}
	if m := text(d, `[data-testid="resource-file"] [data-testid="resource-meta"]`); m != "PDF · 2.0 MB" {
		t.Errorf("file meta %q", m)
	}
	if c, _ := d.Find(`[data-testid="resource-color"]`).Attr("data-copy"); c != "#2563EB" {
		t.Errorf("colour copy %q", c)
	}
	links := d.Find(`[data-testid="resource-link"]`)
	if links.Length() != 2 || links.First().Find(`[data-icon="mail"]`).Length() != 1 || links.Last().Find(`[data-icon="web"]`).Length() != 1 || !strings.Contains(links.First().Text(), "press@acme.example") {
		t.Errorf("links: %s", d.Find(`[data-testid="resources-links"]`).Text())
	}
	if v, _ := links.Last().Find(`[data-copy]`).Attr("data-copy"); v != "https://shop.example/pricing" {
		t.Errorf("link copy %q", v)
	}
	if _, dis := frag(tokA, "quickstart").Find(`[data-testid="quickstart-resources"]`).Attr("disabled"); dis {
		t.Error("resources card disabled with resources")
	}
}
