package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/binharness"
	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/internal/testdb"
)

// instance is one `relink serve` process (this test binary run as relink:
// TestMain, RELINK_TEST_MAIN).
type instance struct {
	*binharness.Server
	name     string
	app, api string // http://127.0.0.1:port
}

// startInstance runs `relink serve` as a child process with env plus its own
// ports and data directory, and waits until it logs that it started.
func startInstance(t *testing.T, name string, env map[string]string) *instance {
	t.Helper()
	p := binharness.FreePorts(t, 2)
	e := map[string]string{
		"RELINK_APP_URL":   "http://localhost:" + p[0],
		"RELINK_API_URL":   "http://localhost:" + p[1],
		"RELINK_DATA_DIR":  t.TempDir(),
		"RELINK_TEST_MAIN": "1",
	}
	for k, v := range env {
		e[k] = v
	}
	srv := binharness.Serve(t, "instance "+name, os.Args[0], e)
	return &instance{Server: srv, name: name, app: "http://127.0.0.1:" + p[0], api: "http://127.0.0.1:" + p[1]}
}

// redirect follows nothing: it returns the status and Location of one
// short-link request to the instance's app port with the short domain's Host.
func (in *instance) redirect(t *testing.T, host, key, ip string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", in.app+"/"+key, nil)
	req.Host = host
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36")
	req.Header.Set("X-Forwarded-For", ip)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s: redirect %s: %v", in.name, key, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode, res.Header.Get("Location")
}

// call sends an API request with the key and decodes the JSON answer.
func (in *instance) call(t *testing.T, method, path, key string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, in.api+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", in.name, method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %s %s: %v: %s", in.name, method, path, err, b)
		}
	}
	if res.StatusCode >= 300 && res.StatusCode != 429 {
		t.Logf("%s: %s %s: %d %s", in.name, method, path, res.StatusCode, b)
	}
	return res.StatusCode
}

