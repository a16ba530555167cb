package shortlink

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// appCase is one get-final-url.ts input: the target, the click id Dub
// passes (only when it caches it: "" otherwise), via (partner links), the
// request's query, user agent, IP and parse(req)'s shortLink.
type appCase struct {
	name    string
	URL     string `json:"url"`
	ClickID string `json:"clickId"`
	Via     string `json:"via"`
	Query   string `json:"query"`
	UA      string `json:"ua"`
	IP      string `json:"ip"`
	SL      string `json:"shortLink"`
	want    string
}

func (c appCase) destination() destination {
	domain, key, _ := strings.Cut(strings.TrimPrefix(c.SL, "https://"), "/")
	return destination{clickID: c.ClickID, track: c.ClickID != "", key: c.Via, partner: c.Via != "",
		noTrack: strings.Contains("&"+c.Query, "&dub-no-track"), reqQuery: c.Query, ua: c.UA, ip: c.IP, domain: domain, fullKey: key}
}

// appCases: the expected URLs are what Dub's getFinalUrl answers, run under
// Node's WHATWG URL by testdata/get-final-url.mjs (TestDestinationAgreesWithDub).
var appCases = []appCase{
	{name: "AppsFlyer: pid, clickid (and dub_id) on a link with no tracking",
		URL: "https://acme.onelink.me/AbCd?af_xp=custom&deep_link_value=shoes", ClickID: "clk1",
		want: "https://acme.onelink.me/AbCd?af_xp=custom&deep_link_value=shoes&dub_id=clk1&pid=dubinc_int&clickid=clk1"},
	{name: "AppsFlyer partner link: c and af_siteid are the key",
		URL: "https://acme.onelink.me/AbCd", ClickID: "clk1", Via: "jo",
		want: "https://acme.onelink.me/AbCd?via=jo&dub_id=clk1&pid=dubinc_int&clickid=clk1&c=jo&af_siteid=jo"},
	{name: "AppsFlyer: c and af_siteid already set are kept",
		URL: "https://acme.onelink.me/AbCd?c=spring&af_siteid=site9", ClickID: "clk1", Via: "jo",
		want: "https://acme.onelink.me/AbCd?c=spring&af_siteid=site9&via=jo&dub_id=clk1&pid=dubinc_int&clickid=clk1"},
	{name: "AppsFlyer: pid replaced; dub-no-track drops dub_id, not clickid",
		URL: "https://acme.onelink.me/AbCd?pid=other", ClickID: "clk1", Query: "dub-no-track=1&utm_source=tw",
		want: "https://acme.onelink.me/AbCd?pid=dubinc_int&clickid=clk1&utm_source=tw"},
	{name: "AppsFlyer without a click id (an OS target of a plain link)",
		URL:  "https://acme.onelink.me/AbCd",
		want: "https://acme.onelink.me/AbCd?pid=dubinc_int"},
	{name: "AppsFlyer behind userinfo and a port",
		URL: "https://user:pw@acme.onelink.me:8443/x", ClickID: "clk1",
		want: "https://user:pw@acme.onelink.me:8443/x?dub_id=clk1&pid=dubinc_int&clickid=clk1"},
	{name: "Singular partner link: cl, ua, ip, wpcn={via} and wpcl={dub_id} filled",
		URL: "https://acme.sng.link/Bxyz/abcd?_dl=app%3A%2F%2Fhome&wpcn={via}&wpcl={dub_id}", ClickID: "clk1", Via: "jo",
		UA: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X)", IP: "203.0.113.7",
		want: "https://acme.sng.link/Bxyz/abcd?_dl=app%3A%2F%2Fhome&wpcn=jo&wpcl=clk1&via=jo&dub_id=clk1&cl=clk1&ua=Mozilla%2F5.0+%28iPhone%3B+CPU+iPhone+OS+17_1+like+Mac+OS+X%29&ip=203.0.113.7"},
	{name: "Singular: an encoded {via} without a partner empties wpcn; other wpcl kept",
		URL: "https://acme.sng.link/Bxyz/abcd?wpcn=%7Bvia%7D&wpcl=fixed", ClickID: "clk1", UA: "UA x", IP: "2001:db8::1",
		want: "https://acme.sng.link/Bxyz/abcd?wpcn=&wpcl=fixed&dub_id=clk1&cl=clk1&ua=UA+x&ip=2001%3Adb8%3A%3A1"},
	{name: "Singular without a click id: cl and ua empty",
		URL: "https://acme.sng.link/Bxyz/abcd?cl=old", IP: "198.51.100.2",
		want: "https://acme.sng.link/Bxyz/abcd?cl=&ua=&ip=198.51.100.2"},
	{name: "Google Play: referrer carries the short link",
		URL: "https://play.google.com/store/apps/details?id=com.acme.app", SL: "https://acme.link/promo",
		want: "https://play.google.com/store/apps/details?id=com.acme.app&referrer=deepLink%3Dhttps%253A%252F%252Facme.link%252Fpromo"},
	{name: "Google Play partner link: the deepLink keeps the request's query",
		URL: "https://play.google.com/store/apps/details?id=com.acme.app", ClickID: "clk1", Via: "jo", Query: "utm_source=tw&a=b c",
		SL:   "https://acme.link/jo",
		want: "https://play.google.com/store/apps/details?id=com.acme.app&via=jo&dub_id=clk1&referrer=deepLink%3Dhttps%253A%252F%252Facme.link%252Fjo%253Futm_source%253Dtw%2526a%253Db%252Bc&utm_source=tw&a=b+c"},
	{name: "Google Play: an existing referrer is decoded and extended",
		URL:  "https://play.google.com/store/apps/details?id=com.acme.app&referrer=utm_source%3Dgoogle%26utm_medium%3Dcpc",
		SL:   "https://acme.link/promo",
		want: "https://play.google.com/store/apps/details?id=com.acme.app&referrer=utm_source%3Dgoogle%26utm_medium%3Dcpc%26deepLink%3Dhttps%253A%252F%252Facme.link%252Fpromo"},
	{name: "Google Play: a doubly encoded referrer is decoded twice (decodeURIComponent)",
		URL:  "https://play.google.com/store/apps/details?id=com.acme.app&referrer=utm_source%253Dgoogle%2526x%253Da%252Bb",
		SL:   "https://acme.link/promo",
		want: "https://play.google.com/store/apps/details?id=com.acme.app&referrer=utm_source%3Dgoogle%26x%3Da%2Bb%26deepLink%3Dhttps%253A%252F%252Facme.link%252Fpromo"},
	{name: "Google Play: leading '?' of the referrer dropped; the deepLink keeps qr and skip_deeplink_preview",
		URL:   "https://play.google.com/store/apps/details?id=com.acme.app&referrer=%3Fdeeplink%3Dold%26k%3Dv",
		Query: "skip_deeplink_preview=1&qr=1", SL: "https://acme.link/한국어",
		want: "https://play.google.com/store/apps/details?id=com.acme.app&referrer=deeplink%3Dold%26k%3Dv%26deepLink%3Dhttps%253A%252F%252Facme.link%252F%25ED%2595%259C%25EA%25B5%25AD%25EC%2596%25B4%253Fskip_deeplink_preview%253D1%2526qr%253D1"},
	{name: "Google Play: '+' in the referrer becomes a space when re-parsed",
		URL: "https://play.google.com/store/apps/details?id=com.acme.app&referrer=a+b%2Bc", SL: "https://acme.link/promo",
		want: "https://play.google.com/store/apps/details?id=com.acme.app&referrer=a%2Bb%2Bc%3D%26deepLink%3Dhttps%253A%252F%252Facme.link%252Fpromo"},
	{name: "Stripe dub_client_reference_id",
		URL: "https://buy.stripe.com/x?dub_client_reference_id=1", ClickID: "clk1",
		want: "https://buy.stripe.com/x?client_reference_id=dub_id_clk1"},
	{name: "a host only starting like onelink.me is not AppsFlyer", URL: "https://onelink.me.evil.test/x", want: "https://onelink.me.evil.test/x"},
	{name: "no dot before onelink.me: not AppsFlyer", URL: "https://notonelink.me/x", want: "https://notonelink.me/x"},
	{name: "play.google.com as a prefix is not Google Play", URL: "https://play.google.com.evil.test/store?id=1", want: "https://play.google.com.evil.test/store?id=1"},
}

