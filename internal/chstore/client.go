// Package chstore is Relink's ClickHouse event store (docs/clickhouse.md):
// the HTTP client, the versioned ClickHouse migrations, the click sink the
// ingest pipeline writes through, and the outbox drain that copies leads and
// sales after their SQL transaction committed.
//
// The client speaks ClickHouse's HTTP interface (port 8123) with standard
// formats: rows go in as JSONEachRow, answers come back as TabSeparated.
// The maintained Go client (ClickHouse/clickhouse-go v2) does not work with
// Debian's clickhouse-server 18.16, the server these machines and CI run
// (docs/clickhouse.md, "Client"); the HTTP interface works with 18.16 and
// every current release.
package chstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client talks to one ClickHouse database over HTTP.
type Client struct {
	base     *url.URL // scheme, host, user info
	Database string
	http     *http.Client

	mu       sync.Mutex
	defaults url.Values // queryDefaults the server knows; nil until read
}

// queryDefaults are settings every Query runs with where the server knows
// them (system.settings; 18.16 knows neither and gets none).
// use_top_k_dynamic_filtering (on by default in current releases) skips
// rows of an ORDER BY … LIMIT while reading: chDB 26.5 answered an events
// page (ORDER BY ts DESC, event_id DESC LIMIT n) once with "Cannot convert
// string '<id>' to type Int64" from its __topKFilter(ts). Off, the page is
// read as on 18.16.
var queryDefaults = url.Values{"use_top_k_dynamic_filtering": {"0"}}

// Open parses a RELINK_CLICKHOUSE_URL: http(s)://[user[:password]@]host:port/database.
// The database is created at start-up (Migrate) when it does not exist.
func Open(raw string) (*Client, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("clickhouse url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("clickhouse url %q: the scheme must be http or https (the HTTP interface, port 8123 by default)", redact(u))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("clickhouse url %q: no host", redact(u))
	}
	db := strings.Trim(u.Path, "/")
	if db == "" {
		db = "relink"
	}
	if !validIdent(db) {
		return nil, fmt.Errorf("clickhouse url %q: database name %q must be letters, digits and underscores", redact(u), db)
	}
	base := &url.URL{Scheme: u.Scheme, Host: u.Host, User: u.User}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.IdleConnTimeout = idleConnTimeout
	return &Client{base: base, Database: db, http: &http.Client{Timeout: 5 * time.Minute, Transport: tr}}, nil
}

// idleConnTimeout is below ClickHouse's keep_alive_timeout (3 s on 18.16,
// the shortest default of the versions tested): a connection the server may
// already have closed is never reused, so a query is not lost to an EOF
// when it is sent just as the server hangs up (seen on a loaded runner).
const idleConnTimeout = 2 * time.Second

func redact(u *url.URL) string { return u.Redacted() }

func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// String is the URL without its password.
func (c *Client) String() string {
	u := *c.base
	u.Path = "/" + c.Database
	return u.Redacted()
}

// Error is an error answer of the server.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("clickhouse: HTTP %d: %s", e.Status, e.Msg) }

