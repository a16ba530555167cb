package analytics_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/internal/wire/dubjson"
	"github.com/relinkhq/relink/models"
)

// rawEvent is one stored event as the naive evaluator reads it.
type rawEvent struct {
	kind     string // clicks, leads, sales
	at       time.Time
	clickID  string
	customer string
	amount   int64
	newSale  bool // a sale that is its (link, customer)'s first
	plan     string
	seats    string // metadata's "seats" when it is a JSON string
	attrs    models.ClickAttrs
	link     *models.Link
	tags     map[string]bool
	group    string
}

// naiveWorld is the world's rows, read back from the tables.
type naiveWorld struct {
	evs       []rawEvent
	leadsOf   map[string]map[string]bool // customer → click ids of its leads
	end       time.Time
	linkGroup map[string]string
}

func loadNaive(t *testing.T, w *world) *naiveWorld {
	t.Helper()
	n := &naiveWorld{leadsOf: map[string]map[string]bool{}, linkGroup: map[string]string{},
		end: time.Date(w.now.Year(), w.now.Month(), w.now.Day(), 23, 59, 59, 999e6, time.UTC)}
	links := map[string]*models.Link{}
	for _, l := range w.links {
		links[l.ID] = l
		if l.PartnerID != nil {
			n.linkGroup[l.ID] = w.group
		}
	}
	tags := map[string]map[string]bool{}
	var lt []struct{ LinkID, TagID string }
	if err := w.db.Raw("SELECT link_id, tag_id FROM link_tags").Scan(&lt).Error; err != nil {
		t.Fatal(err)
	}
	for _, r := range lt {
		if tags[r.LinkID] == nil {
			tags[r.LinkID] = map[string]bool{}
		}
		tags[r.LinkID][r.TagID] = true
	}
	add := func(kind string, at time.Time, a models.ClickAttrs, cust string, amount int64, md models.Metadata) *rawEvent {
		e := rawEvent{kind: kind, at: at, clickID: a.ClickID, customer: cust, amount: amount, attrs: a,
			link: links[a.LinkID], tags: tags[a.LinkID], group: n.linkGroup[a.LinkID]}
		if p, ok := md["plan"].(string); ok {
			e.plan = p
		}
		if v, ok := md["seats"].(string); ok {
			e.seats = v
		}
		n.evs = append(n.evs, e)
		return &n.evs[len(n.evs)-1]
	}
	var clicks []models.Click
	var leads []models.LeadEvent
	var sales []models.SaleEvent
	for _, q := range []any{&clicks, &leads, &sales} {
		if err := w.db.Where("workspace_id = ?", w.ws.ID).Order("timestamp").Find(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range clicks {
		add("clicks", c.Timestamp, models.ClickAttrs{ClickID: c.ClickID, LinkID: c.LinkID, URL: c.URL, Continent: c.Continent,
			Country: c.Country, Region: c.Region, City: c.City, Device: c.Device, Browser: c.Browser, OS: c.OS,
			Trigger: c.Trigger, Referer: c.Referer, RefererURL: c.RefererURL}, "", 0, nil)
	}
	for _, l := range leads {
		add("leads", l.Timestamp, l.ClickAttrs, l.CustomerID, 0, l.Metadata)
		if n.leadsOf[l.CustomerID] == nil {
			n.leadsOf[l.CustomerID] = map[string]bool{}
		}
		n.leadsOf[l.CustomerID][l.ClickID] = true
	}
	first := map[string]time.Time{}
	for _, s := range sales {
		k := s.LinkID + "\x00" + s.CustomerID
		if f, ok := first[k]; !ok || s.Timestamp.Before(f) {
			first[k] = s.Timestamp
		}
	}
	for _, s := range sales {
		e := add("sales", s.Timestamp, s.ClickAttrs, s.CustomerID, s.Amount, s.Metadata)
		e.newSale = s.Timestamp.Equal(first[s.LinkID+"\x00"+s.CustomerID])
	}
	return n
}

// filterCase is one filter value: the query string and the rows it keeps.
// Events outside kinds (when set) ignore the filter.
type filterCase struct {
	qs    string
	keep  func(e *rawEvent) bool
	kinds string
	lists bool // a comma list or an exclusion: compared on the count and the events only
}

// multiFilter is a multi-value filter: match says whether one value
// matches an event; IN keeps an event when any value matches, NOT IN when
// none does.
type multiFilter struct {
	param  string
	v1, v2 string
	match  func(e *rawEvent, v string) bool
}

func (m multiFilter) cases() []filterCase {
	any := func(e *rawEvent, vs ...string) bool {
		for _, v := range vs {
			if m.match(e, v) {
				return true
			}
		}
		return false
	}
	return []filterCase{
		{qs: m.param + "=" + url.QueryEscape(m.v1), keep: func(e *rawEvent) bool { return any(e, m.v1) }},
		{qs: m.param + "=" + url.QueryEscape(m.v1+","+m.v2), keep: func(e *rawEvent) bool { return any(e, m.v1, m.v2) }, lists: true},
		{qs: m.param + "=" + url.QueryEscape("-"+m.v1+","+m.v2), keep: func(e *rawEvent) bool { return !any(e, m.v1, m.v2) }, lists: true},
	}
}

func cut(v string) string {
	if i := strings.IndexByte(v, '?'); i >= 0 {
		return v[:i]
	}
	return v
}

func ptr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// filterCases is every filter of the analytics contract (spec/analytics.md §2.2)
// with its naive meaning.
func filterCases(w *world, n *naiveWorld) []filterCase {
	l := w.links
	attr := func(param, v1, v2 string, get func(a *models.ClickAttrs) string) multiFilter {
		return multiFilter{param, v1, v2, func(e *rawEvent, v string) bool { return get(&e.attrs) == v }}
	}
	multis := []multiFilter{
		{"domain", w.ws.Slug + ".link", "beta.link", func(e *rawEvent, v string) bool { return e.link.Domain == v }},
		{"linkId", l[0].ID, l[2].ID, func(e *rawEvent, v string) bool { return e.link.ID == v }},
		{"tenantId", "tenant-1", "tenant-2", func(e *rawEvent, v string) bool { return ptr(e.link.TenantID) == v }},
		{"tagId", w.tags[1], w.tags[0], func(e *rawEvent, v string) bool { return e.tags[v] }},
		{"folderId", w.fold, "fold_none", func(e *rawEvent, v string) bool { return ptr(e.link.FolderID) == v }},
		{"groupId", w.group, "grp_none", func(e *rawEvent, v string) bool { return e.group == v }},
		{"partnerId", w.part, "pn_none", func(e *rawEvent, v string) bool { return ptr(e.link.PartnerID) == v }},
		attr("country", "US", "DE", func(a *models.ClickAttrs) string { return a.Country }),
		attr("city", "Berlin", "São Paulo", func(a *models.ClickAttrs) string { return a.City }),
		attr("continent", "EU", "NA", func(a *models.ClickAttrs) string { return a.Continent }),
		{"device", "mobile", "desktop", func(e *rawEvent, v string) bool { return e.attrs.Device == strings.ToUpper(v[:1])+v[1:] }},
		{"browser", "chrome", "firefox", func(e *rawEvent, v string) bool { return e.attrs.Browser == strings.ToUpper(v[:1])+v[1:] }},
		{"os", "iOS", "android", func(e *rawEvent, v string) bool {
			return e.attrs.OS == map[string]string{"iOS": "iOS", "android": "Android"}[v]
		}},
		attr("trigger", "qr", "link", func(a *models.ClickAttrs) string { return a.Trigger }),
		attr("referer", "google.com", "(direct)", func(a *models.ClickAttrs) string { return a.Referer }),
		{"refererUrl", "https://www.google.com/search", "https://news.example/post", func(e *rawEvent, v string) bool { return cut(e.attrs.RefererURL) == v }},
		{"url", "https://shop.example/p", "https://partner.example/", func(e *rawEvent, v string) bool { return cut(e.attrs.URL) == v }},
	}
	for _, u := range [][3]string{{"utm_source", "news", "ads"}, {"utm_medium", "email", "cpc"}, {"utm_campaign", "spring", "winter"},
		{"utm_term", "shoes", "hats"}, {"utm_content", "hero", "footer"}} {
		multis = append(multis, multiFilter{u[0], u[1], u[2], func(e *rawEvent, v string) bool {
			return strings.Contains(e.attrs.URL, u[0]+"="+url.QueryEscape(v))
		}})
	}
	var out []filterCase
	for _, m := range multis {
		out = append(out, m.cases()...)
	}
	cust := ""
	for c := range n.leadsOf {
		if cust == "" || c < cust {
			cust = c
		}
	}
	return append(out,
		filterCase{qs: "domain=" + url.QueryEscape(l[0].Domain) + "&key=" + l[0].Key, keep: func(e *rawEvent) bool { return e.link.ID == l[0].ID }},
		filterCase{qs: "key=" + l[0].Key, keep: func(*rawEvent) bool { return true }},
		filterCase{qs: "externalId=ext_" + ptr(l[1].ExternalID), keep: func(e *rawEvent) bool { return e.link.ID == l[1].ID }},
		filterCase{qs: "region=US-CA", keep: func(e *rawEvent) bool { return e.attrs.Country == "US" && e.attrs.Region == "CA" }},
		filterCase{qs: "root=true", keep: func(e *rawEvent) bool { return e.link.Key == models.RootKey }},
		filterCase{qs: "root=false", keep: func(e *rawEvent) bool { return e.link.Key != models.RootKey }},
		filterCase{qs: "customerId=" + url.QueryEscape(cust), keep: func(e *rawEvent) bool {
			if e.kind == "clicks" {
				return n.leadsOf[cust][e.clickID]
			}
			return e.customer == cust
		}},
		filterCase{qs: "saleType=new", kinds: "sales", keep: func(e *rawEvent) bool { return e.newSale }},
		filterCase{qs: "saleType=recurring", kinds: "sales", keep: func(e *rawEvent) bool { return !e.newSale }},
		filterCase{qs: "query=" + url.QueryEscape("metadata['plan']:'pro'"), kinds: "leads sales", keep: func(e *rawEvent) bool { return e.plan == "pro" }},
		// A numeric comparison (the SQL holds a regular expression whose
		// quantifiers must not be read as placeholders), alone and with
		// saleType, which takes sales to the raw table.
		filterCase{qs: "query=" + url.QueryEscape("metadata['seats']>=5"), kinds: "leads sales", keep: func(e *rawEvent) bool { return seatsAtLeast(e, 5) }},
		filterCase{qs: "query=" + url.QueryEscape("metadata['plan']:pro AND metadata['seats']<12") + "&saleType=new", kinds: "leads sales",
			keep: func(e *rawEvent) bool {
				if e.kind == "sales" && !e.newSale {
					return false
				}
				n, err := strconv.ParseFloat(e.seats, 64)
				return e.plan == "pro" && err == nil && n < 12
			}},
	)
}

// naiveCount counts kind's events in the window that c keeps, with key
// grouping them (nil: one group "").
func (n *naiveWorld) naiveCount(c filterCase, kind string, key func(e *rawEvent) string) map[string]analytics.Counters {
	out := map[string]analytics.Counters{}
	for i := range n.evs {
		e := &n.evs[i]
		if e.kind != kind || e.at.After(n.end) {
			continue
		}
		if (c.kinds == "" || strings.Contains(c.kinds, kind)) && !c.keep(e) {
			continue
		}
		k := ""
		if key != nil {
			if k = key(e); k == "" {
				continue
			}
		}
		x := out[k]
		switch kind {
		case "clicks":
			x.Clicks++
		case "leads":
			x.Leads++
		case "sales":
			x.Sales++
			x.SaleAmount += e.amount
		}
		out[k] = x
	}
	return out
}

// groupings are the answers compared per filter: the count, the timeseries
// summed, and two groupings row by row (an event dimension, a link one).
var groupings = []struct {
	by  analytics.GroupBy
	key func(e *rawEvent) string
	row func(r dubjson.Row) string
}{
	{analytics.Count, nil, nil},
	{analytics.Timeseries, nil, func(dubjson.Row) string { return "" }},
	{analytics.Devices, func(e *rawEvent) string {
		if e.attrs.Device == "Unknown" {
			return ""
		}
		return e.attrs.Device
	}, func(r dubjson.Row) string { return r["device"].(string) }},
	{analytics.TopLinks, func(e *rawEvent) string { return e.link.ID }, func(r dubjson.Row) string { return r["id"].(string) }},
}

// TestEveryFilter runs every filter of GET /analytics and GET /events
// (single value, comma list, exclusion) for each event and a few
// groupings, on both dialects and every engine (the planner, ClickHouse
// when installed), against a naive count over the stored rows.
func TestEveryFilter(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
		w := newWorld(t, db, "acme", now)
		w.links[1].TenantID, w.links[2].TenantID = strPtr("tenant-1"), strPtr("tenant-2")
		w.links[1].ExternalID = strPtr("shop-b")
		for _, l := range w.links[1:3] {
			if err := db.Exec("UPDATE links SET tenant_id = ?, external_id = ? WHERE id = ?", l.TenantID, l.ExternalID, l.ID).Error; err != nil {
				t.Fatal(err)
			}
		}
		w.randomEvents(rand.New(rand.NewPCG(3, 4)), 300, now.AddDate(0, 0, -20), now.Add(-time.Hour))
		// The planner (which reads the raw tables for event filters and the
		// aggregates for the rest) and ClickHouse when installed; the
		// naive count is the reference.
		agg, _ := w.engines()
		impls := w.implementations(agg)
		n := loadNaive(t, w)
		cases := filterCases(w, n)
		if len(cases) < 76 {
			t.Fatalf("only %d cases", len(cases))
		}
		kept := 0
		for i, c := range cases {
			for name, e := range sampled(impls, i) {
				for _, ev := range []string{"clicks", "leads", "sales"} {
					kept += checkFilter(t, w, n, e, name, c, ev)
				}
				checkComposite(t, w, n, e, name, c)
			}
		}
		if kept == 0 {
			t.Fatal("no filter kept a row")
		}
	})
}

