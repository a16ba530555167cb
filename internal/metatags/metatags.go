// Package metatags answers GET /links/metatags (spec/parity.md §12): it fetches
// a page the way Dub's link-preview scraper does and reads its title,
// description and preview image. The route is unauthenticated, so the
// fetch is guarded: http(s) only, public addresses only (checked when each
// connection is dialled, every redirect hop included), at most 5 redirects,
// 5 seconds in all, 2 MiB of text/html, no cookies or credentials.
package metatags

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/netguard"
	"github.com/relinkhq/relink/internal/ttlmap"
)

// Tags is the answer's body without poweredBy.
type Tags struct {
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Image       *string `json:"image"`
}

// Limits of a fetch.
const (
	Timeout      = 5 * time.Second
	MaxRedirects = 5
	MaxBytes     = 2 << 20
	UserAgent    = "Relink-Metatags/1.0 (link preview; +https://github.com/relinkhq/relink)"
	cacheTTL     = 5 * time.Minute
	cacheSize    = 1024
)

// Fetcher fetches pages and caches their tags briefly.
type Fetcher struct {
	client *http.Client
	now    func() time.Time
	cache  *ttlmap.Map[Tags]
	off    bool
}

// New returns a fetcher. public refuses every non-public address (the
// default: the route has no authentication); off fetches nothing, so every
// answer is the fallback built from the URL.
func New(public, off bool) *Fetcher {
	dialer := &net.Dialer{Timeout: Timeout}
	if public {
		dialer.Control = netguard.PublicOnly
	}
	tr := &http.Transport{DialContext: dialer.DialContext, Proxy: nil, TLSHandshakeTimeout: Timeout,
		ResponseHeaderTimeout: Timeout, MaxIdleConns: 8, IdleConnTimeout: 30 * time.Second}
	client := &http.Client{Transport: tr, Timeout: Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return errors.New("too many redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a %s: URL", req.URL.Scheme)
			}
			return nil
		}}
	return &Fetcher{client: client, now: time.Now, cache: ttlmap.New[Tags](cacheSize), off: off}
}

// Get returns the tags of the page at pageURL (a valid absolute URL). Fetch
// problems of any kind give the fallback built from the URL, never an error,
// as upstream answers them.
func (f *Fetcher) Get(ctx context.Context, pageURL string) Tags {
	now := f.now()
	if t, ok := f.cache.Get(pageURL, now); ok {
		return t
	}
	var t Tags
	html, err := f.fetch(ctx, pageURL)
	if err != nil {
		slog.Debug("metatags: fallback", "url", pageURL, "err", err)
		t = Fallback(pageURL)
	} else {
		t = Parse(html, pageURL)
	}
	f.cache.Put(pageURL, t, now, now.Add(cacheTTL))
	return t
}

// fetch downloads the page; anything but a 2xx text/html answer without a
// bot challenge is an error.
func (f *Fetcher) fetch(ctx context.Context, pageURL string) (string, error) {
	if f.off {
		return "", errors.New("fetching is off")
	}
	u, err := url.Parse(pageURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("not an http(s) URL: %q", pageURL)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("metatags request: %w", err)
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	res, err := f.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", u.Host, err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return "", fmt.Errorf("fetch %s: status %d", u.Host, res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "text/html" && mt != "application/xhtml+xml" {
			return "", fmt.Errorf("fetch %s: content type %q", u.Host, mt)
		}
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, MaxBytes))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", u.Host, err)
	}
	text := string(b)
	if strings.Contains(text, "challenge-platform") || strings.Contains(text, "cf-browser-verification") {
		return "", fmt.Errorf("fetch %s: bot challenge page", u.Host)
	}
	return text, nil
}

// Fallback is the answer for a page that could not be read: the last path
// segment as a title ("my-post" → "My Post"), else the host without www.,
// and "Visit <host><path>".
func Fallback(pageURL string) Tags {
	u, err := url.Parse(pageURL)
	if err != nil || u.Host == "" {
		return Tags{Title: pageURL, Description: "No description available"}
	}
	host, path := u.Hostname(), u.EscapedPath()
	if path == "" {
		path = "/"
	}
	var last string
	for _, p := range strings.Split(path, "/") {
		if p != "" {
			last = p
		}
	}
	words := strings.Split(last, "-")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	title := strings.Join(words, " ")
	if title == "" {
		title = strings.TrimPrefix(host, "www.")
	}
	return Tags{Title: title, Description: "Visit " + host + path}
}
