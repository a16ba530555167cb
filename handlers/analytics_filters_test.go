package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/conversions/convtest"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// httpFilter is one filter parameter of GET /analytics and GET /events
// with a value the workspace's one click, lead and sale match (hit) and
// one they do not (miss; "" when the parameter has no such value that is
// not an error, e.g. an unknown folder is 404). lists: the parameter takes
// a comma list and a "-" exclusion (spec/analytics.md §2.1). hitKeeps and
// missKeeps are what each value keeps of the click, the lead and the sale.
type httpFilter struct {
	param, hit, miss    string
	lists               bool
	hitKeeps, missKeeps [3]int64
}

var (
	keepAll  = [3]int64{1, 1, 1}
	keepNone = [3]int64{}
)

// filterWorld is the "filters" workspace: its link carries everything a
// filter can name (tag, folder, tenant, external id, partner and group,
// every UTM parameter) and one click, lead and sale. It returns the
// filters of the analytics contract with values for it.
func filterWorld(t *testing.T, e *analyticsEnv) []httpFilter {
	t.Helper()
	ctx := context.Background()
	e.urls["filters"] = "https://filters.example/p?utm_source=news&utm_medium=email&utm_campaign=spring&utm_term=shoes&utm_content=hero"
	e.workspace("filters", models.PlanEnterprise, true)
	ws, l := e.ws["filters"], e.links["filters"]
	svc := convtest.New(t, e.db, func() time.Time { return e.clock })
	ep, err := svc.EnrollPartner(ctx, ws, conversions.EnrollInput{Email: "pat@filters.example"})
	if err != nil {
		t.Fatal(err)
	}
	group := ""
	if ep.Enrollment.GroupID != nil {
		group = *ep.Enrollment.GroupID
	}
	tag := &models.Tag{ID: ids.New(ids.Tag), WorkspaceID: ws.ID, Name: "launch", Color: "red"}
	folder := &models.Folder{ID: ids.New(ids.Folder), WorkspaceID: ws.ID, Name: "Campaigns", Type: "default"}
	for _, r := range []any{tag, folder} {
		if err := e.db.WithContext(ctx).Create(r).Error; err != nil {
			t.Fatal(err)
		}
	}
	if err := e.db.Exec("INSERT INTO link_tags (link_id, tag_id, created_at) VALUES (?, ?, ?)", l.ID, tag.ID, e.clock).Error; err != nil {
		t.Fatal(err)
	}
	if err := e.db.Exec("UPDATE links SET folder_id = ?, tenant_id = ?, external_id = ?, program_id = ?, partner_id = ? WHERE id = ?",
		folder.ID, "tenant-1", "shop-1", ep.Enrollment.ProgramID, ep.Partner.ID, l.ID).Error; err != nil {
		t.Fatal(err)
	}
	// interval=all's timeseries starts at the workspace's creation.
	if err := e.db.Exec("UPDATE workspaces SET created_at = ? WHERE id = ?", e.clock.AddDate(0, -1, 0), ws.ID).Error; err != nil {
		t.Fatal(err)
	}
	ws.CreatedAt = e.clock.AddDate(0, -1, 0)
	var customer string
	if err := e.db.Raw("SELECT id FROM customers WHERE workspace_id = ?", ws.ID).Row().Scan(&customer); err != nil {
		t.Fatal(err)
	}
	f := func(param, hit, miss string, lists bool) httpFilter {
		return httpFilter{param: param, hit: hit, miss: miss, lists: lists, hitKeeps: keepAll, missKeeps: keepNone}
	}
	return []httpFilter{
		f("domain", "filters.link", "beta.link", true),
		f("linkId", l.ID, "link_none", true),
		f("tenantId", "tenant-1", "tenant-2", true),
		f("tagId", tag.ID, "tag_none", true),
		f("folderId", folder.ID, "", true),
		f("groupId", group, "grp_none", true),
		f("partnerId", ep.Partner.ID, "pn_none", true),
		f("country", "US", "DE", true),
		f("city", "San Francisco", "Berlin", true),
		f("continent", "NA", "EU", true),
		f("device", "mobile", "desktop", true),
		f("browser", "mobile safari", "chrome", true),
		f("os", "iOS", "android", true),
		f("trigger", "qr", "link", true),
		f("referer", "google.com", "(direct)", true),
		f("refererUrl", "https://www.google.com/", "https://news.example/post", true),
		f("url", "https://filters.example/p", "https://filters.example/q", true),
		f("utm_source", "news", "ads", true),
		f("utm_medium", "email", "cpc", true),
		f("utm_campaign", "spring", "winter", true),
		f("utm_term", "shoes", "hats", true),
		f("utm_content", "hero", "footer", true),
		// key names a link with domain (alone it filters nothing); an
		// unknown key or external id is 404 Link not found.
		f("domain=filters.link&key", "go", "", false),
		f("key", "go", "", false),
		f("externalId", "ext_shop-1", "", false),
		f("customerId", customer, "cus_none", false),
		f("region", "US-CA", "US-NY", false),
		f("root", "false", "true", false),
		// saleType filters sales only; the metadata query leads and sales
		// (the sale carries no metadata).
		{param: "saleType", hit: "new", miss: "recurring", hitKeeps: keepAll, missKeeps: [3]int64{1, 1, 0}},
		{param: "query", hit: "metadata['plan']:'pro'", miss: "metadata['plan']:'free'", hitKeeps: [3]int64{1, 1, 0}, missKeeps: [3]int64{1, 0, 0}},
	}
}

