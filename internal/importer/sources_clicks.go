package importer

import (
	"context"
	"net/url"
	"strconv"
)

// Shlink reads a Shlink server's REST API v3 (X-Api-Key): GET
// /rest/v3/short-urls paged by page/itemsPerPage, and for each short URL
// its visits (GET /rest/v3/short-urls/{code}/visits, paged likewise) as
// clicks on their original dates: country, region, city, referer and the
// user agent's device, browser and OS. A short URL without a domain is on
// the server's default domain, taken from its shortUrl.
type Shlink struct {
	api
	sizer
}

// Name implements Source.
func (s *Shlink) Name() string { return "Shlink" }

type shlinkPagination struct {
	CurrentPage int `json:"currentPage"`
	PagesCount  int `json:"pagesCount"`
	TotalItems  int `json:"totalItems"`
}

// Each implements Source.
func (s *Shlink) Each(ctx context.Context, fn func(Link) error) error {
	row := 0
	for page := 1; ; page++ {
		var res struct {
			ShortURLs struct {
				Data []struct {
					ShortCode   string   `json:"shortCode"`
					ShortURL    string   `json:"shortUrl"`
					LongURL     string   `json:"longUrl"`
					DateCreated string   `json:"dateCreated"`
					Title       string   `json:"title"`
					Tags        []string `json:"tags"`
					Domain      *string  `json:"domain"`
				} `json:"data"`
				Pagination shlinkPagination `json:"pagination"`
			} `json:"shortUrls"`
		}
		q := url.Values{"page": {strconv.Itoa(page)}, "itemsPerPage": {"100"}}
		if err := s.get(ctx, "/rest/v3/short-urls", q, &res); err != nil {
			return err
		}
		s.total = res.ShortURLs.Pagination.TotalItems
		for _, u := range res.ShortURLs.Data {
			row++
			l := Link{Row: row, Key: u.ShortCode, URL: u.LongURL, Title: u.Title, Tags: u.Tags, CreatedAt: parseAPITime(u.DateCreated)}
			if d, _, ok := splitShort(u.ShortURL); ok {
				l.Domain = d
			}
			if !s.o.NoClicks {
				clicks, err := s.visits(ctx, u.ShortCode, u.Domain)
				if err != nil {
					return err
				}
				l.Clicks = clicks
			}
			if err := fn(l); err != nil {
				return err
			}
		}
		p := res.ShortURLs.Pagination
		if len(res.ShortURLs.Data) == 0 || p.CurrentPage >= p.PagesCount {
			return nil
		}
	}
}

func (s *Shlink) visits(ctx context.Context, code string, domain *string) ([]Click, error) {
	var out []Click
	for page := 1; ; page++ {
		var res struct {
			Visits struct {
				Data []struct {
					Referer       string `json:"referer"`
					Date          string `json:"date"`
					UserAgent     string `json:"userAgent"`
					PotentialBot  bool   `json:"potentialBot"`
					VisitLocation *struct {
						CountryCode string `json:"countryCode"`
						RegionName  string `json:"regionName"`
						CityName    string `json:"cityName"`
					} `json:"visitLocation"`
				} `json:"data"`
				Pagination shlinkPagination `json:"pagination"`
			} `json:"visits"`
		}
		q := url.Values{"page": {strconv.Itoa(page)}, "itemsPerPage": {"1000"}}
		if domain != nil && *domain != "" {
			q.Set("domain", *domain)
		}
		if err := s.get(ctx, "/rest/v3/short-urls/"+url.PathEscape(code)+"/visits", q, &res); err != nil {
			return nil, err
		}
		for _, v := range res.Visits.Data {
			c := Click{Timestamp: parseAPITime(v.Date), Referer: v.Referer, UserAgent: v.UserAgent}
			if v.VisitLocation != nil {
				c.Country, c.Region, c.City = v.VisitLocation.CountryCode, v.VisitLocation.RegionName, v.VisitLocation.CityName
			}
			out = append(out, c)
		}
		p := res.Visits.Pagination
		if len(res.Visits.Data) == 0 || p.CurrentPage >= p.PagesCount {
			return out, nil
		}
	}
}

