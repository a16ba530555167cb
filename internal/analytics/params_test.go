package analytics

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
)

var testNow = time.Date(2025, 6, 15, 10, 30, 0, 0, time.UTC)

func parseQS(t *testing.T, qs string, ep Endpoint) (*Query, error) {
	t.Helper()
	v, err := url.ParseQuery(qs)
	if err != nil {
		t.Fatalf("bad test query %q: %v", qs, err)
	}
	return Parse(v, ep, testNow)
}

func TestParseRejections(t *testing.T) {
	long := "query=" + strings.Repeat("a", 10001)
	tests := []struct {
		name, qs string
		ep       Endpoint
		msg      string
	}{
		{"event analytics", "event=foo", EndpointAnalytics, "invalid_value: event: Invalid event type. Valid event types are: clicks, leads, sales"},
		{"event composite on events", "event=composite", EndpointEvents, `invalid_value: event: Invalid option: expected one of "clicks"|"leads"|"sales"`},
		{"event foo on events", "event=foo", EndpointEvents, `invalid_value: event: Invalid option: expected one of "clicks"|"leads"|"sales"`},
		{"groupBy", "groupBy=foo", EndpointAnalytics, "invalid_value: groupBy: Invalid type value. Valid values are: count, timeseries, continents, regions, countries, cities, devices, browsers, os, triggers, referers, referer_urls, top_folders, top_link_tags, top_domains, top_links, top_urls, top_base_urls, top_partners, top_groups, top_partner_tags, utm_sources, utm_mediums, utm_campaigns, utm_terms, utm_contents."},
		{"interval", "interval=2h", EndpointAnalytics, `invalid_value: interval: Invalid option: expected one of "24h"|"7d"|"30d"|"90d"|"1y"|"mtd"|"qtd"|"ytd"|"all"`},
		{"start garbage", "start=notadate", EndpointAnalytics, "custom: start: Invalid date"},
		{"end garbage", "end=garbage", EndpointAnalytics, "custom: end: Invalid date"},
		{"start before founding", "start=2020-01-01", EndpointAnalytics, "custom: start: The start date cannot be earlier than September 22, 2022."},
		{"start far in the future", "start=9999-12-31", EndpointAnalytics, "custom: start: The start date cannot be later than December 31, 2099."},
		{"end far in the future", "start=2024-01-01&end=2100-01-01T00:00:00Z", EndpointEvents, "custom: end: The end date cannot be later than December 31, 2099."},
		{"start epoch", "start=1704067200", EndpointAnalytics, "custom: start: Invalid date"},
		{"start year only", "start=2024", EndpointAnalytics, "custom: start: Invalid date"},
		{"start month 13", "start=2024-13-01", EndpointAnalytics, "custom: start: Invalid date"},
		{"start feb 30", "start=2024-02-30", EndpointAnalytics, "custom: start: Invalid date"},
		{"saleType", "saleType=x", EndpointAnalytics, `invalid_value: saleType: Invalid option: expected one of "new"|"recurring"`},
		{"root yes", "root=yes", EndpointAnalytics, `invalid_value: root: Invalid option: expected one of "true"|"false"`},
		{"root 1", "root=1", EndpointAnalytics, `invalid_value: root: Invalid option: expected one of "true"|"false"`},
		{"root space", "root=%20true", EndpointAnalytics, `invalid_value: root: Invalid option: expected one of "true"|"false"`},
		{"qr", "qr=0", EndpointAnalytics, `invalid_value: qr: Invalid option: expected one of "true"|"false"`},
		{"query too long", long, EndpointAnalytics, "too_big: query: Too big: expected string to have <=10000 characters"},
		{"page 0", "page=0", EndpointEvents, "too_small: page: Page must be greater than 0."},
		{"page abc", "page=abc", EndpointEvents, "invalid_type: page: Page must be a number."},
		{"page 1.5", "page=1.5", EndpointEvents, "invalid_type: page: Page must be an integer."},
		{"limit 1001", "limit=1001", EndpointEvents, "too_big: limit: Max page size is 1000."},
		{"limit abc", "limit=abc", EndpointEvents, "invalid_type: limit: Page size must be a number."},
		{"limit 0", "limit=0", EndpointEvents, "too_small: limit: Page size must be greater than 0."},
		{"sortOrder", "sortOrder=up", EndpointEvents, `invalid_value: sortOrder: Invalid option: expected one of "asc"|"desc"`},
		{"order", "order=up", EndpointEvents, `invalid_value: order: Invalid option: expected one of "asc"|"desc"`},
		{"sortBy", "sortBy=foo", EndpointEvents, `invalid_value: sortBy: Invalid input: expected "timestamp"`},
		// First issue in schema order wins.
		{"event before groupBy", "groupBy=foo&event=foo", EndpointAnalytics, "invalid_value: event: Invalid event type. Valid event types are: clicks, leads, sales"},
		{"interval before start", "start=x&interval=2h", EndpointAnalytics, `invalid_value: interval: Invalid option: expected one of "24h"|"7d"|"30d"|"90d"|"1y"|"mtd"|"qtd"|"ytd"|"all"`},
		{"start before end", "end=x&start=y", EndpointAnalytics, "custom: start: Invalid date"},
		{"root before saleType", "saleType=x&root=x", EndpointAnalytics, `invalid_value: root: Invalid option: expected one of "true"|"false"`},
		{"page before limit", "limit=0&page=0", EndpointEvents, "too_small: page: Page must be greater than 0."},
		{"last value wins", "event=clicks&event=bogus", EndpointAnalytics, "invalid_value: event: Invalid event type. Valid event types are: clicks, leads, sales"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseQS(t, tt.qs, tt.ep)
			var ae *apierr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("want *apierr.Error, got %v", err)
			}
			if ae.Code != apierr.Unprocessable || ae.Status() != 422 {
				t.Errorf("code = %s (%d), want unprocessable_entity 422", ae.Code, ae.Status())
			}
			if ae.Message != tt.msg {
				t.Errorf("message\n got %q\nwant %q", ae.Message, tt.msg)
			}
			if ae.Doc() != "https://dub.co/docs/api-reference/errors#unprocessable-entity" {
				t.Errorf("doc_url = %s", ae.Doc())
			}
		})
	}
}