// filterForm is one value of a filter with what it keeps.
type filterForm struct {
	qs     string
	keeps  [3]int64
	single bool
}

func (f httpFilter) forms() []filterForm {
	qs := func(v string) string {
		if v == "" {
			return ""
		}
		return f.param + "=" + url.QueryEscape(v)
	}
	out := []filterForm{{qs(f.hit), f.hitKeeps, true}}
	if f.miss != "" {
		out = append(out, filterForm{qs(f.miss), f.missKeeps, true})
	}
	if f.lists {
		miss := f.miss
		if miss == "" {
			miss = "none"
		}
		out = append(out, filterForm{qs(f.hit + "," + miss), f.hitKeeps, false}, filterForm{qs("-" + f.hit + "," + miss), f.missKeeps, false})
	}
	return out
}

// TestEveryFilterOverHTTP sends every filter parameter of the analytics
// contract (single value, comma list, exclusion) to GET /analytics
// (composite count, each event's count, a timeseries and top_links), GET
// /events for each event and both exports, on both dialects, and compares
// each answer with what the value keeps of the workspace's one click, lead
// and sale. (TestEveryFilter in internal/analytics holds every engine to a
// naive count over hundreds of events; this is the same list over the API.)
func TestEveryFilterOverHTTP(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newAnalyticsEnv(t, db)
		filters := filterWorld(t, e)
		if len(filters) != 30 {
			t.Fatalf("%d filters", len(filters))
		}
		get := func(path string, out any) {
			t.Helper()
			status, body := e.get("filters", path)
			if status != 200 {
				t.Fatalf("%s: %d %.300s", path, status, body)
			}
			if out != nil {
				if err := json.Unmarshal(body, out); err != nil {
					t.Fatalf("%s: %v %.300s", path, err, body)
				}
			}
		}
		events := []string{"clicks", "leads", "sales"}
		for _, f := range filters {
			for _, form := range f.forms() {
				base := "interval=all&" + form.qs
				var count map[string]int64
				get("/analytics?event=composite&"+base, &count)
				if got := [3]int64{count["clicks"], count["leads"], count["sales"]}; got != form.keeps {
					t.Errorf("/analytics?event=composite&%s: %v, want %v", form.qs, got, form.keeps)
				}
				for i, ev := range events {
					var list []map[string]any
					get("/events?event="+ev+"&"+base, &list)
					if int64(len(list)) != form.keeps[i] {
						t.Errorf("/events?event=%s&%s: %d events, want %d", ev, form.qs, len(list), form.keeps[i])
					}
				}
				if !form.single {
					continue
				}
				var series, top []map[string]any
				get("/analytics?event=composite&groupBy=timeseries&"+base, &series)
				get("/analytics?event=sales&groupBy=top_links&"+base, &top)
				if a, b := sum(series, "clicks")+sum(series, "leads")+sum(series, "sales"), form.keeps[0]+form.keeps[1]+form.keeps[2]; a != b {
					t.Errorf("timeseries %s: %d events, want %d", form.qs, a, b)
				}
				if a := sum(top, "sales"); a != form.keeps[2] {
					t.Errorf("top_links %s: %d sales, want %d", form.qs, a, form.keeps[2])
				}
				// (The exports' rate limit is once every 30 seconds.)
				e.clock = e.clock.Add(30 * time.Second)
				get("/analytics/export?"+base, nil)
				e.clock = e.clock.Add(30 * time.Second)
				get("/events/export?event=sales&"+base, nil)
			}
		}
	})
}

func sum(rows []map[string]any, k string) int64 {
	var n int64
	for _, r := range rows {
		if v, ok := r[k].(float64); ok {
			n += int64(v)
		} else if r[k] != nil {
			panic(fmt.Sprintf("%s: %T", k, r[k]))
		}
	}
	return n
}
