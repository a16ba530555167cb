// Package importer moves links (and, where the source has them, their
// clicks) from another link shortener into a workspace. A Source yields
// links; Run creates the missing domains, tags and folders by name, skips
// short links that already exist, creates the rest through the links
// service (the API's validation), backdates them, and writes their clicks
// into the clicks table and the event aggregates on their original dates.
package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/internal/useragent"
	"github.com/relinkhq/relink/models"
)

// Link is one link as a source yields it.
type Link struct {
	Row         int    // 1-based position in the source (CSV data row, API item)
	Domain      string // "" for the default short domain
	Key         string
	URL         string
	Title       string
	Description string
	Tags        []string // by name
	Folder      string   // by name; "" for none
	CreatedAt   time.Time
	Archived    bool
	Clicks      []Click
	// Invalid is a problem the source found with the row (a missing or
	// malformed field): the runner reports it as the row's error.
	Invalid string
	// Skip is a reason the source does not import the link (a domain only
	// the source can serve): the runner reports it as skipped.
	Skip string
}

// Click is one click with its original time and what the source knows of it.
type Click struct {
	Timestamp                                time.Time
	Country, Region, City, Continent         string
	Device, Browser, OS, Referer, RefererURL string
	// UserAgent, when the source has it, fills Device, Browser and OS.
	UserAgent string
}

// Source yields links. Each calls fn once per link, in order; an error from
// fn stops it and is returned. A source that knows its size up front also
// implements Sized.
type Source interface {
	Name() string
	Each(ctx context.Context, fn func(Link) error) error
}

// Sized is a source that knows how many links it will yield (0: unknown).
type Sized interface {
	Total() int
}

// Progress is the state of a run, reported after every link.
type Progress struct {
	Done    int `json:"done"`
	Total   int `json:"total"` // 0: not known yet
	Created int `json:"created"`
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
	Clicks  int `json:"clicks"`
}

// RowError is a link that was skipped or failed, and why.
type RowError struct {
	Row    int    `json:"row"`
	Domain string `json:"domain"`
	Key    string `json:"key"`
	Error  string `json:"error"`
}

// Report is the outcome of a run.
type Report struct {
	Progress
	Skips          []RowError `json:"skips"`
	Errors         []RowError `json:"errors"`
	DomainsCreated []string   `json:"domainsCreated"`
	TagsCreated    []string   `json:"tagsCreated"`
	FoldersCreated []string   `json:"foldersCreated"`
}

// Runner imports into one workspace.
type Runner struct {
	Links     *links.Service
	Workspace *models.Workspace
	UserID    *string
	// Progress, if set, is called after every link (from Run's goroutine).
	Progress func(Progress)
	// ClickBatch is the clicks written per transaction (default 1000).
	ClickBatch int

	domains map[string]bool   // lower-case slugs usable by the workspace
	tags    map[string]string // lower-case name -> stored name
	folders map[string]string // lower-case name -> folder id
	clicks  []models.Click
	rep     Report
}

// errSkip marks a link that is not imported but is no failure.
type errSkip struct{ msg string }

func (e errSkip) Error() string { return e.msg }

// Run imports every link of src. A source error (network, auth, a bad file)
// stops the run and is returned with the report so far; a link that cannot
// be created is recorded in the report and the run goes on.
func (r *Runner) Run(ctx context.Context, src Source) (*Report, error) {
	r.rep = Report{}
	r.domains, r.tags, r.folders = map[string]bool{}, map[string]string{}, map[string]string{}
	sized, _ := src.(Sized)
	if sized != nil {
		r.rep.Total = sized.Total()
	}
	if err := r.loadDomains(ctx); err != nil {
		return &r.rep, err
	}
	err := src.Each(ctx, func(l Link) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if sized != nil {
			r.rep.Total = sized.Total() // API sources learn it while paging
		}
		r.one(ctx, l)
		if len(r.clicks) >= r.clickBatch() {
			if err := r.flushClicks(ctx); err != nil {
				return err
			}
		}
		r.report()
		return nil
	})
	if ferr := r.flushClicks(ctx); err == nil {
		err = ferr
	}
	r.report()
	if err != nil {
		return &r.rep, fmt.Errorf("import from %s: %w", src.Name(), err)
	}
	return &r.rep, nil
}

func (r *Runner) clickBatch() int {
	if r.ClickBatch > 0 {
		return r.ClickBatch
	}
	return 1000
}

func (r *Runner) report() {
	if r.Progress != nil {
		r.Progress(r.rep.Progress)
	}
}

