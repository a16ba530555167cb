package importer

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// sizer lets an API source report a total it learns while paging.
type sizer struct{ total int }

// Total implements Sized (0 until the first page told it).
func (s *sizer) Total() int { return s.total }

// Bitly reads every group's bitlinks (API v4: GET /v4/groups, then
// /v4/groups/{guid}/bitlinks?size=100 paged by pagination.search_after),
// mapped as Dub's Bitly importer: id "domain/key", long_url, title,
// archived, created_at, tags by name, and each custom bitlink as a link of
// its own. Links on bit.ly itself (and j.mp) are skipped: only Bitly
// serves them.
type Bitly struct {
	api
	sizer
}

type bitlink struct {
	ID             string   `json:"id"`
	LongURL        string   `json:"long_url"`
	Title          string   `json:"title"`
	Archived       bool     `json:"archived"`
	CreatedAt      string   `json:"created_at"`
	CustomBitlinks []string `json:"custom_bitlinks"`
	Tags           []string `json:"tags"`
}

// Name implements Source.
func (b *Bitly) Name() string { return "Bitly" }

// Each implements Source.
func (b *Bitly) Each(ctx context.Context, fn func(Link) error) error {
	var groups struct {
		Groups []struct {
			GUID string `json:"guid"`
		} `json:"groups"`
	}
	if err := b.get(ctx, "/v4/groups", nil, &groups); err != nil {
		return err
	}
	row := 0
	for _, g := range groups.Groups {
		after := ""
		for {
			q := url.Values{"size": {"100"}}
			if after != "" {
				q.Set("search_after", after)
			}
			var page struct {
				Links      []bitlink `json:"links"`
				Pagination struct {
					SearchAfter string `json:"search_after"`
					Total       int    `json:"total"`
				} `json:"pagination"`
			}
			if err := b.get(ctx, "/v4/groups/"+url.PathEscape(g.GUID)+"/bitlinks", q, &page); err != nil {
				return err
			}
			if after == "" {
				b.total += page.Pagination.Total
			}
			for _, bl := range page.Links {
				for _, l := range bitlyLinks(bl) {
					row++
					l.Row = row
					if err := fn(l); err != nil {
						return err
					}
				}
			}
			after = page.Pagination.SearchAfter
			if after == "" || len(page.Links) == 0 {
				break
			}
		}
	}
	return nil
}

func bitlyLinks(bl bitlink) []Link {
	base := Link{URL: bl.LongURL, Title: bl.Title, Archived: bl.Archived, CreatedAt: parseAPITime(bl.CreatedAt), Tags: bl.Tags}
	var out []Link
	for i, short := range append([]string{bl.ID}, bl.CustomBitlinks...) {
		l := base
		d, k, ok := splitShort(short)
		l.Domain, l.Key = d, k
		switch {
		case !ok || k == "":
			l.Invalid = "Invalid link format: " + short
		case d == "bit.ly" || d == "j.mp":
			if i > 0 {
				continue
			}
			l.Skip = d + " links stay on Bitly: only links on your own domains are imported"
		}
		out = append(out, l)
	}
	return out
}

// Rebrandly reads GET /v1/links (25 a page, ordered by creation, paged with
// last=<id>), mapped as Dub's Rebrandly importer: domain.fullName,
// slashtag, destination, title, createdAt, tags by name.
type Rebrandly struct {
	api
	sizer
}

// Name implements Source.
func (r *Rebrandly) Name() string { return "Rebrandly" }

// Each implements Source.
func (r *Rebrandly) Each(ctx context.Context, fn func(Link) error) error {
	var count struct {
		Count int `json:"count"`
	}
	if err := r.get(ctx, "/v1/links/count", nil, &count); err != nil {
		return err
	}
	r.total = count.Count
	last, row := "", 0
	for {
		q := url.Values{"orderBy": {"createdAt"}, "orderDir": {"desc"}, "limit": {"25"}}
		if last != "" {
			q.Set("last", last)
		}
		var page []struct {
			ID          string `json:"id"`
			Slashtag    string `json:"slashtag"`
			Destination string `json:"destination"`
			Title       string `json:"title"`
			CreatedAt   string `json:"createdAt"`
			Domain      struct {
				FullName string `json:"fullName"`
			} `json:"domain"`
			Tags []struct {
				Name string `json:"name"`
			} `json:"tags"`
		}
		if err := r.get(ctx, "/v1/links", q, &page); err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		for _, p := range page {
			row++
			l := Link{Row: row, Domain: p.Domain.FullName, Key: p.Slashtag, URL: p.Destination, Title: p.Title,
				CreatedAt: parseAPITime(p.CreatedAt)}
			for _, t := range p.Tags {
				l.Tags = append(l.Tags, t.Name)
			}
			if l.Domain == "rebrand.ly" {
				l.Skip = "rebrand.ly links stay on Rebrandly: only links on your own domains are imported"
			}
			if err := fn(l); err != nil {
				return err
			}
		}
		last = page[len(page)-1].ID
	}
}

// ShortIO reads GET /api/domains, then each domain's GET /api/links
// (domain_id, 50 a page, nextPageToken), mapped as Dub's Short.io
// importer: path, originalURL, title, archived, tags, createdAt. Root links
// (empty path) and the shared *.short.gy domains are skipped.
type ShortIO struct {
	api
	sizer
}

// Name implements Source.
func (s *ShortIO) Name() string { return "Short.io" }

