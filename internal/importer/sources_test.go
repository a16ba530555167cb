package importer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/importer"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// fakeService answers as a service's documented API: it checks the token
// (401 otherwise) and rate-limits the first request to limited with a 429
// and Retry-After: 7.
type fakeService struct {
	token   func(r *http.Request) string
	routes  map[string]func(r *http.Request) any
	limited string

	mu       sync.Mutex
	hits     map[string]int
	answered bool
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if f.hits == nil {
		f.hits = map[string]int{}
	}
	f.hits[r.URL.Path]++
	first := !f.answered && r.URL.Path == f.limited
	f.answered = f.answered || first
	f.mu.Unlock()
	if f.token(r) != "secret" {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"message":"Invalid API key"}`))
		return
	}
	if first {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"message":"rate limited"}`))
		return
	}
	h := f.routes[r.URL.Path]
	if h == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(h(r))
}

func qint(r *http.Request, k string, def int) int {
	if n, err := strconv.Atoi(r.URL.Query().Get(k)); err == nil {
		return n
	}
	return def
}

// pageOf returns items[(page-1)*size : page*size].
func pageOf[T any](items []T, page, size int) []T {
	lo := min((page-1)*size, len(items))
	return items[lo:min(lo+size, len(items))]
}

type sourceCase struct {
	name    string
	svc     *fakeService
	created int
	skipped int
	clicks  int
	check   func(t *testing.T, db *models.DB, ws *models.Workspace)
}

func TestAPISources(t *testing.T) {
	cases := []sourceCase{bitlyCase(), rebrandlyCase(), shortCase(), shlinkCase(), kuttCase(), yourlsCase(), dubCase()}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *models.DB) {
				ctx := context.Background()
				srv := httptest.NewServer(c.svc)
				defer srv.Close()
				svc, ws := setup(t, db, "imp")
				var waits []time.Duration
				opts := importer.APIOptions{BaseURL: srv.URL, Token: "wrong",
					Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
				src, err := importer.NewSource(c.name, opts)
				if err != nil {
					t.Fatal(err)
				}
				_, err = (&importer.Runner{Links: svc, Workspace: ws}).Run(ctx, src)
				if !errors.Is(err, importer.ErrAuth) || !strings.Contains(err.Error(), "check the token") {
					t.Fatalf("wrong token: %v", err)
				}
				c.svc.answered = false
				opts.Token = "secret"
				src, _ = importer.NewSource(c.name, opts)
				var last importer.Progress
				rep, err := (&importer.Runner{Links: svc, Workspace: ws, Progress: func(p importer.Progress) { last = p }}).Run(ctx, src)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Created != c.created || rep.Skipped != c.skipped || rep.Failed != 0 || rep.Clicks != c.clicks {
					t.Fatalf("report %+v", rep)
				}
				if len(waits) != 1 || waits[0] != 7*time.Second {
					t.Fatalf("rate-limit waits %v, want one of 7s (Retry-After)", waits)
				}
				if last.Total != rep.Done || last.Done != c.created+c.skipped {
					t.Fatalf("progress %+v report %+v", last, rep.Progress)
				}
				c.check(t, db, ws)
			})
		})
	}
}

func mustLink(t *testing.T, db *models.DB, ws *models.Workspace, domain, key string) *models.Link {
	t.Helper()
	l, err := db.LinkByDomainKey(context.Background(), domain, key)
	if err != nil {
		t.Fatalf("%s/%s: %v", domain, key, err)
	}
	if l.WorkspaceID != ws.ID {
		t.Fatalf("%s/%s in workspace %s", domain, key, l.WorkspaceID)
	}
	if err := db.LoadTags(context.Background(), []*models.Link{l}); err != nil {
		t.Fatal(err)
	}
	return l
}

func tagNames(l *models.Link) string {
	var n []string
	for _, t := range l.Tags {
		n = append(n, t.Name)
	}
	return strings.Join(n, ",")
}