// TestDestinationAppInstall: get-final-url.ts's AppsFlyer, Singular and
// Google Play rewrites (spec/links.md §10.3 steps 4-6).
func TestDestinationAppInstall(t *testing.T) {
	for _, c := range appCases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.destination().build(c.URL); got != c.want {
				t.Errorf("build(%q)\n got %s\nwant %s", c.URL, got, c.want)
			}
		})
	}
}

// TestDestinationAgreesWithDub runs Dub's getFinalUrl (ported verbatim to
// Node in testdata/get-final-url.mjs) on the same cases: the table above is
// Dub's behaviour, not a transcription of ours.
func TestDestinationAgreesWithDub(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	in, err := json.Marshal(appCases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/get-final-url.mjs")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v: %s", err, stderr.String())
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node output %q: %v", out, err)
	}
	for i, c := range appCases {
		if got[i] != c.want {
			t.Errorf("%s: Dub answers\n %s\nthe table says\n %s", c.name, got[i], c.want)
		}
	}
}

// TestDestinationMalformedReferrer: a referrer Dub's decodeURIComponent
// throws on (its redirect fails) is used as it is.
func TestDestinationMalformedReferrer(t *testing.T) {
	d := destination{domain: "acme.link", fullKey: "p"}
	got := d.build("https://play.google.com/store/apps/details?id=x&referrer=a%25ZZ")
	want := "https://play.google.com/store/apps/details?id=x&referrer=a%2525ZZ%3D%26deepLink%3Dhttps%253A%252F%252Facme.link%252Fp"
	if got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

// TestAppKindOf: the host check reads the authority only, case-insensitively.
func TestAppKindOf(t *testing.T) {
	for u, want := range map[string]appKind{
		"https://App.OneLink.ME/x":                     appAppsFlyer,
		"https://acme.sng.link":                        appSingular,
		"HTTPS://PLAY.GOOGLE.COM/store/apps":           appPlay,
		"https://play.google.com:443?x=1":              appPlay,
		"https://example.com/?u=https://x.onelink.me/": appNone,
		"https://example.com/#play.google.com":         appNone,
		"mailto:a@play.google.com":                     appNone,
		"https://[::1]/x":                              appNone,
		"":                                             appNone,
	} {
		if got := appKindOf(u); got != want {
			t.Errorf("appKindOf(%q) = %d, want %d", u, got, want)
		}
	}
}

// TestDestinationPlainAllocationFree: a destination none of the rewrites
// touches costs no allocation (the redirect's common case).
func TestDestinationPlainAllocationFree(t *testing.T) {
	d := destination{clickID: "clk1"}
	if n := testing.AllocsPerRun(100, func() { _ = d.build("https://example.com/landing?utm_source=x") }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = appKindOf("https://www.example.com/landing") }); n != 0 {
		t.Fatalf("appKindOf: %v allocations", n)
	}
}