// one imports one link and records the outcome.
func (r *Runner) one(ctx context.Context, l Link) {
	r.rep.Done++
	if r.rep.Total > 0 && r.rep.Done > r.rep.Total {
		r.rep.Total = r.rep.Done
	}
	l.Domain = strings.ToLower(strings.TrimSpace(l.Domain))
	if l.Domain == "" {
		l.Domain = r.Links.DefaultDomain()
	}
	l.Key = strings.TrimSpace(l.Key)
	created, err := r.create(ctx, l)
	row := RowError{Row: l.Row, Domain: l.Domain, Key: l.Key}
	var skip errSkip
	switch {
	case errors.As(err, &skip):
		row.Error = skip.msg
		r.rep.Skipped++
		r.rep.Skips = append(r.rep.Skips, row)
	case err != nil:
		row.Error = message(err)
		r.rep.Failed++
		r.rep.Errors = append(r.rep.Errors, row)
	default:
		r.rep.Created++
		r.queueClicks(created, l.Clicks)
	}
}

// message is an error as the report shows it: an API error's message, or
// the whole chain for anything else.
func message(err error) string {
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code != apierr.InternalServerError {
		return ae.Message
	}
	return err.Error()
}

func (r *Runner) create(ctx context.Context, l Link) (*models.Link, error) {
	if l.Invalid != "" {
		return nil, errors.New(l.Invalid)
	}
	if l.Skip != "" {
		return nil, errSkip{l.Skip}
	}
	if l.Key == "" || l.Key == models.RootKey {
		return nil, errSkip{"root links are not imported (the domain's root link is created with the domain)"}
	}
	if l.URL == "" {
		return nil, errors.New("missing destination URL")
	}
	if err := r.ensureDomain(ctx, l.Domain); err != nil {
		return nil, err
	}
	switch old, err := r.Links.DB.LinkByDomainKey(ctx, l.Domain, shortlink.LookupKey(l.Key)); {
	case err == nil && old.WorkspaceID == r.Workspace.ID:
		return nil, errSkip{"short link already exists"}
	case err == nil:
		return nil, errSkip{"short link is taken by another workspace"}
	case !apierr.Is(err, apierr.NotFound):
		return nil, err
	}
	body := map[string]any{"domain": l.Domain, "key": l.Key, "url": l.URL}
	if l.Title != "" {
		body["title"] = l.Title
	}
	if l.Description != "" {
		body["description"] = l.Description
	}
	if l.Archived {
		body["archived"] = true
	}
	if names, err := r.ensureTags(ctx, l.Tags); err != nil {
		return nil, err
	} else if len(names) > 0 {
		body["tagNames"] = names
	}
	if l.Folder != "" {
		id, err := r.ensureFolder(ctx, l.Folder)
		if err != nil {
			return nil, err
		}
		body["folderId"] = id
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode link: %w", err)
	}
	in, err := links.ParseInput(raw, links.SchemaCreate)
	if err != nil {
		return nil, err
	}
	created, err := r.Links.Create(ctx, links.Actor{Workspace: r.Workspace, UserID: r.UserID, Silent: true}, in)
	if err != nil {
		return nil, err
	}
	if !l.CreatedAt.IsZero() {
		if err := r.Links.DB.SetLinkCreatedAt(ctx, r.Workspace.ID, created.ID, l.CreatedAt); err != nil {
			return nil, err
		}
		created.CreatedAt = l.CreatedAt.UTC()
	}
	return created, nil
}

func (r *Runner) loadDomains(ctx context.Context) error {
	r.domains[r.Links.DefaultDomain()] = true
	ds, err := r.Links.DB.WorkspaceDomains(ctx, r.Workspace.ID)
	if err != nil {
		return fmt.Errorf("load domains: %w", err)
	}
	for _, d := range ds {
		r.domains[strings.ToLower(d.Slug)] = true
	}
	return nil
}

// ensureDomain creates a domain the workspace does not have yet; one that
// belongs to another workspace fails the link.
func (r *Runner) ensureDomain(ctx context.Context, slug string) error {
	if r.domains[slug] {
		return nil
	}
	switch d, err := r.Links.DB.DomainByName(ctx, slug); {
	case err == nil && d.WorkspaceID == r.Workspace.ID:
		r.domains[slug] = true
		return nil
	case err == nil:
		return fmt.Errorf("domain %s belongs to another workspace", slug)
	case !apierr.Is(err, apierr.NotFound):
		return err
	}
	raw, _ := json.Marshal(map[string]string{"slug": slug})
	in, err := links.ParseDomainInput(raw, true)
	if err != nil {
		return err
	}
	if _, err := r.Links.CreateDomain(ctx, r.Workspace, in); err != nil {
		return fmt.Errorf("create domain %s: %s", slug, message(err))
	}
	r.domains[slug] = true
	r.rep.DomainsCreated = append(r.rep.DomainsCreated, slug)
	return nil
}