func bitlyCase() sourceCase {
	var links []map[string]any
	for i := range 150 {
		links = append(links, map[string]any{"id": fmt.Sprintf("go.acme.com/b%d", i), "long_url": fmt.Sprintf("https://acme.com/%d", i),
			"title": "T" + strconv.Itoa(i), "archived": i == 1, "created_at": "2023-05-01T10:00:00+0000", "tags": []string{"bitly"},
			"custom_bitlinks": []string{}})
	}
	links[0]["custom_bitlinks"] = []string{"https://go.acme.com/custom0"}
	links = append(links, map[string]any{"id": "bit.ly/xyz", "long_url": "https://acme.com/x", "created_at": "2023-05-01T10:00:00+0000"})
	svc := &fakeService{token: func(r *http.Request) string { return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") },
		limited: "/v4/groups/G1/bitlinks"}
	svc.routes = map[string]func(*http.Request) any{
		"/v4/groups": func(*http.Request) any { return map[string]any{"groups": []any{map[string]any{"guid": "G1"}}} },
		"/v4/groups/G1/bitlinks": func(r *http.Request) any {
			start, _ := strconv.Atoi(r.URL.Query().Get("search_after"))
			page := links[start:min(start+100, len(links))]
			next := ""
			if start+100 < len(links) {
				next = strconv.Itoa(start + 100)
			}
			return map[string]any{"links": page, "pagination": map[string]any{"search_after": next, "total": len(links)}}
		},
	}
	return sourceCase{name: "bitly", svc: svc, created: 151, skipped: 1, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "go.acme.com", "b1")
		if l.URL != "https://acme.com/1" || !l.Archived || *l.Title != "T1" || tagNames(l) != "bitly" ||
			!l.CreatedAt.Equal(time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)) {
			t.Fatalf("b1 %+v", l)
		}
		if c := mustLink(t, db, ws, "go.acme.com", "custom0"); c.URL != "https://acme.com/0" {
			t.Fatalf("custom bitlink %+v", c)
		}
	}}
}

func rebrandlyCase() sourceCase {
	var links []map[string]any
	for i := range 30 {
		links = append(links, map[string]any{"id": fmt.Sprintf("id%02d", i), "slashtag": fmt.Sprintf("r%d", i), "destination": "https://acme.com/r",
			"title": "R", "createdAt": "2022-01-02T03:04:05.000Z", "domain": map[string]any{"fullName": "rb.acme.com"},
			"tags": []any{map[string]any{"name": "rebrand"}}})
	}
	links[29]["domain"] = map[string]any{"fullName": "rebrand.ly"}
	svc := &fakeService{token: func(r *http.Request) string { return r.Header.Get("apikey") }, limited: "/v1/links"}
	svc.routes = map[string]func(*http.Request) any{
		"/v1/links/count": func(*http.Request) any { return map[string]any{"count": len(links)} },
		"/v1/links": func(r *http.Request) any {
			start := 0
			if last := r.URL.Query().Get("last"); last != "" {
				n, _ := strconv.Atoi(strings.TrimPrefix(last, "id"))
				start = n + 1
			}
			return links[start:min(start+qint(r, "limit", 25), len(links))]
		},
	}
	return sourceCase{name: "rebrandly", svc: svc, created: 29, skipped: 1, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "rb.acme.com", "r28")
		if l.URL != "https://acme.com/r" || tagNames(l) != "rebrand" || l.CreatedAt.Year() != 2022 {
			t.Fatalf("r28 %+v", l)
		}
	}}
}

func shortCase() sourceCase {
	var links []map[string]any
	for i := range 60 {
		links = append(links, map[string]any{"originalURL": "https://acme.com/s", "path": fmt.Sprintf("s%d", i), "title": "S",
			"archived": false, "tags": []string{"short"}, "createdAt": "2021-07-08T09:10:11.000Z"})
	}
	links[0]["path"] = "" // the root link: skipped
	svc := &fakeService{token: func(r *http.Request) string { return r.Header.Get("Authorization") }, limited: "/api/links"}
	svc.routes = map[string]func(*http.Request) any{
		"/api/domains": func(*http.Request) any {
			return []any{map[string]any{"id": 7, "hostname": "s.acme.com"}, map[string]any{"id": 8, "hostname": "acme.short.gy"}}
		},
		"/api/links": func(r *http.Request) any {
			if r.URL.Query().Get("domain_id") == "8" {
				return map[string]any{"links": []any{map[string]any{"originalURL": "https://acme.com", "path": "gy"}}, "count": 1}
			}
			start, _ := strconv.Atoi(r.URL.Query().Get("pageToken"))
			end := min(start+50, len(links))
			next := ""
			if end < len(links) {
				next = strconv.Itoa(end)
			}
			return map[string]any{"links": links[start:end], "count": len(links), "nextPageToken": next}
		},
	}
	return sourceCase{name: "short", svc: svc, created: 59, skipped: 2, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "s.acme.com", "s59")
		if tagNames(l) != "short" || l.CreatedAt.Year() != 2021 {
			t.Fatalf("s59 %+v", l)
		}
	}}
}

