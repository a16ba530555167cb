package shortlink

import "testing"

func TestDestination(t *testing.T) {
	tests := []struct {
		name, target string
		d            destination
		want         string
	}{
		{"untouched keeps the raw query byte for byte", "https://x.test/p?emptyquery&a=%2B%3D#frag", destination{}, "https://x.test/p?emptyquery&a=%2B%3D#frag"},
		{"set replaces in place, appends new", "https://x.test/?utm_source=x&utm_medium=social", destination{reqQuery: "utm_source=checkly&ref=tw"},
			"https://x.test/?utm_source=checkly&utm_medium=social&ref=tw"},
		{"set removes later duplicates", "https://x.test/?a=1&b=2&a=3", destination{reqQuery: "a=9"}, "https://x.test/?a=9&b=2"},
		{"form encoding on re-serialisation", "https://x.test/?q=a%20b", destination{reqQuery: "n=x y*~"}, "https://x.test/?q=a+b&n=x+y*%7E"},
		{"fragment kept after the query", "https://x.test/p#top", destination{reqQuery: "a=1"}, "https://x.test/p?a=1#top"},
		{"qr=1 and skip_deeplink_preview=1 removed", "https://x.test/", destination{reqQuery: "qr=1&skip_deeplink_preview=1&k=v"}, "https://x.test/?k=v"},
		{"dub-no-track and redir_url not forwarded", "https://x.test/", destination{reqQuery: "dub-no-track=1&redir_url=https://evil.test"}, "https://x.test/"},
		{"dub_id when tracking", "https://x.test/?a=1", destination{clickID: "abc", track: true}, "https://x.test/?a=1&dub_id=abc"},
		{"no dub_id with dub-no-track", "https://x.test/", destination{clickID: "abc", track: true, noTrack: true}, "https://x.test/"},
		{"stripe client_reference_id", "https://buy.stripe.com/x?dub_client_reference_id=1", destination{clickID: "abc", track: true}, "https://buy.stripe.com/x?client_reference_id=dub_id_abc"},
		{"partner via and dub_id", "https://x.test/", destination{clickID: "abc", key: "jo", track: true, partner: true}, "https://x.test/?via=jo&dub_id=abc"},
		{"dropped params (a correct pw)", "https://x.test/", destination{reqQuery: "pw=s3cret&x=1", dropParams: []string{"pw"}}, "https://x.test/?x=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.build(tt.target); got != tt.want {
				t.Errorf("build(%q) = %q, want %q", tt.target, got, tt.want)
			}
		})
	}
}