// Dub reads another Dub (or Relink) workspace through Dub's public API with
// an API key: GET /folders for folder names, GET /links (page/pageSize
// 100) with their tags, and for each link its click events (GET /events
// ?event=clicks&interval=all&linkId=…, page/limit 1000) as clicks on their
// original dates.
type Dub struct {
	api
	sizer
}

// Name implements Source.
func (d *Dub) Name() string { return "Dub" }

// Each implements Source.
func (d *Dub) Each(ctx context.Context, fn func(Link) error) error {
	folders := map[string]string{}
	for page := 1; ; page++ {
		var fs []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}
		if err := d.get(ctx, "/folders", url.Values{"page": {strconv.Itoa(page)}, "pageSize": {"50"}}, &fs); err != nil {
			return err
		}
		for _, f := range fs {
			folders[f.ID] = f.Name
		}
		if len(fs) < 50 {
			break
		}
	}
	var count int
	if err := d.get(ctx, "/links/count", nil, &count); err == nil {
		d.total = count
	}
	row := 0
	for page := 1; ; page++ {
		var ls []struct {
			ID          string  `json:"id"`
			Domain      string  `json:"domain"`
			Key         string  `json:"key"`
			URL         string  `json:"url"`
			Title       *string `json:"title"`
			Description *string `json:"description"`
			Archived    bool    `json:"archived"`
			CreatedAt   string  `json:"createdAt"`
			FolderID    *string `json:"folderId"`
			Tags        []struct {
				Name string `json:"name"`
			} `json:"tags"`
		}
		q := url.Values{"page": {strconv.Itoa(page)}, "pageSize": {"100"}, "sortBy": {"createdAt"}, "sortOrder": {"asc"}}
		if err := d.get(ctx, "/links", q, &ls); err != nil {
			return err
		}
		for _, x := range ls {
			row++
			l := Link{Row: row, Domain: x.Domain, Key: x.Key, URL: x.URL, Archived: x.Archived, CreatedAt: parseAPITime(x.CreatedAt)}
			if x.Title != nil {
				l.Title = *x.Title
			}
			if x.Description != nil {
				l.Description = *x.Description
			}
			if x.FolderID != nil {
				l.Folder = folders[*x.FolderID]
			}
			for _, t := range x.Tags {
				l.Tags = append(l.Tags, t.Name)
			}
			if x.Domain == "dub.sh" || x.Domain == "dub.link" {
				l.Skip = x.Domain + " links stay on Dub: only links on your own domains are imported"
			} else if !d.o.NoClicks {
				clicks, err := d.events(ctx, x.ID)
				if err != nil {
					return err
				}
				l.Clicks = clicks
			}
			if err := fn(l); err != nil {
				return err
			}
		}
		if len(ls) < 100 {
			return nil
		}
	}
}

func (d *Dub) events(ctx context.Context, linkID string) ([]Click, error) {
	const limit = 1000
	var out []Click
	for page := 1; ; page++ {
		var evs []struct {
			Timestamp string `json:"timestamp"`
			Click     struct {
				Timestamp  string `json:"timestamp"`
				Country    string `json:"country"`
				Region     string `json:"region"`
				City       string `json:"city"`
				Continent  string `json:"continent"`
				Device     string `json:"device"`
				Browser    string `json:"browser"`
				OS         string `json:"os"`
				Referer    string `json:"referer"`
				RefererURL string `json:"refererUrl"`
			} `json:"click"`
		}
		q := url.Values{"event": {"clicks"}, "interval": {"all"}, "linkId": {linkID}, "page": {strconv.Itoa(page)},
			"limit": {strconv.Itoa(limit)}, "sortOrder": {"asc"}}
		if err := d.get(ctx, "/events", q, &evs); err != nil {
			return nil, err
		}
		for _, e := range evs {
			ts := e.Click.Timestamp
			if ts == "" {
				ts = e.Timestamp
			}
			out = append(out, Click{Timestamp: parseAPITime(ts), Country: e.Click.Country, Region: e.Click.Region,
				City: e.Click.City, Continent: e.Click.Continent, Device: e.Click.Device, Browser: e.Click.Browser,
				OS: e.Click.OS, Referer: e.Click.Referer, RefererURL: e.Click.RefererURL})
		}
		if len(evs) < limit {
			return out, nil
		}
	}
}