// parseAccept is one accepted query string and what Parse makes of it.
type parseAccept struct {
	name, qs string
	ep       Endpoint
	check    func(t *testing.T, q *Query)
}

func runParseAccepts(t *testing.T, tests []parseAccept) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := parseQS(t, tt.qs, tt.ep)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			tt.check(t, q)
		})
	}
}

func TestParseAccepts(t *testing.T) {
	runParseAccepts(t, []parseAccept{
		{"defaults analytics", "", EndpointAnalytics, func(t *testing.T, q *Query) {
			if q.Event != Clicks || q.GroupBy != Count || q.TZ != time.UTC || q.EffectiveInterval() != Interval30d {
				t.Errorf("defaults: %+v", q)
			}
		}},
		{"defaults events", "groupBy=bogus", EndpointEvents, func(t *testing.T, q *Query) {
			if q.Page != 1 || q.Limit != 100 || q.SortOrder != "desc" {
				t.Errorf("paging defaults: %d %d %s", q.Page, q.Limit, q.SortOrder)
			}
		}},
		{"trigger alias", "groupBy=trigger", EndpointAnalytics, func(t *testing.T, q *Query) {
			if q.GroupBy != Triggers {
				t.Errorf("groupBy = %s", q.GroupBy)
			}
		}},
		{"multi and exclusion", "country=-US,,BR,&city=,&device=-", EndpointAnalytics, func(t *testing.T, q *Query) {
			if !reflect.DeepEqual(q.Country, Filter{Values: []string{"US", "BR"}, Negate: true}) {
				t.Errorf("country = %+v", q.Country)
			}
			if q.City.Set() || q.Device.Set() {
				t.Errorf("empty lists must be absent: %+v %+v", q.City, q.Device)
			}
		}},
		{"capitalisation", "device=mobile&browser=mobile%20safari&os=mac%20os,iOS,ios", EndpointAnalytics, func(t *testing.T, q *Query) {
			if q.Device.Values[0] != "Mobile" || q.Browser.Values[0] != "Mobile Safari" ||
				!reflect.DeepEqual(q.OS.Values, []string{"Mac Os", "iOS", "Ios"}) {
				t.Errorf("got %v %v %v", q.Device, q.Browser, q.OS)
			}
		}},
		{"region replaces country", "country=DE&region=US-CA", EndpointAnalytics, func(t *testing.T, q *Query) {
			if !reflect.DeepEqual(q.Country.Values, []string{"US"}) || q.Region != "CA" {
				t.Errorf("got %v %q", q.Country, q.Region)
			}
		}},
		{"root true case-insensitive", "root=TRUE&qr=False", EndpointAnalytics, func(t *testing.T, q *Query) {
			if q.Root == nil || !*q.Root || q.Trigger.Set() {
				t.Errorf("root %v trigger %v", q.Root, q.Trigger)
			}
		}},
		{"root false", "root=false", EndpointAnalytics, func(t *testing.T, q *Query) {
			if q.Root == nil || *q.Root {
				t.Errorf("root %v", q.Root)
			}
		}},
		{"qr true sets trigger", "qr=true", EndpointAnalytics, func(t *testing.T, q *Query) {
			if !reflect.DeepEqual(q.Trigger.Values, []string{"qr"}) {
				t.Errorf("trigger %v", q.Trigger)
			}
		}},
		{"qr true keeps explicit trigger", "qr=true&trigger=link", EndpointAnalytics, func(t *testing.T, q *Query) {
			if !reflect.DeepEqual(q.Trigger.Values, []string{"link"}) {
				t.Errorf("trigger %v", q.Trigger)
			}
		}},
	})
	for _, g := range AllGroupBys {
		if _, err := parseQS(t, "groupBy="+string(g), EndpointAnalytics); err != nil {
			t.Errorf("groupBy=%s: %v", g, err)
		}
	}
	for _, i := range Intervals {
		if _, err := parseQS(t, "interval="+string(i), EndpointAnalytics); err != nil {
			t.Errorf("interval=%s: %v", i, err)
		}
	}
}

