package importer

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/links"
)

// Fields are the link fields a CSV column can be mapped to: Dub's CSV
// import (link, url, createdAt, tags, title, description) plus folder.
var Fields = []Field{
	{"link", "Short link", true},
	{"url", "Destination URL", true},
	{"createdAt", "Created at", false},
	{"tags", "Tags", false},
	{"title", "Title", false},
	{"description", "Description", false},
	{"folder", "Folder", false},
}

// Field is one mappable link field.
type Field struct {
	Name, Label string
	Required    bool
}

// Mapping maps a field name to a CSV column header.
type Mapping map[string]string

// ParseMapping reads "link=Short URL,url=Destination": field=column pairs.
func ParseMapping(s string) (Mapping, error) {
	m := Mapping{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		f, col, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("mapping %q: want field=column", pair)
		}
		name, ok := fieldName(strings.TrimSpace(f))
		if !ok {
			return nil, fmt.Errorf("mapping %q: unknown field %q (fields: %s)", pair, f, fieldList())
		}
		m[name] = strings.TrimSpace(col)
	}
	return m, nil
}

func fieldName(s string) (string, bool) {
	for _, f := range Fields {
		if strings.EqualFold(f.Name, s) {
			return f.Name, true
		}
	}
	return "", false
}

func fieldList() string {
	var names []string
	for _, f := range Fields {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// normalize is Dub's normalizeString: no BOM or control characters,
// whitespace collapsed, trimmed, lower case.
func normalize(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// guesses are header names (normalized, without spaces, dashes and
// underscores) that a field is mapped to when no mapping names it.
var guesses = map[string][]string{
	"link":        {"link", "shortlink", "shorturl", "short", "shortlinkurl", "bitlink", "shortened", "shorturlfull"},
	"url":         {"url", "destination", "destinationurl", "longurl", "originalurl", "target", "targeturl", "longlink"},
	"createdAt":   {"createdat", "created", "createddate", "date", "creationdate", "createdon"},
	"tags":        {"tags", "tag", "labels"},
	"title":       {"title", "name"},
	"description": {"description", "desc", "notes", "note"},
	"folder":      {"folder", "foldername", "group", "campaign"},
}

var squash = strings.NewReplacer(" ", "", "-", "", "_", "")

// Guess fills the fields a mapping leaves out from the headers' names.
func (m Mapping) Guess(headers []string) Mapping {
	out := Mapping{}
	for k, v := range m {
		out[k] = v
	}
	for _, f := range Fields {
		if _, ok := out[f.Name]; ok {
			continue
		}
		for _, h := range headers {
			n := squash.Replace(normalize(h))
			for _, g := range guesses[f.Name] {
				if n == g {
					out[f.Name] = h
				}
			}
			if out[f.Name] != "" {
				break
			}
		}
	}
	return out
}

// Check reports a mapping that misses a required field or names a column
// the file does not have.
func (m Mapping) Check(headers []string) error {
	have := map[string]bool{}
	for _, h := range headers {
		have[normalize(h)] = true
	}
	for _, f := range Fields {
		col := m[f.Name]
		if col == "" {
			if f.Required {
				return fmt.Errorf("no column is mapped to %s (%s)", f.Name, f.Label)
			}
			continue
		}
		if !have[normalize(col)] {
			return fmt.Errorf("column %q (mapped to %s) is not in the file; its columns are: %s", col, f.Name, strings.Join(headers, ", "))
		}
	}
	return nil
}

// CSV is a CSV file as a Source.
type CSV struct {
	data    []byte
	Headers []string
	mapping Mapping
	total   int
}

// MaxCSVBytes bounds a CSV upload in the console.
const MaxCSVBytes = 32 << 20

// ReadHeaders returns a CSV file's header row.
func ReadHeaders(data []byte) ([]string, error) {
	r := newCSVReader(data)
	h, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("the file is empty")
	}
	if err != nil {
		return nil, fmt.Errorf("read CSV header: %w", err)
	}
	return h, nil
}

func newCSVReader(data []byte) *csv.Reader {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = true
	return r
}

// NewCSV checks the file's header against the mapping (missing fields
// guessed from the headers) and counts its rows.
func NewCSV(data []byte, m Mapping) (*CSV, error) {
	h, err := ReadHeaders(data)
	if err != nil {
		return nil, err
	}
	h = append([]string(nil), h...)
	m = m.Guess(h)
	if err := m.Check(h); err != nil {
		return nil, err
	}
	c := &CSV{data: data, Headers: h, mapping: m}
	r := newCSVReader(data)
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, _ := r.FieldPos(0)
			return nil, fmt.Errorf("CSV line %d: %w", line, err)
		}
		c.total++
	}
	c.total-- // the header
	return c, nil
}

