package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/oabattery"
	"github.com/relinkhq/relink/internal/ratelimit"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// allowAll is a limiter that never refuses (the battery measures input
// handling, not the rate limits).
type allowAll struct{}

func (allowAll) Allow(_ context.Context, _ string, limit int, w time.Duration) (ratelimit.Result, error) {
	return ratelimit.Result{Allowed: true, Limit: limit, Remaining: limit, Reset: time.Now().Add(w)}, nil
}

// Bounds of every answer of the battery.
const (
	batteryMaxBody = 1 << 20 // no hostile value may make an answer grow past 1 MiB
)

// TestOpenAPIBattery reads the served /openapi.json and sends hostile
// values to every parameter and documented body field of every operation
// (so a new route or filter is covered without anyone adding it): NUL and
// invalid UTF-8, a 3,000-character string, huge, negative and fractional
// numbers, far dates, wrong types, unknown enum values, deep JSON. It
// fails on any 5xx, an answer slower than the database deadline, an answer
// over 1 MiB, or one without nosniff; on both dialects, in dev mode.
func TestOpenAPIBattery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ts := newServer(t, db, env{limiter: allowAll{}, vars: map[string]string{"RELINK_SHORT_DOMAIN": batteryShort, "RELINK_DEV": "true"}})
		_, key := seed(t, db, "oabattery", models.PlanEnterprise)
		ops := servedOperations(t, ts)
		if len(ops) < 90 {
			t.Fatalf("only %d operations in the served document", len(ops))
		}
		ids := batterySeeds(t, ts, key)
		deadline := ts.cfg.DBTimeout
		sent, hostile := 0, 0
		// sample: make test sends a third of the hostile values (each
		// operation still gets some of each kind), make test-long all.
		sample := func() bool { hostile++; return testdb.Every(hostile, 3) }
		send := func(op oabattery.Op, path, query, body string) {
			t.Helper()
			sent++
			hr := httptest.NewRequest(op.Method, "http://"+apiHost+"/", strings.NewReader(body))
			hr.RequestURI = path + query
			hr.Host = apiHost
			hr.Header.Set("Authorization", "Bearer "+key)
			if body != "" {
				hr.Header.Set("Content-Type", "application/json")
			}
			began := time.Now()
			res, err := ts.Root.Test(hr, -1)
			if err != nil {
				t.Fatalf("%s %s%s: %v", op.Method, path, query, err)
			}
			took := time.Since(began)
			r := readResp(t, res)
			what := fmt.Sprintf("%s %.200s%.300s %.300s", op.Method, path, query, body)
			switch {
			case r.Status >= 500:
				t.Errorf("%s: status %d: %.300s", what, r.Status, r.Body)
			case took > deadline:
				t.Errorf("%s: answered in %s, over the database deadline %s", what, took, deadline)
			case len(r.Body) > batteryMaxBody:
				t.Errorf("%s: %d bytes", what, len(r.Body))
			case r.Header.Get("X-Content-Type-Options") != "nosniff":
				t.Errorf("%s: no nosniff", what)
			}
		}
		for _, op := range ops {
			path := oabattery.FillPath(op.Path, ids, "")
			// The guard's probes once per operation, in its first parameter.
			first := "search"
			if len(op.Params) > 0 && op.Params[0].In == "query" {
				first = op.Params[0].Name
			}
			send(op, path, "?"+url.QueryEscape(first)+"=a%00b", "")
			send(op, path, "?"+url.QueryEscape(first)+"=%C3%28", "")
			for _, p := range op.Params {
				for _, v := range oabattery.HostileValues(p.Schema) {
					if !sample() {
						continue
					}
					if p.In == "path" {
						send(op, oabattery.FillPath(op.Path, ids, p.Name+"="+url.PathEscape(v)), "", "")
						continue
					}
					send(op, path, "?"+url.QueryEscape(p.Name)+"="+url.QueryEscape(v), "")
				}
			}
			if op.Method == http.MethodGet || op.Method == http.MethodDelete {
				continue
			}
			base, ok := oabattery.BaseBodies(ids)[op.Method+" "+op.Path]
			if !ok {
				base = batteryBodies[op.Method+" "+oabattery.ColonPath(op.Path)]
			}
			fields := op.Body
			if len(fields) == 0 { // the document names no body fields: the battery's own list
				fields = map[string]map[string]any{}
				for _, f := range batteryFields {
					fields[f] = map[string]any{"type": "string"}
				}
			}
			names := make([]string, 0, len(fields))
			for f := range fields {
				names = append(names, f)
			}
			sort.Strings(names)
			for _, f := range names {
				for _, v := range oabattery.HostileJSON(fields[f]) {
					if !sample() {
						continue
					}
					send(op, path, "", oabattery.BodyWith(base, f, v, op.BodyArray))
				}
			}
			send(op, path, "", strings.Repeat(`{"a":[`, 5000)+strings.Repeat(`]}`, 5000))
			send(op, path, "", `[1,2,3]`)
			send(op, path, "", `{"url":`)
		}
		t.Logf("%d operations, %d requests", len(ops), sent)
	})
}

// servedOperations reads GET /openapi.json as a client would.
func servedOperations(t *testing.T, ts *testServer) []oabattery.Op {
	t.Helper()
	r := ts.do(t, req{Host: apiHost, Path: "/openapi.json"})
	if r.Status != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d", r.Status)
	}
	ops, err := oabattery.Operations(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// batterySeeds creates one of each resource the paths name and returns
// their ids by parameter name ("linkId") or by document path and name
// ("/tags/{id} id").
func batterySeeds(t *testing.T, ts *testServer, key string) map[string]string {
	t.Helper()
	create := func(path, body string) string {
		r := ts.do(t, req{Method: "POST", Host: apiHost, Path: path, Key: key, Body: body})
		if r.Status >= 300 {
			t.Fatalf("seed %s: %d %s", path, r.Status, r.Body)
		}
		id, _ := jsonOf(t, r)["id"].(string)
		return id
	}
	link := create("/links", `{"url":"https://example.com/seed","key":"seed"}`)
	tag := create("/tags", `{"name":"seed"}`)
	folder := create("/folders", `{"name":"seed"}`)
	customer := create("/customers", `{"externalId":"cust_seed","email":"c@example.com","country":"US"}`)
	partner := create("/partners", `{"name":"Seed","email":"seed@example.com","country":"US"}`)
	webhook := create("/webhooks", `{"name":"seed","url":"https://example.com/hook","triggers":["link.created"]}`)
	ids := map[string]string{"linkId": link, "webhookId": webhook, "partnerId": partner, "slug": "example.org"}
	for _, p := range []string{"/tags/{id}", "/tags/{id}/links"} {
		ids[p+" id"] = tag
	}
	for _, p := range []string{"/folders/{id}", "/folders/{id}/users"} {
		ids[p+" id"] = folder
	}
	ids["/customers/{id} id"] = customer
	return ids
}