// TestParseAcceptsMore: the second half of TestParseAccepts' table.
func TestParseAcceptsMore(t *testing.T) {
	runParseAccepts(t, []parseAccept{
		{"tagIds alias analytics", "tagIds=t1,t2", EndpointAnalytics, func(t *testing.T, q *Query) {
			if !reflect.DeepEqual(q.TagID.Values, []string{"t1", "t2"}) {
				t.Errorf("tagId %v", q.TagID)
			}
		}},
		{"tagIds ignored on events", "tagIds=t1", EndpointEvents, func(t *testing.T, q *Query) {
			if q.TagID.Set() {
				t.Errorf("tagId %v", q.TagID)
			}
		}},
		{"tagId wins over tagIds", "tagIds=t1&tagId=t9", EndpointAnalytics, func(t *testing.T, q *Query) {
			if !reflect.DeepEqual(q.TagID.Values, []string{"t9"}) {
				t.Errorf("tagId %v", q.TagID)
			}
		}},
		{"timezone valid", "timezone=Asia/Kolkata", EndpointAnalytics, func(t *testing.T, q *Query) {
			if q.TZ.String() != "Asia/Kolkata" {
				t.Errorf("tz %v", q.TZ)
			}
		}},
		{"timezone invalid is UTC", "timezone=Mars/Olympus", EndpointAnalytics, func(t *testing.T, q *Query) {
			if q.TZ != time.UTC {
				t.Errorf("tz %v", q.TZ)
			}
		}},
		{"order overrides sortOrder unless desc", "sortOrder=desc&order=asc", EndpointEvents, func(t *testing.T, q *Query) {
			if q.SortOrder != "asc" {
				t.Errorf("sortOrder %s", q.SortOrder)
			}
		}},
		{"order desc never overrides", "sortOrder=asc&order=desc", EndpointEvents, func(t *testing.T, q *Query) {
			if q.SortOrder != "asc" {
				t.Errorf("sortOrder %s", q.SortOrder)
			}
		}},
		{"paging", "page=3&limit=1000&sortBy=timestamp", EndpointEvents, func(t *testing.T, q *Query) {
			if q.Page != 3 || q.Limit != 1000 {
				t.Errorf("page %d limit %d", q.Page, q.Limit)
			}
		}},
		{"metadata query", "query=" + url.QueryEscape(`metadata["plan"]:"pro" AND metadata['seats']>='5'`), EndpointAnalytics, func(t *testing.T, q *Query) {
			want := []Condition{{Field: "metadata", Path: []string{"plan"}, Op: OpEq, Value: "pro"},
				{Field: "metadata", Path: []string{"seats"}, Op: OpGte, Value: "5"}}
			if !reflect.DeepEqual(q.Metadata, want) {
				t.Errorf("metadata %+v", q.Metadata)
			}
		}},
		{"query exactly 10000", "query=" + strings.Repeat("a", 10000), EndpointAnalytics, func(t *testing.T, q *Query) {
			if len(q.Metadata) != 0 {
				t.Errorf("metadata %+v", q.Metadata)
			}
		}},
		{"saleType", "saleType=recurring&event=composite", EndpointAnalytics, func(t *testing.T, q *Query) {
			if q.SaleType != SaleRecurring || q.Event != Composite {
				t.Errorf("%s %s", q.SaleType, q.Event)
			}
		}},
	})
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC3339Nano UTC; "" = invalid
	}{
		{"2024-01-01", "2024-01-01T12:00:00Z"},
		{"2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"},
		{"2024-01-01T10:00:00", "2024-01-01T10:00:00Z"},
		{"2024-01-01T10:00:00.123+02:00", "2024-01-01T08:00:00.123Z"},
		{"2024-01-01T10:00:00+0530", "2024-01-01T04:30:00Z"},
		{"2024-01-01 10:00", "2024-01-01T10:00:00Z"},
		{"2024/01/31", "2024-01-31T12:00:00Z"},
		{"01/31/2024", "2024-01-31T12:00:00Z"},
		{"31/01/2024", "2024-01-31T12:00:00Z"},
		{"Jan 5 2024", "2024-01-05T12:00:00Z"},
		{"January 5, 2024", "2024-01-05T12:00:00Z"},
		{"Mon, 01 Jan 2024 10:00:00 GMT", "2024-01-01T10:00:00Z"},
		{"yesterday", "2025-06-14T10:30:00Z"},
		{"now", "2025-06-15T10:30:00Z"},
		{"tomorrow", "2025-06-16T10:30:00Z"},
		{"last week", "2025-06-08T10:30:00Z"},
		{"3 days ago", "2025-06-12T10:30:00Z"},
		{"foo 2024-01-01 bar", "2024-01-01T12:00:00Z"},
		{"1704067200", ""},
		{"1704067200000", ""},
		{"2024", ""},
		{"2024-13-01", ""},
		{"2024-02-30", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseDate(tt.in, testNow)
			if tt.want == "" {
				if ok {
					t.Fatalf("want invalid, got %s", got)
				}
				return
			}
			if !ok || got.Format(time.RFC3339Nano) != tt.want {
				t.Fatalf("got %s %v, want %s", got.Format(time.RFC3339Nano), ok, tt.want)
			}
		})
	}
}