// analytics asks GET /analytics for the last 24 hours' clicks, waiting out
// the analytics rate limit (shared by the instances through Redis).
func (in *instance) analytics(t *testing.T, query, key string, out any) {
	t.Helper()
	for range 30 {
		st := in.call(t, "GET", "/analytics?event=clicks&interval=24h&"+query, key, nil, out)
		if st == 200 {
			return
		}
		if st != 429 {
			t.Fatalf("%s: analytics %s: %d", in.name, query, st)
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("%s: analytics %s: rate limited for 30 s", in.name, query)
}

func testRedisURL(t *testing.T) string { t.Helper(); return binharness.RedisURL(t) }

// TestTwoInstances is the scaled-out topology of docs/clickhouse.md: two
// `relink serve` processes (each with its own ports and click journal) on
// one PostgreSQL, one Redis and one ClickHouse. Redirects go through both;
// a link edited through one instance's API redirects to its new URL on the
// other as soon as the Redis invalidation arrives (its cache holds the old
// link and has no TTL, so without the invalidation it never would); both
// instances' analytics — counted in ClickHouse — equal the sum of the
// clicks the two answered. It runs on each kind of ClickHouse (chtest).
func TestTwoInstances(t *testing.T) {
	if os.Getenv("RELINK_TEST_DATABASE_URL") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("RELINK_TEST_DATABASE_URL is required in CI")
		}
		t.Skip("RELINK_TEST_DATABASE_URL not set (the instances share one PostgreSQL)")
	}
	// On each kind of ClickHouse: Debian's 18.16 and a current release
	// (chDB; chtest).
	chtest.Each(t, func(t *testing.T, chURL string) {
		redisURL := testRedisURL(t)
		dbURL := testdb.URL(t, "postgres")
		const short = "go.relink.test"
		env := map[string]string{
			"RELINK_DATABASE_URL":         dbURL,
			"RELINK_REDIS_URL":            redisURL,
			"RELINK_CLICKHOUSE_URL":       chURL,
			"RELINK_SHORT_DOMAIN":         short,
			"RELINK_CLICK_DEDUP_WINDOW":   "0",
			"RELINK_CLICK_FLUSH_INTERVAL": "50ms",
			"RELINK_LOG_FORMAT":           "json",
		}
		r := relink(t, map[string]string{"RELINK_DATABASE_URL": dbURL}, "workspace", "create", "--name", "Scale", "--slug", "scale", "--plan", "business")
		if r.code != 0 {
			t.Fatalf("workspace create: exit %d: %s", r.code, r.stderr)
		}
		_, key := decodeCreated(t, r.stdout)
		a := startInstance(t, "A", env)
		b := startInstance(t, "B", env)

		var link struct{ ID, URL, Domain, Key string }
		if st := a.call(t, "POST", "/links", key, map[string]any{"url": "https://example.com/first", "key": "promo", "domain": short}, &link); st != 200 {
			t.Fatalf("create link on A: %d", st)
		}
		clicks := map[string]int{}
		hit := func(in *instance, want string, n int) {
			t.Helper()
			for i := range n {
				st, loc := in.redirect(t, short, "promo", fmt.Sprintf("203.0.113.%d", len(clicks)+i+1))
				if st != 302 || loc != want {
					t.Fatalf("%s: /promo = %d %q, want 302 %q", in.name, st, loc, want)
				}
			}
			clicks[in.name] += n
		}
		hit(a, "https://example.com/first", 3)
		hit(b, "https://example.com/first", 2) // B now caches the link

		// Edited on A, redirecting to the new URL on B: B's cache entry is
		// dropped by the invalidation A publishes through Redis.
		if st := a.call(t, "PATCH", "/links/"+link.ID, key, map[string]any{"url": "https://example.com/second"}, nil); st != 200 {
			t.Fatalf("edit link on A: %d", st)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, loc := b.redirect(t, short, "promo", "198.51.100.1")
			clicks["B"]++
			if loc == "https://example.com/second" {
				break
			}
			if loc != "https://example.com/first" || time.Now().After(deadline) {
				t.Fatalf("B still redirects to %q after the edit on A", loc)
			}
			time.Sleep(10 * time.Millisecond)
		}
		hit(a, "https://example.com/second", 4)
		hit(b, "https://example.com/second", 6)
		total := clicks["A"] + clicks["B"]

		// Each instance writes its own clicks; analytics on either count all.
		for _, in := range []*instance{a, b} {
			deadline := time.Now().Add(30 * time.Second)
			for {
				var got any
				in.analytics(t, "groupBy=count", key, &got)
				if n := countOf(got); n == total {
					break
				} else if n > total || time.Now().After(deadline) {
					t.Fatalf("%s: analytics count %d, want %d (A %d + B %d)", in.name, n, total, clicks["A"], clicks["B"])
				}
				time.Sleep(500 * time.Millisecond)
			}
			var byLink []map[string]any
			if in.analytics(t, "groupBy=top_links", key, &byLink); len(byLink) != 1 || int(byLink[0]["clicks"].(float64)) != total {
				t.Fatalf("%s: top_links %v", in.name, byLink)
			}
		}
		// The counts come from ClickHouse: its clicks table holds every click
		// of both instances, once.
		ch, err := chstore.Open(chURL)
		if err != nil {
			t.Fatal(err)
		}
		var n, ids string
		if err := ch.Query(context.Background(), "SELECT count(), uniqExact(click_id) FROM clicks", func(c []string) error { n, ids = c[0], c[1]; return nil }); err != nil {
			t.Fatal(err)
		}
		if n != strconv.Itoa(total) || ids != n {
			t.Fatalf("clickhouse holds %s clicks (%s ids), want %d", n, ids, total)
		}
	})
}

// countOf reads groupBy=count's answer ({"clicks": n} or [{"clicks": n}]).
func countOf(v any) int {
	switch x := v.(type) {
	case []any:
		if len(x) == 1 {
			return countOf(x[0])
		}
	case map[string]any:
		if f, ok := x["clicks"].(float64); ok {
			return int(f)
		}
	}
	return -1
}
