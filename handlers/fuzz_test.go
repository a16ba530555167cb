package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// fuzzSeeds are the parser fuzz targets' seeds (handlers/api, internal/links,
// internal/analytics), sent here through the whole server to a real
// database.
var fuzzSeeds = []string{
	``, `{}`, `[]`, `null`, `{"eventName":"Sign up","customerExternalId":"u_1","clickId":"abc"}`,
	`{"customerExternalId":"u","amount":100,"currency":"JPY","invoiceId":"inv","paymentProcessor":"stripe","leadEventName":"x"}`,
	`{"eventName":"\u0000","customerExternalId":"\ud800"}`, `{"url":"https://example.com"}`,
	`{"url":"google.com","key":"abc","tagIds":"a,b"}`, `{"url":"https://a.com","externalId":"ext_x"}`,
	"{\"url\":\"https://a.com/\xff\",\"key\":\"k\"}", `{"url":"javascript:alert(1)"}`,
	"event=composite&groupBy=timeseries&interval=all&timezone=Asia/Kolkata",
	"query=metadata['plan']:pro AND metadata['n']>=5&saleType=new&event=sales", "/_", "a\x00b", "%00", "%C3%28",
}

// FuzzServerInput drives the parsers' inputs through the server into the
// database (PostgreSQL when RELINK_TEST_DATABASE_URL is set, else SQLite):
// the input as a body for link creation and both track routes, as the query
// of /analytics and /events, and as a short-link path. No 5xx, ever.
func FuzzServerInput(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	dialect := "sqlite"
	if os.Getenv("RELINK_TEST_DATABASE_URL") != "" {
		dialect = "postgres"
	}
	db := testdb.Open(f, dialect)
	ts := newServer(f, db, env{vars: map[string]string{"RELINK_DEV": "true"}})
	_, key := seed(f, db, "fuzz", models.PlanEnterprise)
	f.Fuzz(func(t *testing.T, in string) {
		check := func(method, target, body string) {
			hr := httptest.NewRequest(method, "http://"+apiHost+"/", strings.NewReader(body))
			hr.RequestURI = target
			hr.Host = apiHost
			hr.Header.Set("Authorization", "Bearer "+key)
			hr.Header.Set("Content-Type", "application/json")
			res, err := ts.Root.Test(hr, -1)
			if err != nil {
				t.Fatalf("%s %q: %v", method, target, err)
			}
			r := readResp(t, res)
			if r.Status >= 500 {
				for _, l := range ts.logs.Find(t, "request failed") {
					t.Logf("%v", l)
				}
				t.Fatalf("%s %q body %q: status %d: %s", method, target, body, r.Status, r.Body)
			}
		}
		for _, p := range []string{"/links", "/track/lead", "/track/sale"} {
			check(http.MethodPost, p, in)
		}
		q := strings.Map(func(r rune) rune {
			if r == ' ' || r == '#' || r == '\n' || r == '\r' {
				return '+'
			}
			return r
		}, in)
		check(http.MethodGet, "/analytics?"+q, "")
		check(http.MethodGet, "/events?"+q, "")
		// As a short-link key on the app host (the default short domain in dev).
		hr := httptest.NewRequest(http.MethodGet, "http://"+appHost+"/", nil)
		hr.RequestURI = "/" + url.PathEscape(in)
		hr.Host = appHost
		res, err := ts.Root.Test(hr, -1)
		if err != nil {
			t.Fatal(err)
		}
		if r := readResp(t, res); r.Status >= 500 {
			for _, l := range ts.logs.Find(t, "request failed") {
				t.Logf("%v", l)
			}
			for _, l := range ts.logs.Find(t, "panic serving request") {
				t.Logf("%v", l)
			}
			t.Fatalf("GET %q: status %d %v %s", hr.RequestURI, r.Status, r.Header, r.Body)
		}
	})
}
