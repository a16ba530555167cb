package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/mail/smtptest"
)

var (
	signInLink = regexp.MustCompile(`http://\S+/partners/login/[A-Za-z0-9_-]+`)
	csrfField  = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)
)

// portalClient is a browser-like client: cookies, no redirects followed.
func portalClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func postForm(t *testing.T, c *http.Client, u string, form url.Values) answer {
	t.Helper()
	res, err := c.PostForm(u, form)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header.Get("Location"), res.Header, string(b)}
}

func csrfIn(t *testing.T, body string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF field in %s", body)
	}
	return m[1]
}

// portalSignIn asks for a link for email, takes it from the sink and uses it.
func portalSignIn(t *testing.T, c *http.Client, app string, sink *smtptest.Sink, email string, before int) {
	t.Helper()
	home := get(t, c, app+"/partners", "", nil)
	if a := postForm(t, c, app+"/partners/login", url.Values{"email": {email}, "_csrf": {csrfIn(t, home.Body)}}); a.Status != 200 || !strings.Contains(a.Body, "portal-sent") {
		t.Fatalf("ask for a link: %d", a.Status)
	}
	var link string
	eventually(t, 10*time.Second, func() string {
		if ms := sink.To(email); len(ms) > before {
			link = signInLink.FindString(strings.ReplaceAll(ms[len(ms)-1], "=\n", ""))
			return ""
		}
		return "no sign-in mail for " + email
	})
	useLink(t, c, app, link)
}

// useLink opens a sign-in link and presses its button.
func useLink(t *testing.T, c *http.Client, app, link string) {
	t.Helper()
	path := link[strings.Index(link, "/partners/"):]
	confirm := get(t, c, app+path, "", nil)
	if confirm.Status != 200 {
		t.Fatalf("open the link %s: %d", path, confirm.Status)
	}
	if a := postForm(t, c, app+path, url.Values{"_csrf": {csrfIn(t, confirm.Body)}}); a.Status != 303 || a.Location != "/partners" {
		t.Fatalf("use the link: %d %q", a.Status, a.Location)
	}
}

// TestPartnerPortal: `relink serve` with RELINK_SMTP_URL pointing at a local
// SMTP sink. A partner enrolled in two workspaces with one address signs in
// with the mailed link, sees both programs, opens each dashboard (only their
// own links), cannot open another partner's, and signs out on the server.
// An applicant approved through the API gets the program's name and a
// sign-in link by mail and lands in the portal; a rejected one gets a
// notice.
func TestPartnerPortal(t *testing.T) {
	sink := smtptest.Start(t)
	env, app, apiURL := origins(t, map[string]string{"RELINK_SMTP_URL": "smtp://" + sink.Addr(), "RELINK_MAIL_FROM": "Relink <relink@relink.test>"})
	acme, globex := workspace(t, env, "acme"), workspace(t, env, "globex")
	out := run(t, env, "program", "set", "--workspace", "acme", "--name", "Acme Partners", "--applications", "open")
	var prog struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(out), &prog); err != nil || prog.Name != "Acme Partners" {
		t.Fatalf("program set: %s", out)
	}
	run(t, env, "program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage", "--amount", "20")
	start(t, "serve", env)
	for _, p := range []struct{ key, email, name string }{
		{acme, "Ann@Partners.test", "Ann"}, {globex, "ann@partners.test", "Ann G"}, {acme, "bob@partners.test", "Bob"},
	} {
		if st := api(t, apiURL, "POST", "/partners", p.key, map[string]any{"email": p.email, "name": p.name}, nil); st != 201 {
			t.Fatalf("POST /partners %s: %d", p.email, st)
		}
	}

	c := portalClient(t)
	portalSignIn(t, c, app, sink, "ann@partners.test", 0)
	list := get(t, c, app+"/partners", "", nil)
	ids := regexp.MustCompile(`data-enrollment="([^"]+)"`).FindAllStringSubmatch(list.Body, -1)
	if len(ids) != 2 || !strings.Contains(list.Body, "Acme Partners") {
		t.Fatalf("programs listed: %d, want acme's and globex's", len(ids))
	}
	for _, m := range ids {
		base := app + "/partners/programs/" + m[1]
		if a := get(t, c, base, "", nil); a.Status != 200 || !strings.Contains(a.Body, `hx-get="/partners/programs/`+m[1]+`/fragments/overview"`) {
			t.Errorf("%s: %d", base, a.Status)
		}
		if a := get(t, c, base+"/fragments/overview", "", map[string]string{"HX-Request": "true"}); a.Status != 200 || !strings.Contains(a.Body, `data-testid="overview"`) {
			t.Errorf("%s overview: %d", base, a.Status)
		}
	}

	// The partner-profile API on the app origin takes the same session (its
	// cookie's second path): Ann's links only, none yet.
	progID := regexp.MustCompile(`data-testid="portal-program-id">(prog_[^<]+)<`).FindStringSubmatch(list.Body)
	if progID == nil {
		t.Fatal("no program id on the list")
	}
	if a := get(t, c, app+"/api/partner-profile/programs/"+progID[1]+"/analytics?groupBy=count", "", nil); a.Status != 200 || a.Body != "[]" {
		t.Errorf("partner-profile analytics with the session: %d %s", a.Status, a.Body)
	}
	if a := get(t, noFollow, app+"/api/partner-profile/programs/"+progID[1]+"/analytics", "", nil); a.Status != 401 {
		t.Errorf("partner-profile analytics signed out: %d", a.Status)
	}

	// Bob's enrollment is not Ann's to open.
	bob := portalClient(t)
	portalSignIn(t, bob, app, sink, "bob@partners.test", 0)
	bobID := regexp.MustCompile(`data-enrollment="([^"]+)"`).FindStringSubmatch(get(t, bob, app+"/partners", "", nil).Body)[1]
	if a := get(t, c, app+"/partners/programs/"+bobID+"/fragments/overview", "", map[string]string{"HX-Request": "true"}); a.Status != 404 {
		t.Errorf("Ann opens Bob's dashboard: %d", a.Status)
	}

	// Sign-out ends the session on the server.
	page := get(t, c, app+"/partners", "", nil)
	u, _ := url.Parse(app + "/partners")
	cookies := c.Jar.Cookies(u)
	if a := postForm(t, c, app+"/partners/logout", url.Values{"_csrf": {csrfIn(t, page.Body)}}); a.Status != 303 {
		t.Fatalf("sign out: %d", a.Status)
	}
	stale := portalClient(t)
	stale.Jar.SetCookies(u, cookies)
	if a := get(t, stale, app+"/partners/programs/"+ids[0][1], "", nil); a.Status != 303 || a.Location != "/partners" {
		t.Errorf("the signed-out cookie: %d %q", a.Status, a.Location)
	}

	portalApplications(t, app, apiURL, acme, "acme", sink) // a program's slug is its workspace's
}