func shlinkCase() sourceCase {
	var urls []map[string]any
	for i := range 120 {
		urls = append(urls, map[string]any{"shortCode": fmt.Sprintf("c%d", i), "shortUrl": fmt.Sprintf("https://sh.acme.com/c%d", i),
			"longUrl": "https://acme.com/sh", "dateCreated": "2024-02-03T04:05:06+00:00", "title": nil, "tags": []string{"shl"}, "domain": nil})
	}
	visits := []any{
		map[string]any{"referer": "https://news.ycombinator.com/", "date": "2024-02-10T12:00:00+00:00",
			"userAgent":     "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
			"visitLocation": map[string]any{"countryCode": "FR", "regionName": "IDF", "cityName": "Paris"}, "potentialBot": false},
		map[string]any{"referer": "", "date": "2024-03-01T08:00:00+02:00", "userAgent": "", "visitLocation": nil},
	}
	svc := &fakeService{token: func(r *http.Request) string { return r.Header.Get("X-Api-Key") }, limited: "/rest/v3/short-urls"}
	pag := func(page, pages, total int) map[string]any {
		return map[string]any{"currentPage": page, "pagesCount": pages, "totalItems": total}
	}
	svc.routes = map[string]func(*http.Request) any{
		"/rest/v3/short-urls": func(r *http.Request) any {
			p, n := qint(r, "page", 1), qint(r, "itemsPerPage", 10)
			return map[string]any{"shortUrls": map[string]any{"data": pageOf(urls, p, n), "pagination": pag(p, (len(urls)+n-1)/n, len(urls))}}
		},
		"/rest/v3/short-urls/c5/visits": func(r *http.Request) any {
			p := qint(r, "page", 1)
			return map[string]any{"visits": map[string]any{"data": pageOf(visits, p, 1), "pagination": pag(p, 2, 2)}}
		},
	}
	for i := range 120 {
		if i != 5 {
			svc.routes[fmt.Sprintf("/rest/v3/short-urls/c%d/visits", i)] = func(*http.Request) any {
				return map[string]any{"visits": map[string]any{"data": []any{}, "pagination": pag(1, 0, 0)}}
			}
		}
	}
	return sourceCase{name: "shlink", svc: svc, created: 120, clicks: 2, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "sh.acme.com", "c5")
		if l.Clicks != 2 || tagNames(l) != "shl" {
			t.Fatalf("c5 %+v", l)
		}
		cs, _ := db.ClicksOfLink(context.Background(), ws.ID, l.ID, 10)
		if len(cs) != 2 || !cs[0].Timestamp.Equal(time.Date(2024, 2, 10, 12, 0, 0, 0, time.UTC)) || cs[0].Country != "FR" ||
			cs[0].Continent != "EU" || cs[0].Device != "Mobile" || cs[0].Referer != "news.ycombinator.com" ||
			!cs[1].Timestamp.Equal(time.Date(2024, 3, 1, 6, 0, 0, 0, time.UTC)) {
			t.Fatalf("visits %+v", cs)
		}
	}}
}

func kuttCase() sourceCase {
	var links []map[string]any
	for i := range 70 {
		links = append(links, map[string]any{"address": fmt.Sprintf("k%d", i), "target": "https://acme.com/k", "description": "K",
			"created_at": "2020-10-11T12:13:14.000Z", "link": fmt.Sprintf("https://k.acme.com/k%d", i)})
	}
	svc := &fakeService{token: func(r *http.Request) string { return r.Header.Get("X-API-KEY") }, limited: "/api/v2/links"}
	svc.routes = map[string]func(*http.Request) any{
		"/api/v2/links": func(r *http.Request) any {
			skip, limit := qint(r, "skip", 0), qint(r, "limit", 10)
			return map[string]any{"data": links[min(skip, len(links)):min(skip+limit, len(links))], "total": len(links), "skip": skip, "limit": limit}
		},
	}
	return sourceCase{name: "kutt", svc: svc, created: 70, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "k.acme.com", "k69")
		if *l.Description != "K" || l.CreatedAt.Year() != 2020 {
			t.Fatalf("k69 %+v", l)
		}
	}}
}