// TestDecideAppInstall: which click id and short link the rewrites get.
// Dub passes the click id when the link tracks conversions, is a partner's,
// or its url (not the OS target) is an AppsFlyer or Singular link.
func TestDecideAppInstall(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	visit := Visit{Key: "promo", UA: iphoneUA, ClickID: "clk1", IP: "203.0.113.7", Domain: "acme.link", FullKey: "Promo"}
	for _, tt := range []struct {
		name string
		t    Target
		ua   string
		want string
	}{
		{"an AppsFlyer url passes the click id on a plain link",
			Target{URL: "https://acme.onelink.me/AbCd"}, chromeUA,
			"https://acme.onelink.me/AbCd?dub_id=clk1&pid=dubinc_int&clickid=clk1"},
		{"a Singular iOS target of a plain link: no click id",
			Target{URL: "https://example.com/", IOS: "https://acme.sng.link/B/a"}, iphoneUA,
			"https://acme.sng.link/B/a?cl=&ua=" + url.QueryEscape(iphoneUA) + "&ip=203.0.113.7"},
		{"a Singular iOS target of a Singular link: the click id",
			Target{URL: "https://acme.sng.link/B/web", IOS: "https://acme.sng.link/B/a?wpcl={dub_id}"}, iphoneUA,
			"https://acme.sng.link/B/a?wpcl=clk1&dub_id=clk1&cl=clk1&ua=" + url.QueryEscape(iphoneUA) + "&ip=203.0.113.7"},
		{"Google Play on a desktop: the short link as requested",
			Target{URL: "https://play.google.com/store/apps/details?id=com.acme"}, chromeUA,
			"https://play.google.com/store/apps/details?id=com.acme&referrer=deepLink%3Dhttps%253A%252F%252Facme.link%252FPromo"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tg := tt.t
			tg.Key = "promo"
			v := visit
			v.UA = tt.ua
			d := Decide(&Resolved{Link: &tg}, v, now)
			if d.Action != ActRedirect || d.URL != tt.want {
				t.Fatalf("action %d url\n %s\nwant\n %s", d.Action, d.URL, tt.want)
			}
		})
	}
}
