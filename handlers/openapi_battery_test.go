package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

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

// oaParam is one parameter of an operation of the served document.
type oaParam struct {
	name, in string
	schema   map[string]any
}

// oaOp is one operation: its method, path and parameters, and the
// properties of its JSON body when it documents one (nested objects' as
// "parent.child").
type oaOp struct {
	method, path string
	params       []oaParam
	body         map[string]map[string]any
	bodyArray    bool // the body is an array of objects (POST /links/bulk)
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
		sent := 0
		send := func(op oaOp, path, query, body string) {
			t.Helper()
			sent++
			hr := httptest.NewRequest(op.method, "http://"+apiHost+"/", strings.NewReader(body))
			hr.RequestURI = path + query
			hr.Host = apiHost
			hr.Header.Set("Authorization", "Bearer "+key)
			if body != "" {
				hr.Header.Set("Content-Type", "application/json")
			}
			began := time.Now()
			res, err := ts.Root.Test(hr, -1)
			if err != nil {
				t.Fatalf("%s %s%s: %v", op.method, path, query, err)
			}
			took := time.Since(began)
			r := readResp(t, res)
			what := fmt.Sprintf("%s %.200s%.300s %.300s", op.method, path, query, body)
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
			path := fillPath(op.path, ids, "")
			// The guard's probes once per operation, in its first parameter.
			first := "search"
			if len(op.params) > 0 && op.params[0].in == "query" {
				first = op.params[0].name
			}
			send(op, path, "?"+url.QueryEscape(first)+"=a%00b", "")
			send(op, path, "?"+url.QueryEscape(first)+"=%C3%28", "")
			for _, p := range op.params {
				for _, v := range hostileValues(p.schema) {
					if p.in == "path" {
						send(op, fillPath(op.path, ids, p.name+"="+url.PathEscape(v)), "", "")
						continue
					}
					send(op, path, "?"+url.QueryEscape(p.name)+"="+url.QueryEscape(v), "")
				}
			}
			if op.method == http.MethodGet || op.method == http.MethodDelete {
				continue
			}
			base := batteryBodies[op.method+" "+colonPath(op.path)]
			switch op.method + " " + op.path {
			case "POST /links/bulk":
				base = map[string]any{"url": "https://example.com/bulk"}
			case "PATCH /links/bulk":
				base = map[string]any{"linkIds": []string{ids["linkId"]}, "data": map[string]any{"title": "bulk"}}
			}
			fields := op.body
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
				for _, v := range hostileJSON(fields[f]) {
					send(op, path, "", bodyWith(base, f, v, op.bodyArray))
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
func servedOperations(t *testing.T, ts *testServer) []oaOp {
	t.Helper()
	r := ts.do(t, req{Host: apiHost, Path: "/openapi.json"})
	if r.Status != http.StatusOK {
		t.Fatalf("GET /openapi.json: %d", r.Status)
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatal(err)
	}
	resolve := func(s map[string]any) map[string]any {
		for i := 0; i < 8; i++ {
			ref, ok := s["$ref"].(string)
			if !ok {
				break
			}
			s = doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		}
		return s
	}
	var ops []oaOp
	for path, methods := range doc.Paths {
		for m, raw := range methods {
			switch m {
			case "get", "post", "put", "patch", "delete":
			default:
				continue
			}
			var o struct {
				Parameters []struct {
					Name   string         `json:"name"`
					In     string         `json:"in"`
					Schema map[string]any `json:"schema"`
				} `json:"parameters"`
				RequestBody struct {
					Content map[string]struct {
						Schema map[string]any `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				t.Fatal(err)
			}
			op := oaOp{method: strings.ToUpper(m), path: path}
			for _, p := range o.Parameters {
				op.params = append(op.params, oaParam{p.Name, p.In, resolve(p.Schema)})
			}
			if c, ok := o.RequestBody.Content["application/json"]; ok {
				op.body = map[string]map[string]any{}
				root := resolve(c.Schema)
				op.bodyArray = schemaType(root) == "array"
				collectProps(root, resolve, op.body, "")
			}
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].path+ops[i].method < ops[j].path+ops[j].method })
	return ops
}

// collectProps gathers the properties of a body schema (through
// allOf/anyOf/oneOf and arrays of objects), and one level of a nested
// object's as "parent.child".
func collectProps(s map[string]any, resolve func(map[string]any) map[string]any, out map[string]map[string]any, prefix string) {
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := s[k].([]any); ok {
			for _, x := range list {
				if m, ok := x.(map[string]any); ok {
					collectProps(resolve(m), resolve, out, prefix)
				}
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok && prefix == "" {
		collectProps(resolve(items), resolve, out, prefix)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			m, ok := p.(map[string]any)
			if !ok {
				continue
			}
			m = resolve(m)
			out[prefix+name] = m
			if _, nested := m["properties"]; nested && prefix == "" {
				collectProps(m, resolve, out, name+".")
			}
		}
	}
}

var oaParamRe = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// colonPath is a document path in the router's form ({id} → :id).
func colonPath(p string) string { return oaParamRe.ReplaceAllString(p, ":$1") }

// fillPath fills a document path's parameters with the seeded ids; set
// ("name=value") replaces one of them.
func fillPath(p string, ids map[string]string, set string) string {
	name, val, _ := strings.Cut(set, "=")
	return oaParamRe.ReplaceAllStringFunc(p, func(m string) string {
		n := m[1 : len(m)-1]
		if n == name {
			return val
		}
		if v, ok := ids[p+" "+n]; ok {
			return v
		}
		if v, ok := ids[n]; ok {
			return v
		}
		return "abc"
	})
}

// schemaType is a schema's type (the first of a union's).
func schemaType(s map[string]any) string {
	if t, ok := s["type"].(string); ok {
		return t
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if list, ok := s[k].([]any); ok && len(list) > 0 {
			if m, ok := list[0].(map[string]any); ok {
				return schemaType(m)
			}
		}
	}
	return "string"
}

// hostileValues are the query and path values sent to one parameter.
func hostileValues(s map[string]any) []string {
	long := strings.Repeat("x", 3000)
	switch schemaType(s) {
	case "integer", "number":
		return []string{"99999999999999999999999", "-1", "1.5", "1e400", "abc", long}
	case "boolean":
		return []string{"maybe", "1", long}
	}
	vs := []string{long, "9999-12-31", "-", ",,,", "-" + long, "zz_unknown", "0001-01-01"}
	if _, ok := s["enum"]; ok {
		vs = append(vs, "ZZ_UNKNOWN_ENUM")
	}
	return vs
}

// hostileJSON are the JSON values sent in one body field.
func hostileJSON(s map[string]any) []any {
	long := strings.Repeat("y", 3000)
	switch schemaType(s) {
	case "integer", "number":
		return []any{json.Number("99999999999999999999999999"), -1, 1.5, json.Number("1e400"), "abc", map[string]any{}}
	case "boolean":
		return []any{"yes", 2, nil}
	case "array":
		items := make([]any, 3000)
		for i := range items {
			items[i] = "z"
		}
		return []any{items, "notanarray", []any{long, nil, 1}}
	case "object":
		return []any{"notanobject", []any{1}, map[string]any{"a": long}}
	}
	return []any{long, "9999-12-31T00:00:00Z", 123, true, []any{"a"}, map[string]any{"x": 1}, "ZZ_UNKNOWN"}
}

// bodyWith is base with field f ("parent.child" for a nested one) set to v,
// as JSON; in an array of one when array is set.
func bodyWith(base map[string]any, f string, v any, array bool) string {
	body := map[string]any{}
	for k, bv := range base {
		body[k] = bv
	}
	if parent, child, nested := strings.Cut(f, "."); nested {
		inner := map[string]any{}
		if m, ok := body[parent].(map[string]any); ok {
			for k, iv := range m {
				inner[k] = iv
			}
		}
		inner[child] = v
		body[parent] = inner
	} else {
		body[f] = v
	}
	var out any = body
	if array {
		out = []any{body}
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return string(b)
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
