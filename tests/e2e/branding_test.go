package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/mail/smtptest"
)

// TestGroupBranding: `relink program group set --brand-color --logo` on the
// built binary, then the program's embed (token) and portal (signed in by the
// mailed link) dashboards carry the colour as --brand and show the logo.
func TestGroupBranding(t *testing.T) {
	sink := smtptest.Start(t)
	env, app, apiURL := origins(t, map[string]string{"RELINK_SMTP_URL": "smtp://" + sink.Addr()})
	var ws struct {
		APIKey string `json:"apiKey"`
	}
	// Embed tokens are an Advanced feature (as Dub's).
	if err := json.Unmarshal([]byte(run(t, env, "workspace", "create", "--name", "acme", "--slug", "acme", "--plan", "advanced")), &ws); err != nil {
		t.Fatal(err)
	}
	key := ws.APIKey
	run(t, env, "program", "set", "--workspace", "acme", "--name", "Acme Partners")
	out := run(t, env, "program", "group", "set", "--workspace", "acme", "--brand-color", "#ff5500", "--logo", "https://cdn.acme.example/logo.png")
	var prog struct {
		Groups []struct {
			BrandColor *string `json:"brandColor"`
			Logo       *string `json:"logo"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &prog); err != nil || len(prog.Groups) != 1 || prog.Groups[0].BrandColor == nil || *prog.Groups[0].BrandColor != "#ff5500" {
		t.Fatalf("group set: %s", out)
	}
	start(t, "serve", env)
	if st := api(t, apiURL, "POST", "/partners", key, map[string]any{"email": "ann@partners.test", "name": "Ann", "tenantId": "ann"}, nil); st != 201 {
		t.Fatalf("POST /partners: %d", st)
	}
	var tok struct {
		PublicToken string `json:"publicToken"`
	}
	if st := api(t, apiURL, "POST", "/tokens/embed/referrals", key, map[string]any{"tenantId": "ann"}, &tok); st != 201 {
		t.Fatalf("embed token: %d", st)
	}
	branded := func(where, body string) {
		t.Helper()
		if !regexp.MustCompile(`id="embed-root"[^>]*style="--brand: #ff5500;`).MatchString(body) ||
			!strings.Contains(body, `src="https://cdn.acme.example/logo.png"`) {
			t.Errorf("%s: no brand colour or logo:\n%s", where, body)
		}
	}
	branded("embed", get(t, noFollow, app+"/embed/referrals?token="+tok.PublicToken, "", nil).Body)

	c := portalClient(t)
	portalSignIn(t, c, app, sink, "ann@partners.test", 0)
	list := get(t, c, app+"/partners", "", nil)
	id := regexp.MustCompile(`data-enrollment="([^"]+)"`).FindStringSubmatch(list.Body)
	if id == nil {
		t.Fatalf("no program listed: %s", list.Body)
	}
	branded("portal", get(t, c, app+"/partners/programs/"+id[1], "", nil).Body)
}
