package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/oabattery"
	"github.com/relinkhq/relink/internal/testdb"
)

// servedBatteryKeys is how many workspaces (API keys) share the requests:
// each key's rate limit (3,000 a minute, 16 analytics requests a second on
// Enterprise) then holds the battery's pace.
const servedBatteryKeys = 4

// TestServedBattery (issue 37 item 4) is the bad-input battery against
// `relink serve` as built, configured by environment variables only, on
// SQLite and on PostgreSQL: it reads the operations of the /openapi.json the
// server answers and sends each path, query and body parameter (nested
// body fields and array bodies included) two of the hostile values of
// internal/oabattery — rotated per operation, so every kind reaches every
// kind of parameter across the document: NUL, invalid UTF-8, 3,000-character
// strings, huge, negative and fractional numbers, far dates, wrong types,
// unknown enums — plus 5,000-deep JSON to each operation with a body. Any
// 5xx, an answer slower than RELINK_DB_TIMEOUT, one over 1 MiB or one
// without nosniff fails it. TestOpenAPIBattery (handlers) sends the whole
// cross product in-process.
func TestServedBattery(t *testing.T) {
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			env, _, apiURL := origins(t, map[string]string{"RELINK_DATABASE_URL": testdb.URL(t, dialect), "RELINK_DB_TIMEOUT": "5s"})
			var keys []string
			for i := range servedBatteryKeys {
				keys = append(keys, enterpriseWorkspace(t, env, fmt.Sprintf("battery%d", i)))
			}
			start(t, "serve", env)
			doc := get(t, noFollow, apiURL+"/openapi.json", "", nil)
			ops, err := oabattery.Operations([]byte(doc.Body))
			if err != nil || len(ops) < 90 {
				t.Fatalf("served document: %d operations, %v", len(ops), err)
			}
			seeds := make([]map[string]string, len(keys))
			for i, k := range keys {
				seeds[i] = servedSeeds(t, apiURL, k)
			}
			b := &servedBattery{t: t, base: apiURL, deadline: 5 * time.Second, keys: keys, limitedOn: map[string]int{}}
			for i, op := range ops {
				b.operation(op, i, i%len(keys), seeds[i%len(keys)])
			}
			t.Logf("%d operations, %d requests, %d answered 429 (%v), slowest %s", len(ops), b.sent, b.limited, b.limitedOn, b.slowest)
		})
	}
}

// enterpriseWorkspace creates a workspace on the Enterprise plan with the
// CLI and returns its API key.
func enterpriseWorkspace(t *testing.T, env map[string]string, slug string) string {
	t.Helper()
	var created struct {
		APIKey string `json:"apiKey"`
	}
	out := run(t, env, "workspace", "create", "--name", slug, "--slug", slug, "--plan", "enterprise")
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.APIKey == "" {
		t.Fatalf("workspace create: %q (%v)", out, err)
	}
	return created.APIKey
}

// servedSeeds creates one of each resource the paths name and returns their
// ids by parameter name, or by document path and name ("/tags/{id} id").
func servedSeeds(t *testing.T, base, key string) map[string]string {
	t.Helper()
	create := func(path string, body map[string]any) string {
		var out struct {
			ID string `json:"id"`
		}
		if st := api(t, base, "POST", path, key, body, &out); st >= 300 {
			t.Fatalf("seed %s: %d", path, st)
		}
		return out.ID
	}
	link := create("/links", map[string]any{"url": "https://example.com/seed", "key": "seed-" + key[len(key)-6:]})
	tag := create("/tags", map[string]any{"name": "seed"})
	folder := create("/folders", map[string]any{"name": "seed"})
	customer := create("/customers", map[string]any{"externalId": "cust_seed", "email": "c@example.com", "country": "US"})
	partner := create("/partners", map[string]any{"name": "Seed", "email": "seed@example.com", "country": "US"})
	webhook := create("/webhooks", map[string]any{"name": "seed", "url": "https://example.com/hook", "triggers": []string{"link.created"}})
	ids := map[string]string{"linkId": link, "webhookId": webhook, "partnerId": partner}
	for _, p := range []string{"/tags/{id}", "/tags/{id}/links"} {
		ids[p+" id"] = tag
	}
	for _, p := range []string{"/folders/{id}", "/folders/{id}/users"} {
		ids[p+" id"] = folder
	}
	ids["/customers/{id} id"] = customer
	return ids
}