// do posts body with the query string params; the answer's body is
// returned to the caller, who closes it.
func (c *Client) do(ctx context.Context, params url.Values, body io.Reader, useDB bool) (io.ReadCloser, error) {
	u := *c.base
	u.User = nil
	u.Path = "/"
	if useDB {
		params.Set("database", c.Database)
	}
	u.RawQuery = params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: %w", err)
	}
	if c.base.User != nil {
		req.Header.Set("X-ClickHouse-User", c.base.User.Username())
		if p, ok := c.base.User.Password(); ok {
			req.Header.Set("X-ClickHouse-Key", p)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("clickhouse %s: %w", c.base.Host, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, &Error{Status: resp.StatusCode, Msg: strings.TrimSpace(string(msg))}
	}
	return resp.Body, nil
}

// Exec runs one statement that returns no rows.
func (c *Client) Exec(ctx context.Context, query string) error {
	return c.exec(ctx, query, true)
}

func (c *Client) exec(ctx context.Context, query string, useDB bool) error {
	return c.execParams(ctx, query, url.Values{}, useDB)
}

// execWith runs a statement with settings (URL parameters).
func (c *Client) execWith(ctx context.Context, query string, settings url.Values) error {
	params := url.Values{}
	for k, v := range settings {
		params[k] = v
	}
	return c.execParams(ctx, query, params, true)
}

func (c *Client) execParams(ctx context.Context, query string, params url.Values, useDB bool) error {
	body, err := c.do(ctx, params, strings.NewReader(query), useDB)
	if err != nil {
		return fmt.Errorf("%s: %w", firstWords(query), err)
	}
	_, _ = io.Copy(io.Discard, body)
	return body.Close()
}

func firstWords(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 60 {
		q = q[:60] + "…"
	}
	return q
}

// Query runs a SELECT and calls row for every answer row, its columns as
// text (TabSeparated, unescaped).
func (c *Client) Query(ctx context.Context, query string, row func(cols []string) error) error {
	params, err := c.queryParams(ctx)
	if err != nil {
		return err
	}
	return c.query(ctx, query, params, true, row)
}

// queryParams are a Query's URL parameters: the query size and the
// queryDefaults this server knows (read once).
func (c *Client) queryParams(ctx context.Context) (url.Values, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.defaults == nil {
		known, err := c.knownSettings(ctx, queryDefaults)
		if err != nil {
			return nil, err
		}
		c.defaults = known
	}
	// Long id lists (InsertOnce) exceed the default 256 KiB query size.
	params := url.Values{"max_query_size": {"16777216"}}
	for k, v := range c.defaults {
		params[k] = v
	}
	return params, nil
}

func (c *Client) query(ctx context.Context, query string, params url.Values, useDB bool, row func(cols []string) error) error {
	body, err := c.do(ctx, params, strings.NewReader(query+"\nFORMAT TabSeparated"), useDB)
	if err != nil {
		return fmt.Errorf("%s: %w", firstWords(query), err)
	}
	defer body.Close()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		for i, f := range fields {
			fields[i] = unescapeTSV(f)
		}
		if err := row(fields); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("clickhouse: read answer: %w", err)
	}
	return nil
}

// unescapeTSV undoes TabSeparated's escaping (\t \n \\ \' \0 …).
func unescapeTSV(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch != '\\' || i+1 == len(s) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '0':
			b.WriteByte(0)
		case 'N':
			// \N is NULL; our columns are not Nullable except in
			// expressions, where NULL reads as empty.
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// Insert writes rows (values encoding/json turns into objects whose keys
// are column names) into table in one INSERT … FORMAT JSONEachRow.
func (c *Client) Insert(ctx context.Context, table string, rows []any) error {
	return c.insert(ctx, table, rows, url.Values{})
}

func (c *Client) insert(ctx context.Context, table string, rows []any, params url.Values) error {
	if len(rows) == 0 {
		return nil
	}
	var buf bytes.Buffer
	buf.WriteString("INSERT INTO " + table + " FORMAT JSONEachRow\n")
	enc := json.NewEncoder(&buf)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("clickhouse: encode %s row: %w", table, err)
		}
	}
	params.Set("input_format_skip_unknown_fields", "1")
	body, err := c.do(ctx, params, &buf, true)
	if err != nil {
		return fmt.Errorf("insert %d rows into %s: %w", len(rows), table, err)
	}
	_, _ = io.Copy(io.Discard, body)
	return body.Close()
}

// Ping checks the server answers.
func (c *Client) Ping(ctx context.Context) error {
	var v string
	err := c.Query(ctx, "SELECT version()", func(cols []string) error { v = cols[0]; return nil })
	if err == nil && v == "" {
		err = errors.New("clickhouse: empty version")
	}
	return err
}

// Version is the server's version, e.g. [18 16 1].
func (c *Client) Version(ctx context.Context) ([]int, error) {
	body, err := c.do(ctx, url.Values{}, strings.NewReader("SELECT version() FORMAT TabSeparated"), false)
	if err != nil {
		return nil, fmt.Errorf("clickhouse version: %w", err)
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("clickhouse version: %w", err)
	}
	return parseVersion(strings.TrimSpace(string(b)))
}

func parseVersion(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("clickhouse version %q: %w", s, err)
		}
		out = append(out, n)
	}
	return out, nil
}

// atLeast reports whether version v is at least min.
func atLeast(v, min []int) bool {
	for i := range min {
		x := 0
		if i < len(v) {
			x = v[i]
		}
		if x != min[i] {
			return x > min[i]
		}
	}
	return true
}

// Quote is s as a ClickHouse string literal.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(ch)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
