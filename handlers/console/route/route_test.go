package route

import (
	"net/url"
	"testing"
)

func TestURL(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{URL(Home), "/console"},
		{URL(Links), "/console/links"},
		{URL(Link, "link_1"), "/console/links/link_1"},
		{URL(ReviewSubmission, "bnty_1", "sub 2"), "/console/bounties/bnty_1/submissions/sub%202"},
		{URL(ApplyForm, "acme/x"), "/apply/acme%2Fx"},
		{Query(Analytics, url.Values{"linkId": {"l"}, "country": {"US"}}), "/console/analytics?country=US&linkId=l"},
		{Query(Analytics, nil), "/console/analytics"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}

func TestURLRefusesWrongParameters(t *testing.T) {
	for _, f := range []func(){
		func() { URL(Link) },
		func() { URL(Links, "x") },
		func() { URL(Name("Nope")) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}