// portalApplications: apply on /apply/<slug>, approve or reject through the
// API, read the mail.
func portalApplications(t *testing.T, app, apiURL, key, slug string, sink *smtptest.Sink) {
	t.Helper()
	for _, who := range []string{"cleo", "dan"} {
		c := portalClient(t)
		form := get(t, c, app+"/apply/"+slug, "", nil)
		if !strings.Contains(form.Body, `data-testid="apply-reward">Earn 20% per sale`) || !strings.Contains(form.Body, `<option value="FR">France</option>`) {
			t.Errorf("the application page shows no reward or no country choice: %s", form.Body)
		}
		a := postForm(t, c, app+"/apply/"+slug, url.Values{"_csrf": {csrfIn(t, form.Body)}, "name": {who}, "email": {who + "@partners.test"},
			"country": {"US"}, "website": {"https://" + who + ".example"}, "promotion": {"My blog"}})
		if a.Status >= 400 {
			t.Fatalf("apply as %s: %d %s", who, a.Status, a.Body)
		}
	}
	var apps []struct {
		Partner struct {
			ID    string `json:"id"`
			Email string `json:"email"`
		} `json:"partner"`
	}
	if st := api(t, apiURL, "GET", "/partners/applications", key, nil, &apps); st != 200 || len(apps) != 2 {
		t.Fatalf("GET /partners/applications: %d, %d applications", st, len(apps))
	}
	for _, ap := range apps {
		op := map[bool]string{true: "approve", false: "reject"}[ap.Partner.Email == "cleo@partners.test"]
		body := map[string]any{"partnerId": ap.Partner.ID}
		if op == "reject" {
			body["rejectionReason"] = "notTheRightFit"
		}
		if st := api(t, apiURL, "POST", "/partners/applications/"+op, key, body, nil); st != 200 {
			t.Fatalf("%s %s: %d", op, ap.Partner.Email, st)
		}
	}
	var approved string
	eventually(t, 10*time.Second, func() string {
		if ms := sink.To("cleo@partners.test"); len(ms) == 1 {
			approved = strings.ReplaceAll(ms[0], "=\n", "")
			return ""
		}
		return "no approval mail"
	})
	if !strings.Contains(approved, "Acme Partners") || !signInLink.MatchString(approved) {
		t.Errorf("approval mail: %s", approved)
	}
	c := portalClient(t)
	useLink(t, c, app, signInLink.FindString(approved))
	if a := get(t, c, app+"/partners", "", nil); !strings.Contains(a.Body, "Acme Partners") || !strings.Contains(a.Body, "Approved") {
		t.Errorf("the approved applicant's portal: %s", a.Body)
	}
	rejected := sink.To("dan@partners.test")
	if len(rejected) != 1 || signInLink.MatchString(rejected[0]) || !strings.Contains(rejected[0], "Acme Partners") {
		t.Errorf("rejection mail: %v", rejected)
	}
}