func yourlsCase() sourceCase {
	svc := &fakeService{token: func(r *http.Request) string { return r.URL.Query().Get("signature") }, limited: "/yourls-api.php"}
	svc.routes = map[string]func(*http.Request) any{
		"/yourls-api.php": func(r *http.Request) any {
			if r.URL.Query().Get("action") == "db-stats" {
				return map[string]any{"db-stats": map[string]any{"total_links": "130", "total_clicks": "9"}}
			}
			start, limit := qint(r, "start", 0), qint(r, "limit", 10)
			out := map[string]any{}
			for i := start; i < min(start+limit, 130); i++ {
				out["link_"+strconv.Itoa(i-start+1)] = map[string]any{"shorturl": fmt.Sprintf("http://y.acme.com/y%d", i),
					"url": "https://acme.com/y", "title": "Y", "timestamp": "2019-04-05 06:07:08", "clicks": "3"}
			}
			return map[string]any{"links": out, "stats": map[string]any{"total_links": "130"}}
		},
	}
	return sourceCase{name: "yourls", svc: svc, created: 130, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "y.acme.com", "y129")
		if *l.Title != "Y" || !l.CreatedAt.Equal(time.Date(2019, 4, 5, 6, 7, 8, 0, time.UTC)) {
			t.Fatalf("y129 %+v", l)
		}
	}}
}

func dubCase() sourceCase {
	var links []map[string]any
	for i := range 105 {
		links = append(links, map[string]any{"id": fmt.Sprintf("link_%d", i), "domain": "d.acme.com", "key": fmt.Sprintf("d%d", i),
			"url": "https://acme.com/d", "title": "D", "description": nil, "archived": false, "createdAt": "2025-01-02T03:04:05.000Z",
			"folderId": "fold_1", "tags": []any{map[string]any{"id": "tag_1", "name": "dubbed", "color": "red"}}})
	}
	links[104]["domain"] = "dub.sh"
	svc := &fakeService{token: func(r *http.Request) string { return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") },
		limited: "/links"}
	svc.routes = map[string]func(*http.Request) any{
		"/folders":     func(*http.Request) any { return []any{map[string]any{"id": "fold_1", "name": "Imported"}} },
		"/links/count": func(*http.Request) any { return len(links) },
		"/links": func(r *http.Request) any {
			return pageOf(links, qint(r, "page", 1), qint(r, "pageSize", 100))
		},
		"/events": func(r *http.Request) any {
			if r.URL.Query().Get("linkId") != "link_3" || r.URL.Query().Get("event") != "clicks" || qint(r, "page", 1) > 1 {
				return []any{}
			}
			return []any{map[string]any{"event": "click", "timestamp": "2025-01-05T10:00:00.000Z", "click": map[string]any{
				"id": "c1", "timestamp": "2025-01-05T10:00:00.000Z", "country": "US", "city": "Austin", "region": "US-TX",
				"continent": "NA", "device": "Desktop", "browser": "Chrome", "os": "Mac OS", "referer": "google.com",
				"refererUrl": "https://google.com/"}}}
		},
	}
	return sourceCase{name: "dub", svc: svc, created: 104, skipped: 1, clicks: 1, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "d.acme.com", "d3")
		if tagNames(l) != "dubbed" || l.FolderID == nil || l.Clicks != 1 || l.CreatedAt.Year() != 2025 {
			t.Fatalf("d3 %+v", l)
		}
		cs, _ := db.ClicksOfLink(context.Background(), ws.ID, l.ID, 10)
		if len(cs) != 1 || cs[0].City != "Austin" || cs[0].RefererURL != "https://google.com/" || cs[0].Timestamp.Day() != 5 {
			t.Fatalf("clicks %+v", cs)
		}
	}}
}

func TestNewSourceErrors(t *testing.T) {
	if _, err := importer.NewSource("nope", importer.APIOptions{Token: "x"}); err == nil || !strings.Contains(err.Error(), "bitly") {
		t.Fatalf("unknown source: %v", err)
	}
	if _, err := importer.NewSource("shlink", importer.APIOptions{Token: "x"}); err == nil || !strings.Contains(err.Error(), "base URL") {
		t.Fatalf("self-hosted without base: %v", err)
	}
	if _, err := importer.NewSource("bitly", importer.APIOptions{}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("no token: %v", err)
	}
	if _, err := importer.NewSource("kutt", importer.APIOptions{Token: "x", BaseURL: "ftp://x"}); err == nil {
		t.Fatal("ftp base accepted")
	}
}

// TestRateLimitGivesUp: a service that never stops answering 429 fails the
// run with a clear message after the retries.
func TestRateLimitGivesUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	n := 0
	src, _ := importer.NewSource("kutt", importer.APIOptions{BaseURL: srv.URL, Token: "t", Retries: 3,
		Sleep: func(context.Context, time.Duration) error { n++; return nil }})
	err := src.Each(context.Background(), func(importer.Link) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "still rate-limited") || n != 3 {
		t.Fatalf("err %v after %d waits", err, n)
	}
}
