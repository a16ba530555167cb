// Package importertest holds local HTTP servers that answer as the import
// sources' documented APIs do (paging, tokens, a rate-limit answer), for the
// importer's tests and the console's. Every service takes the token Token,
// answers 401 to any other, and answers its Limited path's first request
// with a 429 and Retry-After: 7.
package importertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Token is the API token every fake service accepts.
const Token = "secret"

// Service is one fake service: Routes by path, the token read by Token.
type Service struct {
	Token   func(r *http.Request) string
	Routes  map[string]func(r *http.Request) any
	Limited string // the path whose first request gets a 429

	mu       sync.Mutex
	hits     map[string]int
	answered bool
}

// Reset makes the Limited path rate-limit its next request again.
func (f *Service) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answered = false
}

// Hits is how many requests path received.
func (f *Service) Hits(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[path]
}

func (f *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if f.hits == nil {
		f.hits = map[string]int{}
	}
	f.hits[r.URL.Path]++
	first := !f.answered && r.URL.Path == f.Limited
	f.answered = f.answered || first
	f.mu.Unlock()
	if f.Token(r) != Token {
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
	h := f.Routes[r.URL.Path]
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

// Bitly serves 151 bitlinks on go.acme.com (b0…b149; b1 archived, b0 with
// the custom bitlink go.acme.com/custom0) and one on bit.ly, 100 a page by
// search_after, in group G1.
func Bitly() *Service {
	var links []map[string]any
	for i := range 150 {
		links = append(links, map[string]any{"id": fmt.Sprintf("go.acme.com/b%d", i), "long_url": fmt.Sprintf("https://acme.com/%d", i),
			"title": "T" + strconv.Itoa(i), "archived": i == 1, "created_at": "2023-05-01T10:00:00+0000", "tags": []string{"bitly"},
			"custom_bitlinks": []string{}})
	}
	links[0]["custom_bitlinks"] = []string{"https://go.acme.com/custom0"}
	links = append(links, map[string]any{"id": "bit.ly/xyz", "long_url": "https://acme.com/x", "created_at": "2023-05-01T10:00:00+0000"})
	svc := &Service{Token: func(r *http.Request) string { return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") },
		Limited: "/v4/groups/G1/bitlinks"}
	svc.Routes = map[string]func(*http.Request) any{
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
	return svc
}

// Rebrandly serves 30 links r0…r29 on rb.acme.com (r29 on rebrand.ly),
// paged by last id.
func Rebrandly() *Service {
	var links []map[string]any
	for i := range 30 {
		links = append(links, map[string]any{"id": fmt.Sprintf("id%02d", i), "slashtag": fmt.Sprintf("r%d", i), "destination": "https://acme.com/r",
			"title": "R", "createdAt": "2022-01-02T03:04:05.000Z", "domain": map[string]any{"fullName": "rb.acme.com"},
			"tags": []any{map[string]any{"name": "rebrand"}}})
	}
	links[29]["domain"] = map[string]any{"fullName": "rebrand.ly"}
	svc := &Service{Token: func(r *http.Request) string { return r.Header.Get("apikey") }, Limited: "/v1/links"}
	svc.Routes = map[string]func(*http.Request) any{
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
	return svc
}

// ShortIO serves s.acme.com's 60 links (s0 is the root link: no path) and
// acme.short.gy's one, 50 a page by pageToken.
func ShortIO() *Service {
	var links []map[string]any
	for i := range 60 {
		links = append(links, map[string]any{"originalURL": "https://acme.com/s", "path": fmt.Sprintf("s%d", i), "title": "S",
			"archived": false, "tags": []string{"short"}, "createdAt": "2021-07-08T09:10:11.000Z"})
	}
	links[0]["path"] = "" // the root link: skipped
	svc := &Service{Token: func(r *http.Request) string { return r.Header.Get("Authorization") }, Limited: "/api/links"}
	svc.Routes = map[string]func(*http.Request) any{
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
	return svc
}

// Shlink serves 120 short URLs c0…c119 on sh.acme.com created 2024-02-03;
// c5 has two visits (2024-02-10 12:00 UTC from Paris on an iPhone via
// news.ycombinator.com, and 2024-03-01 06:00 UTC direct).
func Shlink() *Service {
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
	svc := &Service{Token: func(r *http.Request) string { return r.Header.Get("X-Api-Key") }, Limited: "/rest/v3/short-urls"}
	pag := func(page, pages, total int) map[string]any {
		return map[string]any{"currentPage": page, "pagesCount": pages, "totalItems": total}
	}
	svc.Routes = map[string]func(*http.Request) any{
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
			svc.Routes[fmt.Sprintf("/rest/v3/short-urls/c%d/visits", i)] = func(*http.Request) any {
				return map[string]any{"visits": map[string]any{"data": []any{}, "pagination": pag(1, 0, 0)}}
			}
		}
	}
	return svc
}

// Kutt serves 70 links k0…k69 on k.acme.com created 2020-10-11, by skip and
// limit; k13's target is javascript:alert(1), which Relink refuses.
func Kutt() *Service {
	var links []map[string]any
	for i := range 70 {
		links = append(links, map[string]any{"address": fmt.Sprintf("k%d", i), "target": "https://acme.com/k", "description": "K",
			"created_at": "2020-10-11T12:13:14.000Z", "link": fmt.Sprintf("https://k.acme.com/k%d", i)})
	}
	links[13]["target"] = "javascript:alert(1)"
	svc := &Service{Token: func(r *http.Request) string { return r.Header.Get("X-API-KEY") }, Limited: "/api/v2/links"}
	svc.Routes = map[string]func(*http.Request) any{
		"/api/v2/links": func(r *http.Request) any {
			skip, limit := qint(r, "skip", 0), qint(r, "limit", 10)
			return map[string]any{"data": links[min(skip, len(links)):min(skip+limit, len(links))], "total": len(links), "skip": skip, "limit": limit}
		},
	}
	return svc
}

// YOURLS serves 130 links y0…y129 on y.acme.com created 2019-04-05.
func YOURLS() *Service {
	svc := &Service{Token: func(r *http.Request) string { return r.URL.Query().Get("signature") }, Limited: "/yourls-api.php"}
	svc.Routes = map[string]func(*http.Request) any{
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
	return svc
}

// Dub serves 105 links d0…d104 on d.acme.com (d104 on dub.sh) in folder
// "Imported" with tag "dubbed"; link_3 (d3) has one click event on
// 2025-01-05 from Austin.
func Dub() *Service {
	var links []map[string]any
	for i := range 105 {
		links = append(links, map[string]any{"id": fmt.Sprintf("link_%d", i), "domain": "d.acme.com", "key": fmt.Sprintf("d%d", i),
			"url": "https://acme.com/d", "title": "D", "description": nil, "archived": false, "createdAt": "2025-01-02T03:04:05.000Z",
			"folderId": "fold_1", "tags": []any{map[string]any{"id": "tag_1", "name": "dubbed", "color": "red"}}})
	}
	links[104]["domain"] = "dub.sh"
	svc := &Service{Token: func(r *http.Request) string { return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") },
		Limited: "/links"}
	svc.Routes = map[string]func(*http.Request) any{
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
	return svc
}
