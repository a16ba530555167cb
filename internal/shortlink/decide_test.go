package shortlink

import (
	"testing"
	"time"

	"github.com/relinkhq/relink/models"
)

const (
	chromeUA  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	iphoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1"
	androidUA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
	slackUA   = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
)

// TestDecide has one row (or more) per redirect rule of spec/links.md §10.2.
func TestDecide(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	link := func(mod func(*Target)) *Resolved {
		tg := &Target{ID: "link_1", Domain: "acme.link", Key: "promo", URL: "https://example.com/p"}
		if mod != nil {
			mod(tg)
		}
		return &Resolved{Link: tg}
	}
	visit := func(mod func(*Visit)) Visit {
		v := Visit{Key: "promo", UA: chromeUA, ClickID: "clk1", Country: func() string { return "FR" }}
		if mod != nil {
			mod(&v)
		}
		return v
	}
	tests := []struct {
		name   string
		res    *Resolved
		v      Visit
		rule   int
		action Action
		status int
		url    string
		record bool
	}{
		{"#1 .well-known probe", nil, visit(func(v *Visit) { v.Key = ".well-known/x" }), 1, ActProbe, 302, "/?dub-no-track=1", false},
		{"#1 php probe, even with a link", link(nil), visit(func(v *Visit) { v.Key = "wp-login.php" }), 1, ActProbe, 302, "/?dub-no-track=1", false},
		{"#2 no link", &Resolved{}, visit(nil), 2, ActNotFound, 404, "", false},
		{"#2 no link, nil entry", nil, visit(nil), 2, ActNotFound, 404, "", false},
		{"#2 domain notFoundUrl", &Resolved{DomainNotFoundURL: "https://home.test/"}, visit(nil), 2, ActNotFound, 307, "https://home.test/", false},
		{"#3 inspect", link(nil), visit(func(v *Visit) { v.Inspect = true }), 3, ActInspect, 200, "", false},
		{"#3 inspect of a password link asks the password", link(func(t *Target) { t.Password = "s" }), visit(func(v *Visit) { v.Inspect = true }), 4, ActPassword, 200, "", false},
		{"#4 password missing", link(func(t *Target) { t.Password = "s3cret" }), visit(nil), 4, ActPassword, 200, "", false},
		{"#4 password wrong (form)", link(func(t *Target) { t.Password = "s3cret" }), visit(func(v *Visit) { v.Password, v.PasswordVia = "nope", ViaForm }), 4, ActPassword, 401, "", false},
		{"#4 password wrong (stale cookie) asks again", link(func(t *Target) { t.Password = "s3cret" }), visit(func(v *Visit) { v.Password, v.PasswordVia = "old", ViaCookie }), 4, ActPassword, 200, "", false},
		{"#4 correct ?pw= is not forwarded", link(func(t *Target) { t.Password = "s3cret" }), visit(func(v *Visit) { v.Password, v.PasswordVia, v.Query = "s3cret", ViaQuery, "pw=s3cret&a=1" }), 15, ActRedirect, 302, "https://example.com/p?a=1", true},
		{"#6 disabled", &Resolved{Disabled: true}, visit(nil), 6, ActNotFound, 404, "", false},
		{"#6 disabled with notFoundUrl", &Resolved{Disabled: true, DomainNotFoundURL: "https://home.test/"}, visit(nil), 6, ActNotFound, 307, "https://home.test/", false},
		{"#7 expired, link expiredUrl", link(func(t *Target) { t.ExpiresAt, t.ExpiredURL = now, "https://gone.test/" }), visit(nil), 7, ActExpired, 302, "https://gone.test/", false},
		{"#7 expired, domain expiredUrl", func() *Resolved {
			r := link(func(t *Target) { t.ExpiresAt = now.Add(-time.Hour) })
			r.DomainExpiredURL = "https://dgone.test/"
			return r
		}(), visit(nil), 7, ActExpired, 307, "https://dgone.test/", false},
		{"#7 expired, page", link(func(t *Target) { t.ExpiresAt = now.Add(-time.Second) }), visit(nil), 7, ActExpired, 410, "", false},
		{"not expired a second later", link(func(t *Target) { t.ExpiresAt = now.Add(time.Second) }), visit(nil), 15, ActRedirect, 302, "https://example.com/p", true},
		{"#8 root without destination", link(func(t *Target) { t.Key, t.URL = models.RootKey, "" }), visit(nil), 8, ActPlaceholder, 200, "", true},
		{"#9 bot on a proxy link", link(func(t *Target) { t.Proxy = true }), visit(func(v *Visit) { v.UA = slackUA }), 9, ActProxy, 200, "", false},
		{"#9 ?bot= on a proxy link", link(func(t *Target) { t.Proxy = true }), visit(func(v *Visit) { v.Bot = true }), 9, ActProxy, 200, "", false},
		{"#9 not for a browser", link(func(t *Target) { t.Proxy = true }), visit(nil), 15, ActRedirect, 302, "https://example.com/p", true},
		{"#10 mailto", link(func(t *Target) { t.URL = "mailto:a@b.test" }), visit(nil), 10, ActRefresh, 200, "mailto:a@b.test", true},
		{"#11 rewrite", link(func(t *Target) { t.Rewrite = true }), visit(nil), 11, ActCloak, 200, "https://example.com/p", true},
		{"#12 iOS target", link(func(t *Target) { t.IOS = "https://ios.test/" }), visit(func(v *Visit) { v.UA = iphoneUA }), 12, ActRedirect, 302, "https://ios.test/", true},
		{"#12 App Store via the interstitial", link(func(t *Target) {
			t.IOS, t.IOSStore = "https://apps.apple.com/app/id1", "the App Store"
		}), visit(func(v *Visit) { v.UA = iphoneUA }), 12, ActInterstitial, 307, "https://apps.apple.com/app/id1", true},
		{"#12 App Store, back from the interstitial", link(func(t *Target) {
			t.IOS, t.IOSStore = "https://apps.apple.com/app/id1", "the App Store"
		}), visit(func(v *Visit) { v.UA, v.SkipDeeplinkPreview = iphoneUA, true }), 12, ActRedirect, 302, "https://apps.apple.com/app/id1", true},
		{"#13 Android target", link(func(t *Target) { t.IOS, t.Android = "https://ios.test/", "https://android.test/" }), visit(func(v *Visit) { v.UA = androidUA }), 13, ActRedirect, 302, "https://android.test/", true},
		{"#13 not for a desktop", link(func(t *Target) { t.Android = "https://android.test/" }), visit(nil), 15, ActRedirect, 302, "https://example.com/p", true},
		{"#14 geo match", link(func(t *Target) { t.Geo = map[string]string{"FR": "https://fr.test/"} }), visit(nil), 14, ActRedirect, 302, "https://fr.test/", true},
		{"#14 geo miss", link(func(t *Target) { t.Geo = map[string]string{"US": "https://us.test/"} }), visit(nil), 15, ActRedirect, 302, "https://example.com/p", true},
		{"#15 root link is 301", link(func(t *Target) { t.Key = models.RootKey }), visit(nil), 15, ActRedirect, 301, "https://example.com/p", true},
		{"#15 tracking adds dub_id", link(func(t *Target) { t.TrackConversion = true }), visit(nil), 15, ActRedirect, 302, "https://example.com/p?dub_id=clk1", true},
		{"#15 dub-no-track: no click, no dub_id", link(func(t *Target) { t.TrackConversion = true }), visit(func(v *Visit) { v.NoTrack = true }), 15, ActRedirect, 302, "https://example.com/p", false},
		{"#15 a bot is redirected (the pipeline drops its click)", link(nil), visit(func(v *Visit) { v.UA = slackUA }), 15, ActRedirect, 302, "https://example.com/p", true},
		{"A/B: pinned variant", link(func(t *Target) {
			t.TestVariants = []models.TestVariant{{URL: "https://a.test/", Percentage: 50}, {URL: "https://b.test/", Percentage: 50}}
			t.TestCompletedAt = now.Add(time.Hour)
		}), visit(func(v *Visit) { v.PinnedVariant = "https://b.test/" }), 15, ActRedirect, 302, "https://b.test/", true},
		{"A/B: drawn variant", link(func(t *Target) {
			t.TestVariants = []models.TestVariant{{URL: "https://a.test/", Percentage: 50}, {URL: "https://b.test/", Percentage: 50}}
			t.TestCompletedAt = now.Add(time.Hour)
		}), visit(func(v *Visit) { v.Rand = func() float64 { return 0.25 } }), 15, ActRedirect, 302, "https://a.test/", true},
		{"A/B: test completed", link(func(t *Target) {
			t.TestVariants = []models.TestVariant{{URL: "https://a.test/", Percentage: 100}}
			t.TestCompletedAt = now
		}), visit(nil), 15, ActRedirect, 302, "https://example.com/p", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.res, tt.v, now)
			if d.Rule != tt.rule || d.Action != tt.action || d.Status != tt.status || d.URL != tt.url || d.Record != tt.record {
				t.Fatalf("Decide = rule %d action %d status %d url %q record %v; want rule %d action %d status %d url %q record %v",
					d.Rule, d.Action, d.Status, d.URL, d.Record, tt.rule, tt.action, tt.status, tt.url, tt.record)
			}
			if d.SetClickCookie != (tt.rule >= 8) { // the dub_id cookie from #8 on
				t.Fatalf("SetClickCookie = %v for rule %d", d.SetClickCookie, d.Rule)
			}
		})
	}
}

// TestDecidePins: the password form's correct answer is remembered, and a
// drawn A/B variant (not a pinned one) is pinned.
func TestDecidePins(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	res := &Resolved{Link: &Target{ID: "l", Key: "k", URL: "https://e.test/", Password: "pw",
		TestVariants:    []models.TestVariant{{URL: "https://a.test/", Percentage: 1}},
		TestCompletedAt: now.Add(time.Hour)}}
	d := Decide(res, Visit{Key: "k", Password: "pw", PasswordVia: ViaForm, Rand: func() float64 { return 0 }}, now)
	if !d.SetPasswordCookie || d.Variant != "https://a.test/" || d.URL != "https://a.test/" {
		t.Fatalf("form password: %+v", d)
	}
	d = Decide(res, Visit{Key: "k", Password: "pw", PasswordVia: ViaCookie, PinnedVariant: "https://a.test/"}, now)
	if d.SetPasswordCookie || d.Variant != "" || d.URL != "https://a.test/" {
		t.Fatalf("cookie password, pinned variant: %+v", d)
	}
}