// servedBattery sends the requests and keeps count.
type servedBattery struct {
	t             *testing.T
	base          string
	deadline      time.Duration
	keys          []string // one per workspace
	sent, limited int
	limitedOn     map[string]int // 429s by operation: per-IP and export limits, not the keys'
	slowest       time.Duration
}

// operation sends op's sample: the probes, two hostile values per
// parameter and per body field (rotated by the operation's index i, so
// across the document every value reaches every kind of parameter; a body
// field's value replaces it in a valid body, oabattery.BaseBodies), deep
// JSON.
func (b *servedBattery) operation(op oabattery.Op, i, key int, ids map[string]string) {
	path := oabattery.FillPath(op.Path, ids, "")
	pick := func(n int) int { return i % n }
	b.send(op, key, path+"?search=a%00b", "")
	b.send(op, key, path+"?search=%C3%28", "")
	for _, p := range op.Params {
		vs := oabattery.HostileValues(p.Schema)
		for _, v := range []string{vs[pick(len(vs))], vs[pick(len(vs)-1)+1]} {
			if p.In == "path" {
				b.send(op, key, oabattery.FillPath(op.Path, ids, p.Name+"="+url.PathEscape(v)), "")
				continue
			}
			b.send(op, key, path+"?"+url.QueryEscape(p.Name)+"="+url.QueryEscape(v), "")
		}
	}
	if op.Method == http.MethodGet || op.Method == http.MethodDelete {
		return
	}
	names := make([]string, 0, len(op.Body))
	for f := range op.Body {
		names = append(names, f)
	}
	sort.Strings(names)
	base := oabattery.BaseBodies(ids)[op.Method+" "+op.Path]
	for _, f := range names {
		vs := oabattery.HostileJSON(op.Body[f])
		for _, v := range []any{vs[pick(len(vs))], vs[pick(len(vs)-1)+1]} {
			b.send(op, key, path, oabattery.BodyWith(base, f, v, op.BodyArray))
		}
	}
	b.send(op, key, path, strings.Repeat(`{"a":[`, 5000)+strings.Repeat(`]}`, 5000))
}

// send makes one request and checks its answer. An operation without path
// parameters names no workspace's resource, so its requests take the keys
// in turn; a 429 whose limit resets within 2 s (the analytics routes'
// per-second bucket) is waited out and sent again, so the hostile value is
// answered rather than rate-limited.
func (b *servedBattery) send(op oabattery.Op, w int, target, body string) {
	t := b.t
	t.Helper()
	if !strings.Contains(op.Path, "{") {
		w = b.sent
	}
	key := b.keys[w%len(b.keys)]
	for range 3 {
		res := b.sendOnce(op, key, target, body)
		wait, _ := strconv.Atoi(res.Header.Get("retry-after-ms"))
		if res.StatusCode != http.StatusTooManyRequests || wait > 2000 {
			break
		}
		time.Sleep(time.Duration(wait) * time.Millisecond)
	}
}

func (b *servedBattery) sendOnce(op oabattery.Op, key, target, body string) *http.Response {
	t := b.t
	t.Helper()
	b.sent++
	req, err := http.NewRequest(op.Method, b.base+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = "//" + req.URL.Host + target // sent as written (NUL and invalid UTF-8 stay percent-encoded)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	began := time.Now()
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatalf("%s %.300s: %v", op.Method, target, err)
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20+1))
	res.Body.Close()
	took := time.Since(began)
	b.slowest = max(b.slowest, took)
	what := fmt.Sprintf("%s %.300s %.300s", op.Method, target, body)
	switch {
	case res.StatusCode >= 500:
		t.Errorf("%s: status %d", what, res.StatusCode)
	case took > b.deadline:
		t.Errorf("%s: answered in %s, over the database deadline %s", what, took, b.deadline)
	case n > 1<<20:
		t.Errorf("%s: over 1 MiB", what)
	case res.Header.Get("X-Content-Type-Options") != "nosniff":
		t.Errorf("%s: no nosniff", what)
	}
	if res.StatusCode == http.StatusTooManyRequests {
		b.limited++
		b.limitedOn[op.Method+" "+op.Path]++
	}
	return res
}