// Each implements Source.
func (s *ShortIO) Each(ctx context.Context, fn func(Link) error) error {
	var domains []struct {
		ID       int    `json:"id"`
		Hostname string `json:"hostname"`
	}
	if err := s.get(ctx, "/api/domains", nil, &domains); err != nil {
		return err
	}
	row := 0
	for _, d := range domains {
		token := ""
		for {
			q := url.Values{"domain_id": {strconv.Itoa(d.ID)}, "limit": {"50"}}
			if token != "" {
				q.Set("pageToken", token)
			}
			var page struct {
				Links []struct {
					OriginalURL string   `json:"originalURL"`
					Path        string   `json:"path"`
					Title       string   `json:"title"`
					Archived    bool     `json:"archived"`
					Tags        []string `json:"tags"`
					CreatedAt   string   `json:"createdAt"`
				} `json:"links"`
				Count         int    `json:"count"`
				NextPageToken string `json:"nextPageToken"`
			}
			if err := s.get(ctx, "/api/links", q, &page); err != nil {
				return err
			}
			if token == "" {
				s.total += page.Count
			}
			for _, p := range page.Links {
				row++
				l := Link{Row: row, Domain: d.Hostname, Key: p.Path, URL: p.OriginalURL, Title: p.Title,
					Archived: p.Archived, Tags: p.Tags, CreatedAt: parseAPITime(p.CreatedAt)}
				if strings.HasSuffix(strings.ToLower(d.Hostname), ".short.gy") {
					l.Skip = d.Hostname + " is Short.io's shared domain: only links on your own domains are imported"
				}
				if err := fn(l); err != nil {
					return err
				}
			}
			token = page.NextPageToken
			if token == "" || len(page.Links) == 0 {
				break
			}
		}
	}
	return nil
}

// Kutt reads GET /api/v2/links (limit/skip paging, X-API-KEY): address is
// the key, target the URL, description, created_at; the domain comes from
// the link's short URL.
type Kutt struct {
	api
	sizer
}

// Name implements Source.
func (k *Kutt) Name() string { return "Kutt" }

// Each implements Source.
func (k *Kutt) Each(ctx context.Context, fn func(Link) error) error {
	const limit = 50
	for skip := 0; ; {
		var page struct {
			Data []struct {
				Address     string `json:"address"`
				Target      string `json:"target"`
				Description string `json:"description"`
				CreatedAt   string `json:"created_at"`
				Link        string `json:"link"`
				Domain      string `json:"domain"`
			} `json:"data"`
			Total int `json:"total"`
		}
		q := url.Values{"limit": {strconv.Itoa(limit)}, "skip": {strconv.Itoa(skip)}}
		if err := k.get(ctx, "/api/v2/links", q, &page); err != nil {
			return err
		}
		k.total = page.Total
		for i, p := range page.Data {
			l := Link{Row: skip + i + 1, Key: p.Address, URL: p.Target, Description: p.Description, CreatedAt: parseAPITime(p.CreatedAt)}
			if d, _, ok := splitShort(p.Link); ok {
				l.Domain = d
			} else if p.Domain != "" {
				l.Domain = p.Domain
			}
			if l.Domain == "kutt.it" {
				l.Skip = "kutt.it links stay on Kutt: only links on your own domains are imported"
			}
			if err := fn(l); err != nil {
				return err
			}
		}
		skip += len(page.Data)
		if len(page.Data) == 0 || skip >= page.Total {
			return nil
		}
	}
}

// YOURLS reads yourls-api.php (signature token): action=db-stats for the
// total, then action=stats&filter=last pages (limit, start). The API has no
// click log; a database dump does (see YOURLSDump).
type YOURLS struct {
	api
	sizer
}

// Name implements Source.
func (y *YOURLS) Name() string { return "YOURLS" }

func (y *YOURLS) call(ctx context.Context, q url.Values, out any) error {
	q.Set("format", "json")
	q.Set("signature", y.o.Token)
	return y.get(ctx, "/yourls-api.php", q, out)
}

// Each implements Source.
func (y *YOURLS) Each(ctx context.Context, fn func(Link) error) error {
	var db struct {
		Stats struct {
			TotalLinks any `json:"total_links"`
		} `json:"db-stats"`
	}
	if err := y.call(ctx, url.Values{"action": {"db-stats"}}, &db); err != nil {
		return err
	}
	y.total, _ = strconv.Atoi(fmt.Sprint(db.Stats.TotalLinks))
	const limit = 100
	for start := 0; start < y.total; start += limit {
		var page struct {
			Links map[string]struct {
				ShortURL  string `json:"shorturl"`
				URL       string `json:"url"`
				Title     string `json:"title"`
				Timestamp string `json:"timestamp"`
			} `json:"links"`
		}
		q := url.Values{"action": {"stats"}, "filter": {"last"}, "limit": {strconv.Itoa(limit)}, "start": {strconv.Itoa(start)}}
		if err := y.call(ctx, q, &page); err != nil {
			return err
		}
		if len(page.Links) == 0 {
			return nil
		}
		for i := 1; i <= len(page.Links); i++ {
			p, ok := page.Links["link_"+strconv.Itoa(i)]
			if !ok {
				continue
			}
			d, k, _ := splitShort(p.ShortURL)
			l := Link{Row: start + i, Domain: d, Key: k, URL: p.URL, Title: p.Title, CreatedAt: parseAPITime(p.Timestamp)}
			if err := fn(l); err != nil {
				return err
			}
		}
	}
	return nil
}
