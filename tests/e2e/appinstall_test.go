package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestAppInstallDestinations: `relink serve` as built rewrites app-install
// destinations as Dub's get-final-url.ts does (spec/links.md §10.3 steps
// 4-6): an AppsFlyer link gets pid=dubinc_int and the click id (the one in
// the dub_id cookie) even without conversion tracking, a partner's gets its
// key as c and af_siteid, a Singular iOS target gets cl, ua and ip, and a
// Google Play listing gets the short link (with the request's query) in its
// referrer, on a desktop and after an Android visitor's interstitial.
func TestAppInstallDestinations(t *testing.T) {
	env, app, apiURL := origins(t, nil)
	key := workspace(t, env, "acme")
	run(t, env, "program", "set", "--workspace", "acme", "--name", "Acme Partners",
		"--domain", "s.relink.test", "--url", "https://acme.onelink.me/Part")
	start(t, "serve", env)
	const short = "s.relink.test"
	for _, l := range []map[string]any{
		{"domain": short, "key": "af", "url": "https://acme.onelink.me/AbCd?af_xp=custom"},
		{"domain": short, "key": "Play", "url": "https://play.google.com/store/apps/details?id=com.acme.app&referrer=utm_source%3Dgoogle"},
		{"domain": short, "key": "mob", "url": "https://acme.sng.link/Bxyz/web", "ios": "https://acme.sng.link/Bxyz/ios?wpcl={dub_id}",
			"android": "https://play.google.com/store/apps/details?id=com.acme.app"},
	} {
		if st := api(t, apiURL, "POST", "/links", key, l, nil); st != 200 {
			t.Fatalf("POST /links %v: %d", l, st)
		}
	}
	clickID := func(a answer, k string) string {
		for _, c := range (&http.Response{Header: a.Header}).Cookies() {
			if c.Name == "dub_id_"+short+"_"+k {
				return c.Value
			}
		}
		t.Fatalf("no dub_id cookie for %s: %v", k, a.Header["Set-Cookie"])
		return ""
	}

	a := get(t, noFollow, app+"/af", short, nil)
	id := clickID(a, "af")
	if want := "https://acme.onelink.me/AbCd?af_xp=custom&dub_id=" + id + "&pid=dubinc_int&clickid=" + id; a.Status != 302 || a.Location != want {
		t.Errorf("AppsFlyer: %d %s, want %s", a.Status, a.Location, want)
	}

	a = get(t, noFollow, app+"/Play?utm_source=tw", short, nil)
	if want := "https://play.google.com/store/apps/details?id=com.acme.app&referrer=utm_source%3Dgoogle%26deepLink%3Dhttps%253A%252F%252Fs.relink.test%252FPlay%253Futm_source%253Dtw&utm_source=tw"; a.Status != 302 || a.Location != want {
		t.Errorf("Google Play: %d %s, want %s", a.Status, a.Location, want)
	}

	const iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
	a = get(t, noFollow, app+"/mob", short, map[string]string{"User-Agent": iphone})
	id = clickID(a, "mob")
	if want := "https://acme.sng.link/Bxyz/ios?wpcl=" + id + "&dub_id=" + id + "&cl=" + id + "&ua=" + url.QueryEscape(iphone) + "&ip=127.0.0.1"; a.Status != 302 || a.Location != want {
		t.Errorf("Singular iOS target: %d %s, want %s", a.Status, a.Location, want)
	}

	// An Android visitor goes through the interstitial first; its button
	// comes back with skip_deeplink_preview=1, which the referrer keeps.
	const android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
	a = get(t, noFollow, app+"/mob", short, map[string]string{"User-Agent": android})
	if a.Status != 307 || !strings.Contains(a.Location, "/deeplink/"+short+"/mob") {
		t.Fatalf("Android visitor: %d %s, want the interstitial", a.Status, a.Location)
	}
	a = get(t, noFollow, app+"/mob?skip_deeplink_preview=1", short, map[string]string{"User-Agent": android})
	id = clickID(a, "mob")
	if want := "https://play.google.com/store/apps/details?id=com.acme.app&dub_id=" + id +
		"&referrer=deepLink%3Dhttps%253A%252F%252Fs.relink.test%252Fmob%253Fskip_deeplink_preview%253D1"; a.Status != 302 || a.Location != want {
		t.Errorf("Google Play Android target: %d %s, want %s", a.Status, a.Location, want)
	}

	// A partner's default link (the program's AppsFlyer URL): via, c and
	// af_siteid are the partner's key.
	var p struct {
		Links []struct {
			Key string `json:"key"`
		} `json:"links"`
	}
	if st := api(t, apiURL, "POST", "/partners", key, map[string]any{"email": "jo@partners.test", "name": "Jo", "username": "jo"}, &p); st != 201 || len(p.Links) != 1 {
		t.Fatalf("POST /partners: %d, links %v", st, p.Links)
	}
	k := p.Links[0].Key
	a = get(t, noFollow, app+"/"+k, short, nil)
	id = clickID(a, k)
	if want := "https://acme.onelink.me/Part?via=" + k + "&dub_id=" + id + "&pid=dubinc_int&clickid=" + id + "&c=" + k + "&af_siteid=" + k; a.Status != 302 || a.Location != want {
		t.Errorf("partner AppsFlyer link: %d %s, want %s", a.Status, a.Location, want)
	}
}