// ensureTags creates the tags the workspace lacks (names compared
// case-insensitively) and returns the stored names.
func (r *Runner) ensureTags(ctx context.Context, names []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		low := strings.ToLower(n)
		if n == "" || seen[low] {
			continue
		}
		seen[low] = true
		if stored, ok := r.tags[low]; ok {
			out = append(out, stored)
			continue
		}
		got, err := r.Links.DB.TagsByNames(ctx, r.Workspace.ID, []string{n})
		if err != nil {
			return nil, err
		}
		if len(got) > 0 {
			r.tags[low] = got[0].Name
			out = append(out, got[0].Name)
			continue
		}
		raw, _ := json.Marshal(map[string]string{"name": n})
		in, err := links.ParseTagInput(raw)
		if err != nil {
			return nil, fmt.Errorf("tag %q: %s", n, message(err))
		}
		t, err := r.Links.CreateTag(ctx, r.Workspace, in)
		if err != nil {
			return nil, fmt.Errorf("create tag %q: %s", n, message(err))
		}
		r.tags[low] = t.Name
		r.rep.TagsCreated = append(r.rep.TagsCreated, t.Name)
		out = append(out, t.Name)
	}
	return out, nil
}

func (r *Runner) ensureFolder(ctx context.Context, name string) (string, error) {
	name = strings.TrimSpace(name)
	low := strings.ToLower(name)
	if id, ok := r.folders[low]; ok {
		return id, nil
	}
	f, err := r.Links.DB.FolderByName(ctx, r.Workspace.ID, name)
	if apierr.Is(err, apierr.NotFound) {
		raw, _ := json.Marshal(map[string]string{"name": name})
		in, perr := links.ParseFolderInput(raw, true)
		if perr != nil {
			return "", fmt.Errorf("folder %q: %s", name, message(perr))
		}
		f, err = r.Links.CreateFolder(ctx, links.Actor{Workspace: r.Workspace, UserID: r.UserID}, in)
		if err == nil {
			r.rep.FoldersCreated = append(r.rep.FoldersCreated, f.Name)
		}
	}
	if err != nil {
		return "", fmt.Errorf("folder %q: %s", name, message(err))
	}
	r.folders[low] = f.ID
	return f.ID, nil
}

// queueClicks turns a created link's clicks into click rows.
func (r *Runner) queueClicks(l *models.Link, clicks []Click) {
	for _, c := range clicks {
		if c.Timestamp.IsZero() {
			continue
		}
		c.Referer, c.RefererURL = referer(c.Referer, c.RefererURL)
		bot := false
		if c.UserAgent != "" {
			ua := useragent.Parse(c.UserAgent)
			bot = ua.Bot
			c.Device, c.Browser, c.OS = orDefault(c.Device, ua.Device), orDefault(c.Browser, ua.Browser), orDefault(c.OS, ua.OS)
		}
		if c.Continent == "" && c.Country != "" {
			c.Continent = geo.Continent(c.Country)
		}
		r.clicks = append(r.clicks, models.Click{
			ClickID: ids.Click(), Timestamp: c.Timestamp.UTC(), WorkspaceID: r.Workspace.ID, LinkID: l.ID,
			Domain: l.Domain, Key: l.Key, URL: l.URL, Continent: c.Continent, Country: c.Country,
			Region: c.Region, City: c.City, Device: c.Device, Browser: c.Browser, OS: c.OS,
			Trigger: "link", Referer: c.Referer, RefererURL: c.RefererURL, UA: c.UserAgent, Bot: bot,
		})
	}
}

// flushClicks writes the queued clicks, the links' counters and the event
// aggregates in one transaction (RecordClicks with the aggregate hook, as
// the ingest pipeline does). With the ClickHouse event store on, the clicks
// are queued for ClickHouse in that transaction instead of aggregated
// (models.DB.ClickAggregation): ClickHouse counts them.
func (r *Runner) flushClicks(ctx context.Context) error {
	if len(r.clicks) == 0 {
		return nil
	}
	hook, err := r.Links.DB.ClickAggregation(ctx)
	if err != nil {
		return fmt.Errorf("write imported clicks: %w", err)
	}
	n, err := r.Links.DB.RecordClicks(ctx, r.clicks, hook)
	if err != nil {
		return fmt.Errorf("write imported clicks: %w", err)
	}
	r.rep.Clicks += n
	r.clicks = r.clicks[:0]
	return nil
}

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// referer normalises a source's referrer to the click table's pair: the
// host without www. and the full URL, "(direct)" when there is none.
func referer(host, full string) (string, string) {
	if full == "" && strings.Contains(host, "://") {
		full = host
	}
	if full != "" && (host == "" || strings.Contains(host, "://")) {
		host = ""
		if u, err := url.Parse(full); err == nil {
			host = u.Hostname()
		}
	}
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	switch {
	case host == "" && full == "":
		return "(direct)", "(direct)"
	case host == "":
		return "(direct)", full
	case full == "":
		return host, host
	}
	return host, full
}