func TestMetadataQuery(t *testing.T) {
	tests := []struct {
		in   string
		want []Condition
	}{
		{`metadata['productId']:premiumProductId`, []Condition{{"metadata", []string{"productId"}, OpEq, "premiumProductId"}}},
		{`metadata['a']['b'] != "x"`, []Condition{{"metadata", []string{"a", "b"}, OpNe, "x"}}},
		{`metadata['a']>1 OR metadata['b']<2 and metadata['c']<=3 AND metadata['d']>=4`, []Condition{
			{"metadata", []string{"a"}, OpGt, "1"}, {"metadata", []string{"b"}, OpLt, "2"},
			{"metadata", []string{"c"}, OpLte, "3"}, {"metadata", []string{"d"}, OpGte, "4"}}},
		{`metadata['a']==x`, []Condition{{"metadata", []string{"a"}, OpEq, "x"}}},
		{`metadata['a']<>x`, []Condition{{"metadata", []string{"a"}, OpEq, "x"}}},
		{`metadata['a']!x`, []Condition{{"metadata", []string{"a"}, OpEq, "x"}}},
		{`country:US`, []Condition{{"country", nil, OpEq, "US"}}},
		{`metadata['a-b']:x`, nil},
		{`metadata['a']:"'`, nil},
		{`metadata['a']:'x;--y/**/\z'`, []Condition{{"metadata", []string{"a"}, OpEq, "xyz"}}},
		{`metadata['a']:x And metadata['b']:y`, []Condition{{"metadata", []string{"a"}, OpEq, "x And metadata['b']:y"}}},
		{`garbage`, nil},
		{`  AND  `, nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := ParseMetadataQuery(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestMetadataEval(t *testing.T) {
	md := `{"plan":"pro","seats":"10","n":5,"user":{"plan":"x"}}`
	tests := []struct {
		q    string
		want bool
	}{
		{`metadata['plan']:pro`, true},
		{`metadata['plan']:free`, false},
		{`metadata['plan']!=free`, true},
		{`metadata['seats']>=5`, true},
		{`metadata['seats']<5`, false},
		{`metadata['n']>1`, false}, // JSON numbers are not strings → ""
		{`metadata['n']!=5`, true}, // "" != "5"
		{`metadata['user']['plan']:x`, false},
		{`metadata['missing']:x`, false},
		{`metadata['plan']>1`, false},
		{`country:US`, true}, // ignored
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			cs := ParseMetadataQuery(tt.q)
			if len(cs) != 1 {
				t.Fatalf("parsed %d conditions", len(cs))
			}
			if got := cs[0].Eval(md); got != tt.want {
				t.Fatalf("Eval = %v, want %v", got, tt.want)
			}
		})
	}
}