func strPtr(s string) *string { return &s }

// checkFilter compares every grouping and the event list of one filter
// case with the naive count; it returns the events kept.
func checkFilter(t *testing.T, w *world, n *naiveWorld, e analytics.Engine, name string, c filterCase, ev string) int {
	t.Helper()
	base := "event=" + ev + "&interval=all&" + c.qs
	total := n.naiveCount(c, ev, nil)[""]
	for _, g := range groupings {
		if c.lists && g.by != analytics.Count {
			continue
		}
		qs := base + "&groupBy=" + string(g.by)
		res, err := w.query(t, e, qs)
		if err != nil {
			t.Fatalf("%s %s: %v", name, qs, err)
		}
		if g.by == analytics.Count {
			if got := res.(analytics.Counters); got != total {
				t.Errorf("%s %s: %+v, naive %+v", name, qs, got, total)
			}
			continue
		}
		got := map[string]analytics.Counters{}
		for _, r := range res.([]dubjson.Row) {
			k := g.row(r)
			x := got[k]
			x.Clicks += r["clicks"].(int64)
			x.Leads += r["leads"].(int64)
			x.Sales += r["sales"].(int64)
			x.SaleAmount += r["saleAmount"].(int64)
			got[k] = x
		}
		want := n.naiveCount(c, ev, g.key)
		if g.key == nil && total != (analytics.Counters{}) {
			want = map[string]analytics.Counters{"": total}
		}
		delete(got, "")
		if g.key == nil {
			got = map[string]analytics.Counters{"": sumOf(res.([]dubjson.Row))}
			if got[""] == (analytics.Counters{}) {
				delete(got, "")
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s %s:\n got %v\nnaive %v", name, qs, got, want)
		}
	}
	res, err := w.events(t, e, "event="+ev+"&interval=all&limit=1000&"+c.qs)
	if err != nil {
		t.Fatalf("%s events %s: %v", name, c.qs, err)
	}
	want := total.Clicks + total.Leads + total.Sales
	if got := len(res.([]map[string]any)); int64(got) != want {
		t.Errorf("%s /events?event=%s&%s: %d events, naive %d", name, ev, c.qs, got, want)
	}
	return int(want)
}

func sumOf(rows []dubjson.Row) analytics.Counters {
	var s analytics.Counters
	for _, r := range rows {
		s.Clicks += r["clicks"].(int64)
		s.Leads += r["leads"].(int64)
		s.Sales += r["sales"].(int64)
		s.SaleAmount += r["saleAmount"].(int64)
	}
	return s
}

// checkComposite: the composite count is the three counts side by side.
func checkComposite(t *testing.T, w *world, n *naiveWorld, e analytics.Engine, name string, c filterCase) {
	t.Helper()
	qs := "event=composite&interval=all&groupBy=count&" + c.qs
	res, err := w.query(t, e, qs)
	if err != nil {
		t.Fatalf("%s %s: %v", name, qs, err)
	}
	var want analytics.Counters
	for _, ev := range []string{"clicks", "leads", "sales"} {
		x := n.naiveCount(c, ev, nil)[""]
		want.Clicks += x.Clicks
		want.Leads += x.Leads
		want.Sales += x.Sales
		want.SaleAmount += x.SaleAmount
	}
	if got := res.(analytics.Counters); got != want {
		t.Errorf("%s %s: %+v, naive %+v", name, qs, got, want)
	}
}

// seatsAtLeast is metadata['seats']>=n as the evaluator reads it: a string
// holding a number, compared as a number.
func seatsAtLeast(e *rawEvent, n float64) bool {
	v, err := strconv.ParseFloat(e.seats, 64)
	return err == nil && v >= n
}
