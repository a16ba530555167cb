package conversions_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestEnrollPartner(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		f.reward(&models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: i64(1500)})
		f.grp.DefaultLinks = models.Some([]models.DefaultLink{{Domain: "acme.link", URL: "https://acme.example/pricing"}})
		f.grp.UTMTemplate = models.Some(map[string]string{"utm_source": "partners", "utm_medium": "referral"})
		if err := db.SaveGroup(f.ctx, f.grp); err != nil {
			t.Fatal(err)
		}
		ep, err := f.svc.EnrollPartner(f.ctx, f.ws, conversions.EnrollInput{Email: "Ann@Example.com", Name: str("Ann Lee"), TenantID: "t_1", Country: str("DE")})
		if err != nil {
			t.Fatal(err)
		}
		e, p := ep.Enrollment, ep.Partner
		if !strings.HasPrefix(p.ID, "pn_") || !strings.HasPrefix(e.ID, "pge_") || p.Email != "Ann@Example.com" || p.Name != "Ann Lee" ||
			e.Status != models.EnrollmentApproved || *e.GroupID != f.grp.ID || *e.TenantID != "t_1" || e.SaleRewardID == nil || *e.SaleRewardID != *f.grp.SaleRewardID {
			t.Fatalf("enrolled %+v %+v", p, e)
		}
		if !regexp.MustCompile(`^ann-lee-[a-z0-9]{4}$`).MatchString(*p.Username) || p.NetworkStatus != "draft" {
			t.Errorf("username %q status %q", *p.Username, p.NetworkStatus)
		}
		if len(ep.Links) != 1 {
			t.Fatalf("%d default links, want 1", len(ep.Links))
		}
		l := ep.Links[0]
		if l.Key != "ann-lee" || l.Domain != "acme.link" || !l.TrackConversion || *l.PartnerID != p.ID || *l.ProgramID != f.prog.ID ||
			*l.TenantID != "t_1" || *l.UTMSource != "partners" || !strings.Contains(l.URL, "utm_medium=referral") {
			t.Errorf("default link %+v url %s", l, l.URL)
		}

		for _, tc := range []struct {
			name    string
			in      conversions.EnrollInput
			code    apierr.Code
			msg     string
			partner string // expected partner email
			tenant  string
		}{
			{name: "same email: unchanged", in: conversions.EnrollInput{Email: "ann@example.com", Name: str("Other Name")}, partner: "Ann@Example.com", tenant: "t_1"},
			{name: "tenant lookup wins over email", in: conversions.EnrollInput{Email: "bob@example.com", TenantID: "t_1"}, partner: "Ann@Example.com", tenant: "t_1"},
			{name: "new tenant replaces the old", in: conversions.EnrollInput{Email: "ann@example.com", TenantID: "t_2"}, partner: "Ann@Example.com", tenant: "t_2"},
			{name: "new partner", in: conversions.EnrollInput{Email: "cy@example.com", TenantID: "t_3"}, partner: "cy@example.com", tenant: "t_3"},
			// §3.3 caveat: the lookup is "tenant OR email", and the tenant wins.
			{name: "tenant of another partner returns that partner", in: conversions.EnrollInput{Email: "ann@example.com", TenantID: "t_3"}, partner: "cy@example.com", tenant: "t_3"},
			{name: "unknown group", in: conversions.EnrollInput{Email: "dee@example.com", GroupID: "vip"}, code: apierr.NotFound, msg: `Group "vip" not found.`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ep, err := f.svc.EnrollPartner(f.ctx, f.ws, tc.in)
				if tc.code != "" {
					wantErr(t, err, tc.code, tc.msg)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if ep.Partner.Email != tc.partner || ep.Enrollment.TenantID == nil || *ep.Enrollment.TenantID != tc.tenant {
					t.Errorf("got %s tenant %v, want %s %s", ep.Partner.Email, ep.Enrollment.TenantID, tc.partner, tc.tenant)
				}
				if ep.Partner.Email == "ann@example.com" && ep.Partner.Name != "Ann Lee" {
					t.Errorf("an existing partner's name changed to %q", ep.Partner.Name)
				}
			})
		}
		var n int64
		db.Model(&models.Enrollment{}).Where("workspace_id = ?", f.ws.ID).Count(&n)
		if n != 2 {
			t.Errorf("%d enrollments, want 2 (ann, cy)", n)
		}
		// The same email in another workspace is another partner.
		other := newFixture(t, db, "other")
		oep := other.partner("ann@example.com")
		if oep.Partner.ID == p.ID {
			t.Error("partners are shared across workspaces")
		}
	})
}

