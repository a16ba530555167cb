package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// APIOptions configure a source that reads another service's API.
type APIOptions struct {
	// BaseURL is the service's API root (its public API by default; a
	// self-hosted Shlink, Kutt or YOURLS; a local server in tests).
	BaseURL string
	// Token is the user's API key or token for the service.
	Token string
	// Client makes the requests (default: 30 s timeout).
	Client *http.Client
	// Retries is how many rate-limited (429) or unavailable (503) answers
	// a request waits out before the import fails (default 8).
	Retries int
	// MaxWait caps one Retry-After wait (default 2 minutes).
	MaxWait time.Duration
	// Sleep waits (tests observe it); default a context-aware timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// NoClicks skips the click logs the services that have them would
	// import (Shlink visits, Dub click events).
	NoClicks bool
}

// Sources lists the API sources by name, with their default base URL.
var Sources = map[string]struct {
	Label, DefaultBase string
	New                func(APIOptions) Source
}{
	"bitly":     {"Bitly", "https://api-ssl.bitly.com", func(o APIOptions) Source { return &Bitly{api: newAPI("Bitly", o, bearer)} }},
	"rebrandly": {"Rebrandly", "https://api.rebrandly.com", func(o APIOptions) Source { return &Rebrandly{api: newAPI("Rebrandly", o, header("apikey"))} }},
	"short":     {"Short.io", "https://api.short.io", func(o APIOptions) Source { return &ShortIO{api: newAPI("Short.io", o, header("Authorization"))} }},
	"shlink":    {"Shlink", "", func(o APIOptions) Source { return &Shlink{api: newAPI("Shlink", o, header("X-Api-Key"))} }},
	"kutt":      {"Kutt", "https://kutt.it", func(o APIOptions) Source { return &Kutt{api: newAPI("Kutt", o, header("X-API-KEY"))} }},
	"yourls":    {"YOURLS", "", func(o APIOptions) Source { return &YOURLS{api: newAPI("YOURLS", o, nil)} }},
	"dub":       {"Dub", "https://api.dub.co", func(o APIOptions) Source { return &Dub{api: newAPI("Dub", o, bearer)} }},
}

// SourceNames is the sorted list of API source names.
func SourceNames() []string {
	var out []string
	for k := range Sources {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// NewSource builds a named API source; the base URL falls back to the
// service's public API.
func NewSource(name string, o APIOptions) (Source, error) {
	s, ok := Sources[name]
	if !ok {
		return nil, fmt.Errorf("unknown source %q (sources: csv, %s)", name, strings.Join(SourceNames(), ", "))
	}
	if o.BaseURL == "" {
		o.BaseURL = s.DefaultBase
	}
	if o.BaseURL == "" {
		return nil, fmt.Errorf("%s is self-hosted: give its base URL", s.Label)
	}
	if u, err := url.Parse(o.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want http(s)://host[/path]", o.BaseURL)
	}
	if o.Token == "" {
		return nil, fmt.Errorf("%s needs an API token", s.Label)
	}
	return s.New(o), nil
}

func bearer(r *http.Request, token string) { r.Header.Set("Authorization", "Bearer "+token) }

func header(name string) func(*http.Request, string) {
	return func(r *http.Request, token string) { r.Header.Set(name, token) }
}

// api is the HTTP side every API source shares: JSON GETs with the token,
// rate-limit waits and clear errors.
type api struct {
	name string
	o    APIOptions
	auth func(*http.Request, string)
}

func newAPI(name string, o APIOptions, auth func(*http.Request, string)) api {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Retries == 0 {
		o.Retries = 8
	}
	if o.MaxWait == 0 {
		o.MaxWait = 2 * time.Minute
	}
	if o.Sleep == nil {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return nil
			}
		}
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	return api{name: name, o: o, auth: auth}
}

// ErrAuth is wrapped by the error of a request the service refused for
// its credentials (401/403).
var ErrAuth = errors.New("the service refused the API token")

// get fetches path?q as JSON into out.
func (a *api) get(ctx context.Context, path string, q url.Values, out any) error {
	u := a.o.BaseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return a.redact(fmt.Errorf("%s: %w", a.name, err))
		}
		req.Header.Set("Accept", "application/json")
		if a.auth != nil {
			a.auth(req, a.o.Token)
		}
		res, err := a.o.Client.Do(req)
		if err != nil {
			// Not the *url.Error itself: its text holds the whole URL, and
			// YOURLS takes the token in the query string.
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return a.redact(fmt.Errorf("%s: GET %s: %w", a.name, path, err))
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
		res.Body.Close()
		if err != nil {
			return a.redact(fmt.Errorf("%s: GET %s: read answer: %w", a.name, path, err))
		}
		switch {
		case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable:
			if attempt >= a.o.Retries {
				return fmt.Errorf("%s: GET %s: still rate-limited (HTTP %d) after %d retries", a.name, path, res.StatusCode, attempt)
			}
			if err := a.o.Sleep(ctx, retryAfter(res.Header.Get("Retry-After"), a.o.MaxWait, attempt)); err != nil {
				return err
			}
			continue
		case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
			return a.redact(fmt.Errorf("%s: %w (HTTP %d: %s): check the token and its permissions", a.name, ErrAuth, res.StatusCode, snippet(body)))
		case res.StatusCode < 200 || res.StatusCode > 299:
			return a.redact(fmt.Errorf("%s: GET %s: HTTP %d: %s", a.name, path, res.StatusCode, snippet(body)))
		}
		if err := json.Unmarshal(body, out); err != nil {
			return a.redact(fmt.Errorf("%s: GET %s: unexpected answer (%v): %s", a.name, path, err, snippet(body)))
		}
		return nil
	}
}

// redacted is an error whose text has the token cut out; errors.Is and As
// still see the original chain.
type redacted struct {
	msg string
	err error
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }

// redact cuts the token out of err's text (an answer that echoes it, a
// transport error quoting a URL), so that neither the report nor a log line
// shows it.
func (a *api) redact(err error) error {
	if a.o.Token == "" || !strings.Contains(err.Error(), a.o.Token) {
		return err
	}
	return redacted{msg: strings.ReplaceAll(err.Error(), a.o.Token, "[token]"), err: err}
}

// retryAfter reads Retry-After (seconds or an HTTP date); without one the
// wait doubles from 1 s. It is capped at limit.
func retryAfter(h string, limit time.Duration, attempt int) time.Duration {
	d := time.Second << min(attempt, 6)
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		d = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = time.Until(t)
	}
	return max(min(d, limit), 0)
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "(empty answer)"
	}
	return s
}

// splitShort splits a short URL (with or without scheme) into domain and key.
func splitShort(s string) (string, string, bool) {
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return "", "", false
	}
	return strings.ToLower(u.Host), strings.TrimPrefix(u.Path, "/"), true
}

// parseAPITime reads the time formats the services answer with.
func parseAPITime(s string) time.Time {
	t, _ := ParseDate(s)
	return t
}