// Mapping is the mapping in use (with guessed fields).
func (c *CSV) Mapping() Mapping { return c.mapping }

// Name implements Source.
func (c *CSV) Name() string { return "CSV" }

// Total implements Sized.
func (c *CSV) Total() int { return c.total }

// Each implements Source. A row that cannot be read as a link is yielded
// with Invalid set, and the runner reports it.
func (c *CSV) Each(ctx context.Context, fn func(Link) error) error {
	idx := map[string]int{}
	for f, col := range c.mapping {
		for i, h := range c.Headers {
			if col != "" && normalize(h) == normalize(col) {
				idx[f] = i
				break
			}
		}
	}
	r := newCSVReader(c.data)
	if _, err := r.Read(); err != nil {
		return fmt.Errorf("read CSV header: %w", err)
	}
	for row := 1; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("CSV row %d: %w", row, err)
		}
		get := func(f string) string {
			i, ok := idx[f]
			if !ok || i >= len(rec) {
				return ""
			}
			return strings.TrimSpace(rec[i])
		}
		if err := fn(rowLink(row, get)); err != nil {
			return err
		}
	}
}

// rowLink maps one CSV row as Dub's importer does: the short link's host is
// the domain and its path the key; tags are comma-separated.
func rowLink(row int, get func(string) string) Link {
	l := Link{Row: row, URL: get("url"), Title: get("title"), Description: get("description"), Folder: get("folder")}
	short := get("link")
	if short != "" {
		if !strings.Contains(short, "://") {
			short = "https://" + short
		}
		if u, err := url.Parse(short); err == nil && u.Hostname() != "" {
			l.Domain = u.Hostname()
			if u.Port() != "" {
				l.Domain = u.Host
			}
			l.Key = strings.TrimPrefix(u.EscapedPath(), "/")
			if k, err := url.PathUnescape(l.Key); err == nil {
				l.Key = k
			}
		}
	}
	switch {
	case short == "":
		l.Invalid = "Missing required field: link"
	case l.Domain == "":
		l.Invalid = "Invalid link format: " + short
	case l.URL == "":
		l.Invalid = "Missing required field: url"
	}
	if l.URL != "" {
		l.URL = links.URLify(l.URL)
		// Only web destinations are imported (issue 33 item 6: ftp://
		// was accepted): a short link to ftp:, mailto: or file: is not a
		// link a shortener export means.
		if u, err := url.Parse(l.URL); l.Invalid == "" && (err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"))) {
			l.Invalid = "Invalid destination URL: only http and https links are imported"
		}
	}
	if t, ok := ParseDate(get("createdAt")); ok {
		l.CreatedAt = t
	}
	for _, t := range strings.Split(get("tags"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			l.Tags = append(l.Tags, t)
		}
	}
	return l
}

var usDate = regexp.MustCompile(`^\d{1,2}/\d{1,2}/\d{4}`)

// ParseDate reads the dates exports carry: ISO 8601 with or without time
// and zone, US month/day/year, RFC 1123, "Jan 2, 2006" and Unix seconds or
// milliseconds.
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if t, ok := links.ParseTime(s); ok {
		return t, true
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		if n > 1e11 {
			return time.UnixMilli(n).UTC(), true
		}
		return time.Unix(n, 0).UTC(), true
	}
	layouts := []string{time.RFC1123, time.RFC1123Z, time.RFC850, time.ANSIC, "Jan 2, 2006", "January 2, 2006",
		"Jan 2, 2006 3:04 PM", "2006/01/02", "2006/01/02 15:04:05", "2006-01-02T15:04:05-0700", "2006-01-02 15:04:05 -0700",
		"2006-01-02 15:04:05 MST"}
	if usDate.MatchString(s) {
		layouts = append(layouts, "1/2/2006", "1/2/2006 15:04", "1/2/2006 15:04:05", "1/2/2006 3:04 PM", "1/2/2006 3:04:05 PM")
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// Preview returns up to n data rows of a CSV and how many data rows it has.
func Preview(data []byte, n int) ([][]string, int, error) {
	r := newCSVReader(data)
	r.ReuseRecord = false
	if _, err := r.Read(); err != nil {
		return nil, 0, fmt.Errorf("read CSV header: %w", err)
	}
	var out [][]string
	total := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, total, nil
		}
		if err != nil {
			line, _ := r.FieldPos(0)
			return nil, 0, fmt.Errorf("CSV line %d: %w", line, err)
		}
		if total < n {
			out = append(out, rec)
		}
		total++
	}
}