func TestDefaultLinkKeyTaken(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		f.grp.DefaultLinks = models.Some([]models.DefaultLink{{Domain: "acme.link", URL: "https://acme.example/"}})
		if err := db.SaveGroup(f.ctx, f.grp); err != nil {
			t.Fatal(err)
		}
		a, err := f.svc.EnrollPartner(f.ctx, f.ws, conversions.EnrollInput{Email: "sam@one.example", Username: str("sam")})
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.svc.EnrollPartner(f.ctx, f.ws, conversions.EnrollInput{Email: "sam@two.example", Username: str("sam")})
		if err != nil {
			t.Fatal(err)
		}
		if a.Links[0].Key != "sam" || !regexp.MustCompile(`^sam-[a-z0-9]{4}$`).MatchString(b.Links[0].Key) {
			t.Errorf("keys %q and %q", a.Links[0].Key, b.Links[0].Key)
		}
	})
}

func TestEmbedToken(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		ann, err := f.svc.EnrollPartner(f.ctx, f.ws, conversions.EnrollInput{Email: "ann@example.com", TenantID: "t_ann"})
		if err != nil {
			t.Fatal(err)
		}
		bob := f.partner("bob@example.com")
		tokenRe := regexp.MustCompile(`^dub_embed_[0-9A-Z]{25}$`)
		for _, tc := range []struct {
			name    string
			in      conversions.EmbedInput
			partner string // expected partner id; "" = new partner by email
			email   string
			code    apierr.Code
			msg     string
		}{
			{name: "by partner id", in: conversions.EmbedInput{PartnerID: bob.Partner.ID}, partner: bob.Partner.ID},
			{name: "by tenant", in: conversions.EmbedInput{TenantID: "t_ann"}, partner: ann.Partner.ID},
			{name: "tenant wins over partner email", in: conversions.EmbedInput{TenantID: "t_ann", Partner: &conversions.EnrollInput{Email: "bob@example.com"}}, partner: ann.Partner.ID},
			{name: "enrolled partner by email keeps its tenant", in: conversions.EmbedInput{Partner: &conversions.EnrollInput{Email: "bob@example.com", TenantID: "t_new"}}, partner: bob.Partner.ID},
			{name: "new partner is created and enrolled", in: conversions.EmbedInput{Partner: &conversions.EnrollInput{Email: "new@example.com", TenantID: "t_x"}}, email: "new@example.com"},
			{name: "unknown tenant", in: conversions.EmbedInput{TenantID: "nope"}, code: apierr.NotFound, msg: "The partner is not enrolled in this program."},
			{name: "unknown partner id", in: conversions.EmbedInput{PartnerID: "pn_nope"}, code: apierr.NotFound, msg: "The partner is not enrolled in this program."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				token, expires, err := f.svc.EmbedToken(f.ctx, f.ws, tc.in)
				if tc.code != "" {
					wantErr(t, err, tc.code, tc.msg)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !tokenRe.MatchString(token) || !expires.Equal(t0.Add(3*time.Hour)) /* spec §5: 10 800 s */ {
					t.Errorf("token %q expires %v", token, expires)
				}
				tok, err := db.EmbedTokenByToken(f.ctx, token, t0)
				if err != nil {
					t.Fatal(err)
				}
				if tok.TokenHash == token || tok.WorkspaceID != f.ws.ID || tok.ProgramID != f.prog.ID {
					t.Errorf("stored token %+v", tok)
				}
				want := tc.partner
				if want == "" {
					p, err := db.PartnerByEmail(f.ctx, f.ws.ID, tc.email)
					if err != nil {
						t.Fatal(err)
					}
					want = p.ID
				}
				if tok.PartnerID != want {
					t.Errorf("token for partner %s, want %s", tok.PartnerID, want)
				}
			})
		}
		e, _ := db.EnrollmentByPartner(f.ctx, f.ws.ID, f.prog.ID, bob.Partner.ID)
		if e.TenantID != nil {
			t.Errorf("bob's tenant changed to %v", *e.TenantID)
		}
		// Every call mints a new token; both work until they expire.
		a, _, _ := f.svc.EmbedToken(f.ctx, f.ws, conversions.EmbedInput{PartnerID: bob.Partner.ID})
		b, _, _ := f.svc.EmbedToken(f.ctx, f.ws, conversions.EmbedInput{PartnerID: bob.Partner.ID})
		if a == b {
			t.Fatal("same token twice")
		}
		for _, tok := range []string{a, b} {
			if _, err := db.EmbedTokenByToken(f.ctx, tok, t0.Add(models.EmbedTokenTTL-time.Second)); err != nil {
				t.Errorf("token invalid before expiry: %v", err)
			}
			if _, err := db.EmbedTokenByToken(f.ctx, tok, t0.Add(models.EmbedTokenTTL)); !models.IsNotFound(err) {
				t.Errorf("token valid at expiry: %v", err)
			}
		}
		var plain int64
		db.Model(&models.EmbedToken{}).Where("token_hash = ?", a).Count(&plain)
		if plain != 0 {
			t.Error("plaintext token stored")
		}
		// Another workspace's key cannot mint a token for this partner.
		other := newFixture(t, db, "other")
		_, _, err = other.svc.EmbedToken(other.ctx, other.ws, conversions.EmbedInput{PartnerID: bob.Partner.ID})
		wantErr(t, err, apierr.NotFound, "not enrolled")
	})
}

func TestPartnerLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db, "acme")
		pn, err := f.svc.EnrollPartner(f.ctx, f.ws, conversions.EnrollInput{Email: "ann@example.com", TenantID: "t_ann"})
		if err != nil {
			t.Fatal(err)
		}
		sel := conversions.PartnerSelector{TenantID: "t_ann"}
		_, err = f.svc.CreatePartnerLink(f.ctx, f.ws, conversions.PartnerLinkInput{PartnerSelector: sel})
		wantErr(t, err, apierr.BadRequest, "You need to set a domain and url for this program")
		f.prog.Domain, f.prog.URL = str("acme.link"), str("https://acme.example/")
		if err := db.SaveProgram(f.ctx, f.prog); err != nil {
			t.Fatal(err)
		}
		l, err := f.svc.CreatePartnerLink(f.ctx, f.ws, conversions.PartnerLinkInput{PartnerSelector: sel, Key: "ann"})
		if err != nil {
			t.Fatal(err)
		}
		if l.Domain != "acme.link" || l.URL != "https://acme.example/" || *l.PartnerID != pn.Partner.ID || *l.TenantID != "t_ann" || !l.TrackConversion {
			t.Errorf("link %+v", l)
		}
		for _, tc := range []struct {
			name string
			in   conversions.PartnerLinkInput
			code apierr.Code
			msg  string
		}{
			{"no selector", conversions.PartnerLinkInput{}, apierr.BadRequest, "Either `partnerId` or `tenantId` must be provided."},
			{"unknown partner", conversions.PartnerLinkInput{PartnerSelector: conversions.PartnerSelector{PartnerID: "pn_x"}}, apierr.NotFound, "Partner not found."},
			{"no additional links", conversions.PartnerLinkInput{PartnerSelector: sel, URL: "https://acme.example/x"}, apierr.BadRequest, "You cannot create additional links for this program."},
			{"key taken", conversions.PartnerLinkInput{PartnerSelector: sel, Key: "ann"}, apierr.Conflict, "Duplicate key"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := f.svc.CreatePartnerLink(f.ctx, f.ws, tc.in)
				wantErr(t, err, tc.code, tc.msg)
			})
		}
		f.grp.AdditionalLinks = models.Some([]models.AdditionalLink{{Domain: "acme.example", ValidationMode: "domain"}, {Domain: "docs.example", Path: "/start", ValidationMode: "exact"}})
		if err := db.SaveGroup(f.ctx, f.grp); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			url string
			msg string
		}{
			{"https://acme.example/blog?x=1", ""},
			{"https://docs.example/start", ""},
			{"https://docs.example/other", "The provided URL does not match the URL configured for this program."},
			{"https://evil.example/", "The provided URL's domain (evil.example) does not match the program's link domains."},
		} {
			_, err := f.svc.CreatePartnerLink(f.ctx, f.ws, conversions.PartnerLinkInput{PartnerSelector: sel, URL: tc.url})
			if tc.msg == "" && err != nil {
				t.Errorf("%s: %v", tc.url, err)
			}
			if tc.msg != "" {
				wantErr(t, err, apierr.BadRequest, tc.msg)
			}
		}
		// Upsert: the same URL updates the partner's link, a new one creates.
		up, err := f.svc.UpsertPartnerLink(f.ctx, f.ws, conversions.PartnerLinkInput{PartnerSelector: sel, URL: "https://acme.example/blog?x=1",
			LinkProps: linkProps(t, `{"title":"Blog","url":"https://ignored.example/"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if up.Title == nil || *up.Title != "Blog" {
			t.Errorf("upserted %+v", up)
		}
		links, _ := db.PartnerLinks(f.ctx, f.ws.ID, f.prog.ID, pn.Partner.ID)
		if len(links) != 3 {
			t.Fatalf("%d links after upsert of an existing URL, want 3", len(links))
		}
		created, err := f.svc.UpsertPartnerLink(f.ctx, f.ws, conversions.PartnerLinkInput{PartnerSelector: sel, URL: "https://acme.example/new"})
		if err != nil || created.URL != "https://acme.example/new" {
			t.Fatalf("upsert create: %+v %v", created, err)
		}
		// Another partner with the same URL gets its own link.
		bob := f.partner("bob@example.com")
		bl, err := f.svc.UpsertPartnerLink(f.ctx, f.ws, conversions.PartnerLinkInput{PartnerSelector: conversions.PartnerSelector{PartnerID: bob.Partner.ID}, URL: "https://acme.example/new"})
		if err != nil || bl.ID == created.ID || *bl.PartnerID != bob.Partner.ID {
			t.Fatalf("other partner's upsert matched ann's link: %+v %v", bl, err)
		}
	})
}

func linkProps(t *testing.T, js string) *conversions.LinkProps {
	t.Helper()
	in, err := links.ParseLinkProps(json.RawMessage(js), "linkProps")
	if err != nil {
		t.Fatal(err)
	}
	return &conversions.LinkProps{Input: in}
}
